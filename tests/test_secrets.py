"""Which environment values are secrets, scrubbing them from text, bytes and JSON, and the CLI boundary."""

from __future__ import annotations

import os
import string
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hz.cli import guarded
from hz.errors import HzError
from hz.runners.base import ToolSpec
from hz.runners.conversation import run_tool
from hz.secrets import (
    REDACTED,
    is_secret_name,
    redact_url,
    scrub,
    secret_values,
    secrets_of,
    without_secrets,
)
from hz.session.bodies import append_body, read_body


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("GITHUB_TOKEN", True),
        ("GH_TOKEN", True),
        ("JIRA_TOKEN", True),
        ("OPENAI_API_KEY", True),
        ("ANTHROPIC_API_KEY", True),
        ("OLLAMA_API_KEY", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("DB_PASSWORD", True),
        ("client_secret", True),
        ("JIRA_USER", False),  # a user name says who, not how to get in
        ("CLAUDE_CODE_MAX_OUTPUT_TOKENS", False),
        ("HZ_GITHUB_API", False),
        ("PATH", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_secret_values_are_long_enough_and_include_what_an_http_client_derives() -> None:
    environ = {
        "GITHUB_TOKEN": "ghp_0123456789",
        "SHORT_TOKEN": "1234567",  # too short to scrub without mangling every text
        "JIRA_USER": "priya@example.org",
        "JIRA_TOKEN": "jira-0123456789",
        "HZ_JIRA_BASE": "https://bot:pa%40ss-word@jira.example",
        "HOME": "/home/priya",
    }
    assert secret_values(environ) == (
        "cHJpeWFAZXhhbXBsZS5vcmc6amlyYS0wMTIzNDU2Nzg5",  # Basic priya@example.org:jira-0123456789
        "eC1hY2Nlc3MtdG9rZW46Z2hwXzAxMjM0NTY3ODk=",  # Basic x-access-token:ghp_0123456789, as checkout sends it
        "Ym90OnBhQHNzLXdvcmQ=",  # Basic bot:pa@ss-word, as a client sends the URL's userinfo
        "jira-0123456789",
        "ghp_0123456789",
        "pa%40ss-word",
        "pa@ss-word",
    )


def test_a_token_written_as_the_user_of_a_url_is_a_secret_and_a_plain_user_is_not() -> None:
    environ = {"ORIGIN": "https://ghp_tokenonly123@github.com/acme/app.git", "UPSTREAM": "ssh://git@host/app.git"}
    assert secret_values(environ) == ("Z2hwX3Rva2Vub25seTEyMzo=", "ghp_tokenonly123")


def test_scrub_replaces_secrets_and_drops_userinfo() -> None:
    environ = {"GITHUB_TOKEN": "ghp_0123456789", "JIRA_TOKEN": "ghp_0123456789abc"}
    text = "401 for ghp_0123456789abc and ghp_0123456789 at https://x:y@api.example/v3?q=1 (see mail@example.org)"
    assert scrub(text, environ) == (
        "401 for [redacted] and [redacted] at https://api.example/v3?q=1 (see mail@example.org)"
    )


@pytest.mark.parametrize(
    ("url", "plain"),
    [
        ("https://user:tok@127.0.0.1:8080/api", "https://127.0.0.1:8080/api"),
        ("https://tok@github.com/acme/app.git", "https://github.com/acme/app.git"),
        ("http://u:p@ss@host/x?mail=a@b", "http://host/x?mail=a@b"),
        ("https://host/x?mail=a@b", "https://host/x?mail=a@b"),
        ("git@github.com:acme/app.git", "git@github.com:acme/app.git"),  # scp form: "git" is no secret
        ("/srv/git/app.git", "/srv/git/app.git"),
    ],
)
def test_redact_url(url: str, plain: str) -> None:
    assert redact_url(url) == plain


def test_without_secrets_keeps_the_named_logins_and_proxies() -> None:
    environ = {
        "GITHUB_TOKEN": "ghp_0123456789",
        "ANTHROPIC_API_KEY": "sk-ant-0123456789",
        "HTTPS_PROXY": "http://me:proxy-pass@proxy:3128",
        "HZ_GITHUB_API": "https://me:url-pass@ghe.example/api/v3",
        "LANG": "C.UTF-8",
    }
    assert without_secrets(environ, keep={"ANTHROPIC_API_KEY"}) == {
        "ANTHROPIC_API_KEY": "sk-ant-0123456789",
        "HTTPS_PROXY": "http://me:proxy-pass@proxy:3128",
        "HZ_GITHUB_API": "https://ghe.example/api/v3",
        "LANG": "C.UTF-8",
    }


TOKEN_CHARS = string.ascii_letters + string.digits + "_-."
tokens = st.text(alphabet=TOKEN_CHARS, min_size=8, max_size=40)


@given(tokens, st.text(max_size=200), st.text(max_size=200))
def test_no_secret_survives_a_scrub(token: str, before: str, after: str) -> None:
    secrets = secrets_of({"GITHUB_TOKEN": token})
    assert token not in secrets.scrub(before + token + after + token)


@pytest.mark.parametrize("token", ['"],"k-secret', 'back\\slash"quote', "tab\there-secret"])
def test_a_secret_with_json_punctuation_never_breaks_the_json_around_it(token: str) -> None:
    data = orjson.dumps({"a": ["x", f"x{token}y"], "k": token})
    assert orjson.loads(secrets_of({"JIRA_TOKEN": token}).scrub_bytes(data)) == {
        "a": ["x", f"x{REDACTED}y"],
        "k": REDACTED,
    }


json_leaves = st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.text(max_size=30))
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def strings_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *strings_in(v))]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


