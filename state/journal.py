"""The journal of intents: every write the engine sends, recorded before it is sent (a state machine).

::

    record ──> pending ──mark_sent──> sent ──complete──> done
                  │                    │ ├──fail──────> failed ──mark_sent──> sent (retry)
                  │                    │ └──quarantine─> quarantined
                  └──complete (found on the target by lookup) / fail / quarantine

An intent is keyed by a deterministic step key and carries the exact request (its published operationId,
method, path, JSON body text) and Idempotency-Key, so a resumed run replays what was in flight byte for
byte. ``complete`` writes the v1 ids into the crosswalk and the intent's completion in one transaction:
after a crash either both are in the file or neither is, and the replay (same key, same body) gets the
first response back from the target.
``done`` and ``quarantined`` are final; repeating the same final transition is a no-op, so a step that
crashed right after its commit can be re-applied safely. ``record_many`` and ``complete_many`` apply the same
transitions to several intents in one transaction (a group commit: one fsync for all, all or none).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, or_, update
from sqlmodel import Session, SQLModel, col, select

from state.crosswalk import CrosswalkEntry, chunks, insert_rows, upsert_entries
from state.db import Database
from state.errors import IntentConflictError, IntentTransitionError, UnknownIntentError
from state.models import IN_FLIGHT, INTENT_STATUSES, IntentRow, utc_now
from state.quarantine import QuarantineEntry, add_entries


@dataclass(frozen=True, slots=True)
class IntentSpec:
    """A write the engine is about to send. ``body`` is the exact JSON text that goes on the wire."""

    step_key: str
    kind: str
    method: str
    path: str
    idempotency_key: str
    body: str
    members: tuple[str, ...] = ()
    scope: str = ""
    run_id: int | None = None
    operation: str = ""
    """The published v1 operationId of the request (what the engine reads a bulk's shape from)."""


def members_of(intent: IntentRow) -> tuple[str, ...]:
    """The legacy ids an intent writes, in request order (index i of a bulk body is member i)."""
    members: list[str] = json.loads(intent.members_json)
    return tuple(members)


class Journal:
    """Records intents and moves them through their states; every transition is one transaction."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def record(self, spec: IntentSpec) -> IntentRow:
        """Journal an intent as pending; the same step key again returns the stored intent unchanged.

        Raises IntentConflictError when the step key is known with another request: the key derivation or
        the plan changed under a journalled step, and sending either would risk a duplicate.
        """
        with self._db.write() as session:
            _record_all(session, [spec])
            return _load(session, spec.step_key)

    def record_many(self, specs: Sequence[IntentSpec]) -> list[str]:
        """``record`` for several intents in ONE transaction (the engine's group commit: one fsync for all);
        returns each intent's status, in order."""
        with self._db.write() as session:
            return _record_all(session, specs)

    def get(self, step_key: str) -> IntentRow | None:
        """The intent under this step key, or None."""
        with self._db.read() as session:
            return session.get(IntentRow, step_key)

    def mark_sent(self, step_key: str) -> IntentRow:
        """Note that the request is about to go out (or out again): status sent, attempts + 1."""
        with self._db.write() as session:
            row = _load(session, step_key)
            _require(row.step_key, row.status, ("pending", "sent", "failed"), "mark_sent")
            row.status = "sent"
            row.attempts += 1
            row.updated_at = utc_now()
            return row

    def complete(
        self,
        step_key: str,
        entries: Sequence[CrosswalkEntry],
        response_summary: str | None = None,
        *,
        request_id: str | None = None,
    ) -> IntentRow:
        """Write the v1 ids and mark the intent done, in ONE transaction.

        Completing a done intent again with the same entries changes nothing (the crosswalk refuses a
        different v1 id for a mapped record, so a mismatch raises CrosswalkConflictError).
        """
        with self._db.write() as session:
            _complete_all(self._db, session, [(step_key, entries)], response_summary, request_id)
            return _load(session, step_key)

    def complete_many(self, completions: Sequence[tuple[str, Sequence[CrosswalkEntry]]]) -> list[str]:
        """``complete`` for several intents in ONE transaction (group commit); each is all-or-nothing with it.
        Returns each intent's status, in order: done."""
        with self._db.write() as session:
            _complete_all(self._db, session, completions, None, None)
        return ["done"] * len(completions)

    def fail(self, step_key: str, code: str, request_id: str | None = None) -> IntentRow:
        """The request failed (for now): keep the error code and request id; a later mark_sent retries it."""
        with self._db.write() as session:
            row = _load(session, step_key)
            _require(row.step_key, row.status, ("pending", "sent", "failed"), "fail")
            row.status = "failed"
            row.last_error_code = code
            row.last_request_id = request_id
            row.updated_at = utc_now()
            return row

    def quarantine(self, step_key: str, entries: Sequence[QuarantineEntry], request_id: str | None = None) -> IntentRow:
        """The request was refused for its records: mark it quarantined and file the records, in one transaction."""
        with self._db.write() as session:
            row = _load(session, step_key)
            if row.status == "quarantined":
                return row
            _require(row.step_key, row.status, ("pending", "sent", "failed"), "quarantine")
            add_entries(self._db, session, entries, run_id=row.run_id, step_key=step_key)
            row.status = "quarantined"
            row.last_error_code = entries[0].code if entries else row.last_error_code
            if request_id is not None:
                row.last_request_id = request_id
            row.updated_at = utc_now()
            return row

    def in_flight(self) -> list[IntentRow]:
        """Pending or sent intents, oldest first: what a resumed run replays before planning new work."""
        with self._db.read() as session:
            statement = (
                select(IntentRow)
                .where(col(IntentRow.status).in_(IN_FLIGHT))
                .order_by(col(IntentRow.created_at), col(IntentRow.step_key))
            )
            return list(session.exec(statement))

    def by_status(self, status: str, kind: str | None = None) -> list[IntentRow]:
        """Intents in one status (optionally of one kind), oldest first."""
        with self._db.read() as session:
            statement = select(IntentRow).where(IntentRow.status == status)
            if kind is not None:
                statement = statement.where(IntentRow.kind == kind)
            return list(session.exec(statement.order_by(col(IntentRow.created_at), col(IntentRow.step_key))))

    def of_run(self, run_id: int) -> list[IntentRow]:
        """The intents a run recorded, oldest first (bridge mode's lag: when each write was decided and done)."""
        with self._db.read() as session:
            statement = select(IntentRow).where(IntentRow.run_id == run_id)
            return list(session.exec(statement.order_by(col(IntentRow.created_at), col(IntentRow.step_key))))

    def counts(self) -> dict[str, dict[str, int]]:
        """Per kind, the number of intents in each status (every status present, zero when none)."""
        with self._db.read() as session:
            rows = session.exec(
                select(IntentRow.kind, IntentRow.status, func.count()).group_by(IntentRow.kind, IntentRow.status)
            )
            counts: dict[str, dict[str, int]] = {}
            for kind, status, count in rows:
                counts.setdefault(kind, dict.fromkeys(INTENT_STATUSES, 0))[status] = int(count)
            return counts


def _load(session: Session, step_key: str) -> IntentRow:
    row = session.get(IntentRow, step_key)
    if row is None:
        raise _unknown(step_key)
    return row


def _unknown(step_key: str) -> UnknownIntentError:
    return UnknownIntentError(f"no journalled intent with step key {step_key!r}; record it before sending it")


def _require(step_key: str, status: str, allowed: tuple[str, ...], transition: str) -> None:
    if status not in allowed:
        raise IntentTransitionError(
            f"cannot {transition} intent {step_key!r}: it is {status}, and {transition} applies only to "
            f"{' or '.join(allowed)} intents. This is a bug in the engine: report it with the step key"
        )


_REQUEST_FIELDS = ("kind", "scope", "operation", "method", "path", "idempotency key", "body", "members")


def _request(spec: IntentSpec) -> tuple[object, ...]:
    """What makes two intents under one step key the same request, in ``_REQUEST_FIELDS`` order."""
    return (
        spec.kind,
        spec.scope,
        spec.operation,
        spec.method,
        spec.path,
        spec.idempotency_key,
        spec.body,
        spec.members,
    )


def _same_request_or_raise(stored: IntentSpec, spec: IntentSpec) -> None:
    differences = [
        name
        for name, was, wanted in zip(_REQUEST_FIELDS, _request(stored), _request(spec), strict=True)
        if was != wanted
    ]
    if differences:
        raise IntentConflictError(
            f"step {spec.step_key!r} is already journalled with a different {', '.join(differences)}; the source "
            "or the mapping changed while this step was in flight. Let the journalled request finish first (rerun "
            "the same bridge version), or report this if the source did not change"
        )


@dataclass(frozen=True, slots=True)
class _Stored:
    """A journalled intent as the batch transitions read it: its request, status and run."""

    spec: IntentSpec
    status: str


# The batch paths use Core on the table: building an ORM object per intent was most of their CPU.
_INTENTS = SQLModel.metadata.tables[IntentRow.__tablename__]


def _stored(session: Session, specs: Sequence[IntentSpec]) -> tuple[dict[str, _Stored], dict[str, str]]:
    """The journalled intents under the specs' step keys, by step key, and the step key already using each of
    their Idempotency-Keys: one query per chunk of specs, for both keys, not one per intent or per key."""
    c = _INTENTS.c
    keys_of: dict[str, list[str]] = {}  # step key -> the Idempotency-Keys the batch gives it
    for spec in specs:
        keys_of.setdefault(spec.step_key, []).append(spec.idempotency_key)
    found: dict[str, _Stored] = {}
    keyed: dict[str, str] = {}
    for chunk in chunks(list(keys_of)):
        idempotency_keys = list(dict.fromkeys(key for step_key in chunk for key in keys_of[step_key]))
        statement = _INTENTS.select().with_only_columns(
            c.step_key, c.kind, c.method, c.path, c.idempotency_key, c.body, c.members_json, c.scope,
            c.run_id, c.operation, c.status,
        ).where(or_(c.step_key.in_(chunk), c.idempotency_key.in_(idempotency_keys)))  # fmt: skip
        for key, kind, method, path, idem, body, members, scope, run_id, operation, status in session.execute(
            statement
        ):
            keyed[idem] = key
            if key in keys_of:
                spec = IntentSpec(
                    key, kind, method, path, idem, body, tuple(json.loads(members)), scope, run_id, operation
                )
                found[key] = _Stored(spec, status)
    return found, keyed


def _progress(session: Session, step_keys: Sequence[str]) -> dict[str, tuple[str, int | None]]:
    """(status, run id) of the journalled intents among ``step_keys``: all a completion reads of them (the
    request bodies ``_stored`` reads are what a bulk's completion would otherwise fetch back for nothing)."""
    c = _INTENTS.c
    found: dict[str, tuple[str, int | None]] = {}
    for chunk in chunks(list(dict.fromkeys(step_keys))):
        statement = _INTENTS.select().with_only_columns(c.step_key, c.status, c.run_id).where(c.step_key.in_(chunk))
        found.update({key: (status, run_id) for key, status, run_id in session.execute(statement)})
    return found


def _record_all(session: Session, specs: Sequence[IntentSpec]) -> list[str]:
    """The body of ``record`` / ``record_many`` inside the caller's transaction: each intent's status, in
    ``specs``' order (a new intent is pending; a journalled one keeps its status)."""
    known, keyed = _stored(session, specs)  # keyed: Idempotency-Key -> the step key using it
    now = utc_now()
    new: list[dict[str, object]] = []
    statuses: list[str] = []
    for spec in specs:
        existing = known.get(spec.step_key)
        if existing is not None:
            _same_request_or_raise(existing.spec, spec)
            statuses.append(existing.status)
            continue
        clash = keyed.get(spec.idempotency_key)
        if clash is not None:
            raise IntentConflictError(
                f"step {spec.step_key!r} uses Idempotency-Key {spec.idempotency_key!r}, already used by step "
                f"{clash!r}; two different requests must never share a key. This is a bug in key "
                "derivation: report it with both step keys"
            )
        new.append(
            {
                "step_key": spec.step_key,
                "run_id": spec.run_id,
                "kind": spec.kind,
                "scope": spec.scope,
                "method": spec.method,
                "path": spec.path,
                "operation": spec.operation,
                "idempotency_key": spec.idempotency_key,
                "body": spec.body,
                "members_json": json.dumps(list(spec.members)),
            }
        )
        known[spec.step_key] = _Stored(spec, "pending")
        keyed[spec.idempotency_key] = spec.step_key
        statuses.append("pending")
    if new:
        insert_rows(session, _INTENTS, new, {"status": "pending", "attempts": 0, "created_at": now, "updated_at": now})
    return statuses


def _complete_all(
    database: Database,
    session: Session,
    completions: Sequence[tuple[str, Sequence[CrosswalkEntry]]],
    response_summary: str | None,
    request_id: str | None,
) -> None:
    """The body of ``complete`` / ``complete_many`` inside the caller's transaction.

    Every intent is checked before anything is written, and the crosswalk entries of the whole batch go in
    one upsert per run; a done intent completed again only refreshes its entries.
    """
    known = _progress(session, [step_key for step_key, _ in completions])
    entries_by_run: dict[int | None, list[CrosswalkEntry]] = {}
    finishing: list[str] = []
    for step_key, entries in completions:
        if step_key not in known:
            raise _unknown(step_key)
        status, run_id = known[step_key]
        if status != "done":
            _require(step_key, status, ("pending", "sent"), "complete")
            finishing.append(step_key)
        entries_by_run.setdefault(run_id, []).extend(entries)
    for run_id, entries in entries_by_run.items():
        upsert_entries(database, session, entries, run_id)
    done: dict[str, object] = {"status": "done", "response_summary": response_summary, "updated_at": utc_now()}
    if request_id is not None:
        done["last_request_id"] = request_id
    for chunk in chunks(list(dict.fromkeys(finishing))):
        session.execute(update(_INTENTS).where(_INTENTS.c.step_key.in_(chunk)).values(**done))
