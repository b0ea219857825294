"""How the emulator reads its clock and writes a moment on both surfaces."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from bridge.emulator.core.ids import utc_now
from bridge.emulator.wire.formats import wire_moment


def test_the_clock_reads_utc_to_the_millisecond() -> None:
    before = datetime.now(UTC) - timedelta(milliseconds=1)
    now = utc_now()
    assert now.tzinfo is UTC
    assert now.microsecond % 1000 == 0
    assert before <= now <= datetime.now(UTC)


@given(st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2999, 12, 31), timezones=st.just(UTC)))
def test_a_utc_moment_is_written_as_iso_8601_with_z(moment: datetime) -> None:
    written = wire_moment(moment)
    assert written.endswith("Z")
    assert datetime.fromisoformat(written) == moment
    assert wire_moment(moment) == written  # again, from the kept text


def test_an_instant_at_another_offset_keeps_its_offset_after_the_same_instant_in_utc() -> None:
    # Equal instants are equal datetimes: only UTC moments are kept, so one cannot answer for the other.
    utc = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    paris = utc.astimezone(timezone(timedelta(hours=1)))
    assert utc == paris
    assert wire_moment(utc) == "2026-11-25T12:00:00Z"
    assert wire_moment(paris) == "2026-11-25T13:00:00+01:00"
