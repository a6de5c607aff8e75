"""The forge adapter's failures: each one a clear ForgeError (or None where a lookup found nothing), rate
limits waited out only within a bound, header values of any shape handled, and the token in no text."""

from __future__ import annotations

import logging
import time

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hz.review.forge import ForgeError
from hz.review.forge_http import MAX_WAIT_S
from hz.review.forge_limits import rate_limit, retry_seconds
from tests.review.conftest import DRAFT, Rig


def _open(rig: Rig) -> int:
    return rig.forge.upsert_pull(DRAFT, base="main", title="T", body="B", labels=(), reviewers=()).number


def test_a_rejected_token_says_so(github: Rig) -> None:
    github.fake.fail(401)
    with pytest.raises(ForgeError, match="rejected the token in GITHUB_TOKEN") as caught:
        github.forge.pull_for_branch(DRAFT)
    assert caught.value.status == 401 and "GITHUB_TOKEN" in (caught.value.hint or "")


def test_a_wrong_token_is_rejected_by_the_fake(github: Rig) -> None:
    """The fake checks `Authorization`: only the right token, as Bearer or `token`, gets in."""
    token = github.fake.token
    for header, status in ((f"Bearer {token}", 200), (f"token {token}", 200), ("Bearer nope", 401), ("", 401)):
        answer = httpx.get(f"{github.fake.url}/repos/team/hz-team/pulls", headers={"Authorization": header})
        assert answer.status_code == status, header


def test_not_found_is_none_for_a_lookup_and_an_error_for_a_write(github: Rig) -> None:
    assert github.forge.pull(77) is None
    with pytest.raises(ForgeError, match="404") as caught:
        github.forge.close_pull(77)
    assert "GITHUB_REPOSITORY" in (caught.value.hint or "")
    with pytest.raises(ForgeError, match="404"):
        github.forge.find_comment(77, "<!-- x -->")


def test_unprocessable_carries_githubs_message(github: Rig) -> None:
    github.fake.open_pull(DRAFT, "by a person")
    with pytest.raises(ForgeError, match="A pull request already exists") as caught:
        github.forge.create_pull(DRAFT, base="main", title="again", body="")
    assert caught.value.status == 422
    with pytest.raises(ForgeError, match="No commits between main and main"):
        github.forge.create_pull("main", base="main", title="nothing", body="")


def test_a_primary_limit_that_resets_soon_is_waited_out(github: Rig) -> None:
    github.fake.rate_limit_primary(reset_in=3)
    assert github.forge.pull_for_branch(DRAFT) is None
    assert len(github.sleeps) == 1 and 1 <= github.sleeps[0] <= 4


@pytest.mark.parametrize("status", [403, 429])
def test_a_primary_limit_that_resets_later_says_when(github: Rig, status: int) -> None:
    reset = int(time.time()) + 3600
    github.fake.rate_limit_primary(reset=str(reset), status=status)
    with pytest.raises(ForgeError, match="rate limit") as caught:
        github.forge.pull_for_branch(DRAFT)
    assert time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(reset)) in caught.value.message
    assert github.sleeps == []


@pytest.mark.parametrize("status", [403, 429])
def test_a_secondary_limit_honours_retry_after(github: Rig, status: int) -> None:
    github.fake.rate_limit_secondary(retry_after="2", times=2, status=status)
    assert github.forge.pull_for_branch(DRAFT) is None
    assert github.sleeps == [2.0, 2.0]


def test_a_secondary_limit_that_persists_gives_up_within_the_bound(github: Rig) -> None:
    github.fake.rate_limit_secondary(retry_after="5", times=50)
    with pytest.raises(ForgeError, match="retry after 5 s"):
        github.forge.pull_for_branch(DRAFT)
    assert sum(github.sleeps) <= MAX_WAIT_S and github.fake.count() <= 4


def test_a_429_without_retry_after_and_a_plain_403_are_errors_at_once(github: Rig) -> None:
    github.fake.rate_limit_secondary(retry_after=None, status=429)
    with pytest.raises(ForgeError, match="at least a minute"):
        github.forge.pull_for_branch(DRAFT)
    github.fake.fail(403, message="Resource not accessible by integration")
    with pytest.raises(ForgeError, match=r"forbids .*Resource not accessible"):
        github.forge.pull_for_branch(DRAFT)
    assert github.sleeps == []


@pytest.mark.parametrize(
    ("headers", "outcome"),
    [
        ({"retry-after": "-5"}, "ok"),  # negative: no wait, then the retry
        ({"retry-after": "999999999999999"}, "error"),
        ({"retry-after": "1e400"}, "error"),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, "ok"),  # a date in the past: no wait
        ({"retry-after": "Wed, 99 Foo 99999 99:99:99 GMT"}, "error"),
        ({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "99999999999999"}, "error"),
        ({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "-99999999999999"}, "ok"),  # long past
        ({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "nan"}, "error"),
    ],
)
def test_absurd_header_values_neither_crash_nor_hang(github: Rig, headers: dict[str, str], outcome: str) -> None:
    github.fake.fail(403, headers=headers, message="API rate limit exceeded")
    if outcome == "ok":
        assert github.forge.pull_for_branch(DRAFT) is None
    else:
        with pytest.raises(ForgeError, match="rate limit"):
            github.forge.pull_for_branch(DRAFT)
    assert sum(github.sleeps) <= MAX_WAIT_S


_HEADER_TEXT = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40),
)


