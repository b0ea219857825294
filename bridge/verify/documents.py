"""Verify's proof of the documents (issue 30 point 7): each kind of carried attachment in the closed ledger, and
per document the bytes, size, type and link v1 holds now against the legacy file.

For every document the crosswalk knows:

- the SHA-256 of the bytes ``GET /documents/{id}/content`` serves, streamed (memory flat whatever the size),
  equals the legacy file's: the one the run computed while it downloaded (the spool's manifest, so legacy is
  not read twice), or, when the spool is gone, a streamed hash of the legacy download;
- the size v1 reports, the bytes it served and the size the legacy record declares are one number;
- v1's ``mimeType`` is the legacy ``type``;
- the document is linked, with its kind's link kind, to the v1 record the crosswalk made of the legacy record
  the file hangs on (a document left unlinked is a difference of its own).

The ledger counts each kind's source (the files hanging on the contacts, the actuals and the purchase orders
read) against the crosswalk, the quarantine and the documents v1 lists (``KindSpec.natural.holds`` picks each
kind's).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bridge.clients.http import HttpSession
from bridge.clients.transfer import digest, file_path
from bridge.clients.v1 import V1Client
from bridge.clients.v1_requests import BY_ID
from bridge.engine.kinds import spec
from bridge.engine.spool import Spool
from bridge.engine.tasks import run_all
from bridge.errors import NotFound
from bridge.verify.findings import Ledgers
from bridge.verify.heldback import HeldBy, HeldCount, held_back
from bridge.verify.ledger import CrosswalkEntry, KindInput, KindTally, SourceKey, TargetObject, tally
from bridge.verify.schema import DocumentDifference
from mappings.documents import CARRIED, Carried, document_id, file_of, files_of
from mappings.kinds import Kind
from mappings.records import Contact, File

RecordKey = tuple[str, str, str]
"""(crosswalk kind, state scope, legacy id)."""
Attached = Sequence[tuple[str, str, Sequence[File]]]
"""(state scope, legacy record id, the record's files)."""


@dataclass(frozen=True, slots=True)
class Origin:
    """The legacy record a document's file hangs on, and the size and type the legacy File publishes."""

    record: str
    size: int | None
    mime_type: object


@dataclass(frozen=True, slots=True)
class DocumentFindings:
    """The documents' part of the ledger and every document that differs."""

    ledgers: Ledgers
    differences: tuple[DocumentDifference, ...] = ()


def carried_in(crosswalk: Iterable[RecordKey], quarantine: Iterable[RecordKey]) -> frozenset[Kind]:
    """The attachment kinds the runs carried: the default ones, and an opt-in one when some run wrote or
    quarantined any of it (the runs' choice, read back from the state)."""
    touched = {key[0] for key in (*crosswalk, *quarantine)}
    return frozenset(c.kind for c in CARRIED if not c.extra or c.kind.value in touched)


@dataclass(slots=True)
class ProvenDocuments:
    """Documents a `bridge sync --watch` proved (bytes, size, type, link: no difference) with the v1 listing row
    each had then, by v1 id. A later verify of the same watch takes the proof while the row is the same (A118),
    instead of downloading every document of a project each quiet cycle; ``reused`` counts those it took."""

    rows: dict[str, str] = field(default_factory=dict)
    reused: int = 0


def _row_digest(row: Mapping[str, object]) -> str:
    return hashlib.sha256(json.dumps(row, sort_keys=True, default=str).encode()).hexdigest()


class DocumentCheck:
    """The documents of one verification: both clients, the state's entries, the spool's manifests."""

    def __init__(
        self,
        v1: V1Client,
        legacy: HttpSession,
        crosswalk: Mapping[RecordKey, CrosswalkEntry],
        quarantine: Mapping[RecordKey, str],
        *,
        spool: Path | None,
        latest_run: str | None,
        find: Callable[[str, str, str], str | None],
        above: Mapping[RecordKey, RecordKey],
        proven: ProvenDocuments | None = None,
    ) -> None:
        self.v1 = v1
        self.proven = proven
        # Each listed document's row digest (what a proof is held to, ``ProvenDocuments``).
        self.listed: dict[str, str] = {}
        self.legacy = legacy
        self.crosswalk = crosswalk
        self.quarantine = quarantine
        # The v1 id of a record (the one a file hangs on, its project...): (kind, state scope, legacy id) -> v1 id.
        self.find = find
        # The parent links above the records files hang on (a project's space), for what a refusal holds back.
        self.above = above
        self.spool = Spool(spool, None) if spool is not None else None
        self.latest_run = latest_run
        self.kinds = carried_in(crosswalk, quarantine)

    async def run(
        self, contacts: Sequence[Contact] | None, attached: Mapping[Kind, Attached], projects: frozenset[str] | None
    ) -> DocumentFindings:
        """The ledger and the differences of every carried kind: contacts' files (workspace; None when the
        verification is of some projects only: not counted then) and the files of the projects' records, per
        kind of attachment (``attached``), of the v1 ``projects`` (None: all)."""
        targets = await self._targets()
        ledgers = Ledgers()
        checks = []
        for carried in CARRIED:
            if carried.kind not in self.kinds or (carried.target is Kind.CONTACT and contacts is None):
                continue
            if projects is not None:  # the documents of the projects verified, as their source is
                targets[carried.kind] = [t for t in targets[carried.kind] if t.scope in projects]
            if contacts is not None and carried.target is Kind.CONTACT:
                files: Attached = [("", c.id, files_of(carried, c)) for c in contacts]
            else:
                files = attached.get(carried.kind, ())
            source = self._source(carried, files)
            held = self._held(carried, source)
            kind = Ledgers({carried.kind.value: self._tally(carried, source, targets[carried.kind], held)})
            ledgers += kind + Ledgers(held=HeldCount.of(held, self.quarantine))
            checks += [self._document(carried, *written) for written in self._written(carried, source)]
        found = await run_all(checks)
        return DocumentFindings(ledgers, tuple(d for one in found for d in one))

    async def _targets(self) -> dict[Kind, list[TargetObject]]:
        """Every document v1 lists, as a target object of each carried kind that holds it, read page by page
        (only the id, project and name of each are kept)."""
        found: dict[Kind, list[TargetObject]] = {carried.kind: [] for carried in CARRIED}
        holds = [(carried.kind, spec(carried.kind).natural.holds) for carried in CARRIED if carried.kind in self.kinds]
        async for page in self.v1.rows("documents_list"):
            for row in page:
                if not isinstance(row, dict):
                    continue
                target = TargetObject(str(row.get("id")), str(row.get("projectId") or ""), str(row.get("name")))
                if self.proven is not None:
                    self.listed[target.v1_id] = _row_digest(row)
                for kind, held in holds:
                    if held is None or held(row):
                        found[kind].append(target)
        return found

    def _source(self, carried: Carried, attached: Attached) -> dict[SourceKey, Origin]:
        """Each document the source holds: (scope, legacy id) -> its record and the file's published fields."""
        found: dict[SourceKey, Origin] = {}
        for scope, record_id, files in attached:
            for file in files:
                if isinstance(file, File) and isinstance(file.id, str) and file.id:
                    key = (scope, document_id(file.id, carried.link, record_id))
                    found[key] = Origin(record_id, file.size if isinstance(file.size, int) else None, file.type)
        return found

    def _written(self, carried: Carried, source: Mapping[SourceKey, Origin]) -> list[tuple[SourceKey, str, Origin]]:
        kind = spec(carried.kind).stored
        return [
            (key, entry.v1_id, origin)
            for key, origin in source.items()
            if (entry := self.crosswalk.get((kind, *key))) is not None
        ]

    def _tally(
        self,
        carried: Carried,
        source: Mapping[SourceKey, Origin],
        target: Sequence[TargetObject],
        held: Mapping[RecordKey, HeldBy],
    ) -> KindTally:
        kind = spec(carried.kind)
        data = KindInput(
            kind=carried.kind.value,
            source=frozenset(source),
            crosswalk={key: e for key in source if (e := self.crosswalk.get((kind.stored, *key))) is not None},
            quarantine={key: c for key in source if (c := self.quarantine.get((kind.stored, *key))) is not None},
            target=tuple(target),
            held_back={(by_key[1], by_key[2]): by.label for by_key, by in held.items()},
        )
        return tally(data, self.latest_run)

    def _held(self, carried: Carried, source: Mapping[SourceKey, Origin]) -> dict[RecordKey, HeldBy]:
        """The documents a refused record above them holds back (the record the file hangs on, its project,
        that project's space), by that highest refused record, as the ledger names every held-back record."""
        kind = spec(carried.kind).stored
        target = spec(carried.target).stored
        parents: dict[RecordKey, RecordKey] = dict(self.above)
        for (scope, legacy_id), origin in source.items():
            record = (target, scope, origin.record)
            parents[kind, scope, legacy_id] = record
            if scope:  # a project's record: its project is above it
                parents[record] = (Kind.PROJECT.value, "", scope)
        migrated = frozenset(key for key in set(parents.values()) if self.find(*key) is not None)
        keys = [(kind, scope, legacy_id) for scope, legacy_id in source]
        return held_back(keys, parents, migrated, self.quarantine)

    async def _document(self, carried: Carried, key: SourceKey, v1_id: str, origin: Origin) -> list[DocumentDifference]:
        """What differs between one document on v1 and its legacy file (nothing, when the watch proved it
        already and v1 lists it as it did then)."""
        proven, listed = self.proven, self.listed.get(v1_id)
        if proven is not None and listed is not None and proven.rows.get(v1_id) == listed:
            proven.reused += 1
            return []
        found = await self._compared(carried, key, v1_id, origin)
        if proven is not None and listed is not None and not found:
            proven.rows[v1_id] = listed
        return found

    async def _compared(self, carried: Carried, key: SourceKey, v1_id: str, origin: Origin) -> list[DocumentDifference]:
        """What differs between one document on v1 and its legacy file, read and downloaded now."""
        scope, legacy_id = key

        def differs(problem: str, legacy: str, target: str) -> DocumentDifference:
            return DocumentDifference(
                kind=carried.kind.value,
                scope=scope,
                legacy_id=legacy_id,
                v1_id=v1_id,
                problem=problem,
                legacy=legacy,
                v1=target,
            )

        try:
            row = await self.v1.read("documents_get", (v1_id,))
            served, served_size = await digest(self.v1.session, BY_ID["documents_getContent"].render((v1_id,)))
        except NotFound:
            return [differs("missing on v1", legacy_id, "404")]
        assert isinstance(row, dict)  # documents_get answers one object
        manifest = self.spool.manifest(legacy_id) if self.spool is not None else None
        if manifest is not None and manifest.sha256:
            expected = manifest.sha256
        else:  # the spool is gone: the legacy file is read again, hashed as it streams
            expected, _ = await digest(self.legacy, file_path(file_of(legacy_id)))
        found: list[DocumentDifference] = []
        if served != expected:
            found.append(differs("bytes differ (SHA-256)", expected, served))
        if not origin.size == served_size == row.get("size"):
            found.append(differs("size differs", str(origin.size), f"{row.get('size')} (served {served_size})"))
        if origin.mime_type != row.get("mimeType"):
            found.append(differs("type differs", str(origin.mime_type), str(row.get("mimeType"))))
        wanted = self.find(spec(carried.target).stored, scope, origin.record)
        expected_link = f"{carried.link} {wanted or '(not migrated)'}"
        links = row.get("links")
        linked = [
            str(link.get("id"))
            for link in (links if isinstance(links, list) else [])
            if isinstance(link, dict) and link.get("kind") == carried.link
        ]
        if not linked:
            found.append(differs("not linked", expected_link, "no link"))
        elif wanted not in linked:
            found.append(differs("linked elsewhere", expected_link, f"{carried.link} {linked[0]}"))
        return found