@given(st.text(min_size=8, max_size=20).filter(lambda t: "[redacted]" not in t), json_values)
def test_scrubbed_json_bytes_stay_json_and_hold_no_secret(token: str, value: object) -> None:
    planted = {"a": [value, f"x{token}y"], f"k{token}": token}
    data = secrets_of({"JIRA_TOKEN": token}).scrub_bytes(orjson.dumps(planted))
    parsed = orjson.loads(data)  # a secret with quotes or backslashes is matched in its escaped form
    assert parsed["a"][1] == f"x{REDACTED}y"
    assert not any(token in s for s in strings_in(parsed))


@given(tokens, st.sampled_from(["https", "http", "ssh", "git"]), st.text(alphabet=TOKEN_CHARS, min_size=1))
def test_redact_url_leaves_no_credential(token: str, scheme: str, user: str) -> None:
    url = f"{scheme}://{user}:{token}@host.example/path"
    assert redact_url(url) == f"{scheme}://host.example/path"
    assert redact_url(redact_url(url)) == redact_url(url)


def test_the_cli_boundary_prints_an_error_without_the_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_boundary0123")

    def failing() -> int:
        raise HzError("the server said: bad credentials ghp_boundary0123", hint="check ghp_boundary0123")

    assert guarded(failing) == 1
    assert capsys.readouterr().err == ("error: the server said: bad credentials [redacted]\n  hint: check [redacted]\n")


def test_a_crash_log_holds_no_token(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("JIRA_TOKEN", "jira-crash-0123")

    def crashing() -> int:
        raise RuntimeError("unexpected answer: jira-crash-0123 from https://bot:pw-0123@jira.example/x")

    assert guarded(crashing) == 3
    [log] = (Path(os.environ["HZ_HOME"]) / "logs").glob("crash-*.log")
    assert capsys.readouterr().err == f"hz hit a bug; the traceback is in {log}\n"
    text = log.read_text()
    assert text.endswith("RuntimeError: unexpected answer: [redacted] from https://jira.example/x\n")
    assert "jira-crash-0123" not in text and "pw-0123" not in text


def test_a_turn_body_is_written_without_secrets_or_url_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_inabody0123")
    config = '[remote "origin"]\n\turl = https://priya:ghp_other0123@github.com/acme/app.git\n'
    append_body(tmp_path, "t-1", {"gather": {"values": {"config": config, "note": "token ghp_inabody0123"}}})

    data = (tmp_path / "turns" / "t-1.jsonl").read_bytes()
    assert read_body(tmp_path, "t-1").records == [
        {
            "gather": {
                "values": {
                    "config": '[remote "origin"]\n\turl = https://github.com/acme/app.git\n',
                    "note": "token [redacted]",
                }
            }
        }
    ]
    assert b"ghp_" not in data and b"priya" not in data


def test_what_a_tool_answers_reaches_the_model_without_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-intool-0123")
    spec = ToolSpec("hz_file_text_read", "a file", True, lambda args: f"OPENAI_API_KEY=sk-intool-0123 ({args['path']})")
    assert run_tool(spec, {"path": ".env"}) == "OPENAI_API_KEY=[redacted] (.env)"