@settings(max_examples=300, deadline=None)
@given(status=st.sampled_from([403, 429]), retry_after=st.none() | _HEADER_TEXT, reset=st.none() | _HEADER_TEXT,
       remaining=st.sampled_from([None, "0", "1", " 0 "]))  # fmt: skip
def test_any_rate_limit_headers_give_a_bounded_wait_or_none(
    status: int, retry_after: str | None, reset: str | None, remaining: str | None
) -> None:
    headers = {k: v for k, v in (("retry-after", retry_after), ("x-ratelimit-reset", reset),
                                 ("x-ratelimit-remaining", remaining)) if v is not None}  # fmt: skip
    found = rate_limit(httpx.Response(status, headers=headers, text="{}"), time.time())
    if found is not None:
        wait, when = found
        assert wait is None or 0 <= wait < float("inf")
        assert isinstance(when, str) and when
    if retry_after is not None:
        seconds = retry_seconds(retry_after, time.time())
        assert seconds is None or 0 <= seconds < float("inf")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(retry_after=_HEADER_TEXT, reset=_HEADER_TEXT)
def test_the_adapter_survives_any_rate_limit_headers(github: Rig, retry_after: str, reset: str) -> None:
    github.sleeps.clear()
    github.fake.fail(403, headers={"retry-after": retry_after}, message="secondary rate limit")
    github.fake.fail(429, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset})
    try:
        github.forge.pull_for_branch(DRAFT)
    except ForgeError as exc:
        assert "rate limit" in exc.message
    assert sum(github.sleeps) <= MAX_WAIT_S
    github.fake.clear_faults()  # what an early give-up left for the next example


def test_the_token_is_in_no_error_and_no_log_record(github: Rig, caplog: pytest.LogCaptureFixture) -> None:
    """A hostile or buggy server may echo the token; none of it reaches a message, a hint or a log."""
    caplog.set_level(logging.DEBUG)
    number, token = _open(github), github.fake.token
    texts: list[str] = []
    faults = [
        (401, {}), (403, {}), (404, {}), (422, {}), (500, {}),
        (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()) + 9999)}),
        (429, {"retry-after": token}),
    ]  # fmt: skip
    for status, headers in faults:
        github.fake.fail(status, headers=headers, message=f"echo Bearer {token} and token {token}")
        with pytest.raises(ForgeError) as caught:
            github.forge.close_pull(number)
        texts += [str(caught.value), caught.value.message, caught.value.hint or "", caught.value.render()]
    github.fake.fail(422, body={"message": "Validation Failed", "errors": [{"message": f"bad {token}"}, token]})
    with pytest.raises(ForgeError, match="Validation Failed") as caught:
        github.forge.add_comment(number, "x")
    texts.append(caught.value.render())
    texts += [record.getMessage() for record in caplog.records]
    assert texts and not [text for text in texts if token in text]


def test_a_next_page_elsewhere_is_not_followed(github: Rig) -> None:
    issue = github.fake.open_issue("x")
    link = {"link": '<https://elsewhere.example/steal?page=2>; rel="next"'}
    github.fake.fail(200, headers=link, body=[{"id": 1, "body": "no marker"}])
    with pytest.raises(ForgeError, match="outside"):
        github.forge.find_comment(issue, "<!-- hz-publish: k -->")


def test_an_unreachable_forge_is_a_clear_error(github: Rig) -> None:
    github.fake.stop()
    with pytest.raises(ForgeError, match="could not reach GitHub"):
        github.forge.pull_for_branch(DRAFT)


@pytest.mark.parametrize("body", [{"message": "Nope", "errors": 5}, {"errors": {"a": 1}}, [1, 2], "text", None])
def test_an_error_answer_of_any_shape_is_a_forge_error(github: Rig, body: object) -> None:
    github.fake.fail(422, body=body)
    with pytest.raises(ForgeError, match="422"):
        github.forge.close_pull(1)


def test_a_pull_request_for_a_missing_branch_names_the_field(github: Rig) -> None:
    with pytest.raises(ForgeError, match=r"Validation Failed; head invalid"):
        github.forge.upsert_pull("hz/draft/gone/x", base="main", title="T", body="B", labels=(), reviewers=())


_LISTED_ODDLY = [
    {"number": 1, "head": {"ref": DRAFT}, "base": "main", "user": "x", "labels": "zz", "requested_reviewers": 5}
]


@pytest.mark.parametrize(
    ("call", "body"),
    [
        ("pull", [1, 2]),
        ("pull", {"number": "7"}),
        ("pull_for_branch", {"not": "a list"}),
        ("find_comment", [{"body": "<!-- m -->", "id": "7"}]),
        ("add_comment", {"id": None}),
        ("upsert", _LISTED_ODDLY),
    ],
)
def test_a_malformed_answer_is_a_forge_error_never_a_crash(github: Rig, call: str, body: object) -> None:
    github.fake.fail(200 if call != "add_comment" else 201, body=body)
    calls = {
        "pull": lambda: github.forge.pull(1),
        "pull_for_branch": lambda: github.forge.pull_for_branch(DRAFT),
        "find_comment": lambda: github.forge.find_comment(1, "<!-- m -->"),
        "add_comment": lambda: github.forge.add_comment(1, "x"),
        "upsert": lambda: github.forge.upsert_pull(
            DRAFT, base="main", title="T", body="B", labels=("a",), reviewers=()
        ),
    }
    with pytest.raises(ForgeError):
        calls[call]()
