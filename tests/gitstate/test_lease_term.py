"""When a lease term is over (hz.gitstate.lease_term): released by its record, or its turn's `turn.finished`
filed under the record's slot and written under its token. Nothing else ends it: another token's finish,
a skip, another slot's finish, bytes that are no event.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hz.gitstate import lease
from hz.gitstate.events import Event, path_of
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.lease_term import finished, over
from hz.gitstate.types import format_utc
from hz.gitstate.writer import StateWriter
from tests.gitstate.factory import finished as finished_event
from tests.gitstate.factory import hz_id, started
from tests.gitstate.test_writer import NOW, SETTINGS, SLOT, holder

AGENT = hz_id(3)


def record(slot: datetime, token: int, state: str = "held") -> LeaseRecord:
    return LeaseRecord(lease=AGENT, holder="@ann/m-0000000a", role="owner", token=token, slot=format_utc(slot),
                       acquired=format_utc(slot), expires=format_utc(slot + timedelta(minutes=10)),
                       state=state)  # type: ignore[arg-type]  # fmt: skip


def end_of(slot: datetime, token: int, *, minute: bool = False) -> Event:
    """The slot's `turn.finished` under `token`, keyed to the minute (as receipts are) or to the second."""
    seconds = finished_event(AGENT, format_utc(slot), token)
    key = f"{AGENT}@{slot:%Y-%m-%dT%H:%MZ}" if minute else seconds.key
    return Event.parse_obj_checked({**seconds.model_dump(mode="json"), "key": key})


def filed(*events: Event) -> dict[str, bytes]:
    return {path_of(e): e.line() for e in events}


minutes = st.integers(min_value=0, max_value=60 * 24 * 366).map(
    lambda m: datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=m)
)


@settings(max_examples=60, deadline=None)
@given(slot=minutes, token=st.integers(1, 4), other=st.integers(1, 4), minute_form=st.booleans(),
       skew=st.sampled_from([timedelta(0), timedelta(minutes=1), timedelta(hours=1)]))  # fmt: skip
def test_only_the_terms_own_finish_ends_it(
    slot: datetime, token: int, other: int, minute_form: bool, skew: timedelta
) -> None:
    """A finish ends the term iff it is under the record's token and for the record's slot, either spelling."""
    end = end_of(slot, other, minute=minute_form)  # receipts spell a slot to the minute, leases to the second
    term = record(slot + skew, token)
    assert finished(filed(end).get, term) == (other == token and skew == timedelta(0))
    assert over(filed(end).get, term) == finished(filed(end).get, term)
    assert over(filed().get, record(slot, token, "released"))  # a release still ends it, finish or none


def test_a_start_or_a_skip_or_foreign_bytes_at_the_path_end_nothing() -> None:
    slot = datetime(2026, 10, 30, 15, tzinfo=UTC)
    term = record(slot, 2)
    end = end_of(slot, 2)
    assert not finished(filed(started(AGENT, format_utc(slot), 2)).get, term)
    assert not finished({path_of(end): b'{"kind": "turn.finished"}\n'}.get, term)
    assert not finished({path_of(end): b"\xff"}.get, term)
    assert finished(filed(end).get, term)
    assert finished(filed(end_of(slot, 2, minute=True)).get, term)


def test_a_writer_whose_note_is_gone_holds_a_finished_term_no_more(tmp_path: Path, bare: Path) -> None:
    """`holding` reads the lease and hz/state: held under our token, but its turn finished, it is not ours."""
    ann, token = holder(tmp_path, "ann", str(bare), AGENT)
    lease.forget(ann, AGENT)  # a crash lost the note: the remote says held under our token
    assert lease.holding(ann, AGENT, token) is not None
    writer = StateWriter(ann, SETTINGS)
    writer.queue(started(AGENT, SLOT, token), finished_event(AGENT, SLOT, token))
    assert writer.flush(NOW).released == {AGENT}
    assert lease.held(ann, AGENT) is None
    assert lease.holding(ann, AGENT, token) is None  # its end is on hz/state: no event goes under it again
