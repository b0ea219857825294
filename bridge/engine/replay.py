"""Replay of what a stopped run left in flight, before any new work is planned.

Every pending or sent intent is sent again with its own Idempotency-Key and its journalled body, byte for
byte: the target either runs it once (it never arrived) or answers the first response again (it did), and
the v1 ids go into the crosswalk. An intent older than the target's key retention window (A20: 24 hours)
cannot trust that: the key may be forgotten and a replay would create a second object. Such an intent is
first looked up on the target (``stale.find_on_target``); what is found is completed from the target's own
ids, and only what is provably absent is sent again. A split-item fan-out is looked up entry by entry
(``stale.find_fan_out_items``): the items found are booked, the others sent.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import structlog

from bridge.clients.v1 import V1Client
from bridge.engine.books import Books, engine_scope
from bridge.engine.executor import Executor
from bridge.engine.stale import find_fan_out_items, find_on_target
from bridge.engine.writes import Write
from mappings.kinds import Kind
from state.journal import members_of
from state.models import IntentRow

log = structlog.get_logger("bridge.engine")

# A20: the target keeps idempotency keys for 24 hours.
KEY_RETENTION = timedelta(hours=24)


def write_of(row: IntentRow) -> Write:
    """The journalled intent as a ``Write`` again (its step key pinned to the journal's)."""
    keyed = row.idempotency_key != row.step_key
    return Write(
        Kind(row.kind),
        engine_scope(row.scope),
        row.method,
        row.path,
        json.loads(row.body),
        members_of(row),
        key=row.idempotency_key if keyed else None,
        step=row.step_key,
        operation=row.operation,
    )


async def replay_in_flight(
    books: Books, executor: Executor, v1: V1Client, *, now: datetime | None = None, retention: timedelta = KEY_RETENTION
) -> int:
    """Finish every in-flight intent, oldest first; returns how many there were."""
    rows = books.journal.in_flight()
    moment = now or datetime.now(UTC)
    for row in rows:
        write = write_of(row)
        log.info(
            "bridge.replay.intent", kind=row.kind, step=row.step_key, status=row.status, members=len(write.members)
        )
        stale = write.key is not None and moment - row.created_at > retention
        if stale and write.fanout:
            landed = await find_fan_out_items(v1, write)
            log.info("bridge.replay.found_on_target", kind=row.kind, step=row.step_key, entries=len(landed))
            await executor.write(write, landed=landed)
            continue
        if stale:
            found = await find_on_target(v1, write)
            if found is not None:
                await books.complete(write, found, [])
                log.info("bridge.replay.found_on_target", kind=row.kind, step=row.step_key)
                continue
        await executor.write(write)
    return len(rows)
