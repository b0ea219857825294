"""Replay of what a stopped run left in flight, before any new work is planned.

Every pending or sent intent is sent again with its own Idempotency-Key and its journalled body, byte for
byte: the target either runs it once (it never arrived) or answers the first response again (it did), and
the v1 ids go into the crosswalk. An intent older than the target's key retention window (A20: 24 hours)
cannot trust that: the key may be forgotten and a replay would create a second object. Such an intent is
first looked up on the target (``stale.find_on_target``); what is found is completed from the target's own
ids, and only what is provably absent is sent again. A split-item fan-out is looked up entry by entry
(``stale.find_fan_out_items``): the items found are booked, the others sent.

A dry run replays too, without sending: the plan counts the requests the run's replay will send and gives
the in-flight records placeholder ids, so it predicts the resumed run. The replay returns its requests and
quarantine, and which records it finished: the run's walk over the source then counts those as replayed
(``apply.Applier``), so each record is counted once.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import structlog

from bridge.clients.v1 import V1Client
from bridge.clients.v1_requests import BY_ID
from bridge.engine.apply import Replayed
from bridge.engine.books import Books, engine_scope
from bridge.engine.executor import Executor, Sent
from bridge.engine.kinds import crosswalk_kind, spec
from bridge.engine.plan import Tally
from bridge.engine.stale import find_derived, find_fan_out_items, find_link, find_on_target
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
        row.operation,
        BY_ID[row.operation].params_of(row.path),
        json.loads(row.body),
        members_of(row),
        key=row.idempotency_key if keyed else None,
        step=row.step_key,
    )


@dataclass(frozen=True, slots=True)
class Replay:
    """What the replay did: its requests and quarantine (no record fates), and the records it finished."""

    tally: Tally
    finished: Replayed
    intents: int


async def replay_in_flight(
    books: Books, executor: Executor, v1: V1Client, *, now: datetime | None = None, retention: timedelta = KEY_RETENTION
) -> Replay:
    """Finish every in-flight intent, oldest first."""
    rows = books.journal.in_flight()
    moment = now or datetime.now(UTC)
    tally = Tally()
    finished: set[tuple[str, str, str]] = set()
    for row in rows:
        write = write_of(row)
        log.info(
            "bridge.replay.intent", kind=row.kind, step=row.step_key, status=row.status, members=len(write.members)
        )
        sent = await _replay(
            books, executor, v1, write, stale=write.key is not None and moment - row.created_at > retention
        )
        tally += replace(sent.tally, records=Counter())
        finished |= {(crosswalk_kind(write.kind), write.scope, member) for member in sent.ids}
    return Replay(tally, frozenset(finished), len(rows))


async def _replay(books: Books, executor: Executor, v1: V1Client, write: Write, *, stale: bool) -> Sent:
    if write.method == "PUT" and write.key is None:
        # A link has no key to replay its answer: read back whether it is there before sending it again.
        linked = await find_link(v1, write)
        if linked is not None:
            return await _found(books, executor, write, linked, [])
    if stale and write.fanout:
        landed = await find_fan_out_items(v1, write)
        log.info("bridge.replay.found_on_target", kind=write.kind.value, step=write.step_key, entries=len(landed))
        return await executor.write(write, landed=landed, new=False)
    known = _spooled(executor, write) if stale else None
    if known is not None:
        # An upload's document is one of a kind's unlinked look-alikes: those other records hold are not it.
        taken = books.v1_ids(crosswalk_kind(write.kind), write.scope) if write.op.multipart else set()
        found = await find_on_target(v1, write, known, taken)
        if found is not None:
            derived = await find_derived(v1, write, found[0]) if len(found) == 1 else []
            return await _found(books, executor, write, found, derived)
    return await executor.write(write, new=False)


def _spooled(executor: Executor, write: Write) -> dict[str, object] | None:
    """What the spool knows of an upload's file that its body does not say, to tell apart two files of one name
    on the target: its size and SHA-256 (A103). Nothing for another write, or when the spool lost it; None when
    the file was never downloaded: the spool keeps its SHA-256 before the upload goes, so it never went (found
    by name and size, it took another record's look-alike)."""
    manifest = executor.spool.manifest(write.members[0]) if executor.spool is not None and write.op.multipart else None
    if manifest is None:
        return {}
    hashed = spec(write.kind).natural.hashed
    if hashed and not manifest.sha256:
        return None
    return {"size": manifest.size, **({hashed: manifest.sha256} if hashed else {})}


async def _found(
    books: Books, executor: Executor, write: Write, found: list[str], derived: list[tuple[str, str]]
) -> Sent:
    """Complete ``write`` from the target's own ids (a dry run only remembers them)."""
    if executor.dry_run:
        books.remember(write, found, derived)
    else:
        await books.complete(write, found, derived)
    log.info("bridge.replay.found_on_target", kind=write.kind.value, step=write.step_key)
    return Sent(dict(zip(write.members, found, strict=True)), Tally())
