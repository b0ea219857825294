"""The documents step: legacy attachments uploaded to v1 and linked to the records made from theirs.

Which attachments are carried, and how, is declared once in ``mappings.documents.CARRIED`` (a ``Carried`` per
kind: its label, the v1 link kind, the crosswalk kind of the record the file hangs on, the record's field holding
the files, an optional description, the ``--with`` choice that carries it); ``engine.kinds`` makes each its
``KindSpec``. A later kind of attachment is one more entry there, its files handed over by the step that reads
their records (``ProjectPipeline.attached``): the orders step hands the purchase orders' files, the actuals step
an actual's receipts and the files of the bank transaction it came from (``engine.bank_files``).

For each (file, record) pair, in ``Documents.write``:

1. the record's v1 id from the crosswalk (none: the record was refused, its files are held back with it); a file
   declared larger than ``max_file_bytes`` is quarantined before anything is downloaded;
2. new documents go through the one record step (``Applier.write``) as ``documents_upload`` creates: the
   executor downloads each file into the spool (``engine.spool``) and streams it out under the key the record
   step derived, so a replay sends the same bytes;
3. each document then gets its follow-ups, journalled like every write (no Idempotency-Key: a PATCH and a PUT
   repeat safely): the description (``documents_update``) where the kind declares one, then the link
   (``documents_link``). The crosswalk holds the link's hash once linked, so a re-run sends nothing for it.

A document whose upload the service committed but whose answer was lost is finished by the journal replay
(same key and bytes; past key retention, found among the unlinked documents by name, size and content hash,
``KindSpec.natural``, A103).
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.engine.adopt import Found
from bridge.engine.apply import Applier, Target
from bridge.engine.executor import Sent
from bridge.engine.kinds import crosswalk_kind, spec
from bridge.engine.plan import Fate, QuarantinedRecord, Refusal, Tally, total
from bridge.engine.spool import Spool
from bridge.engine.tasks import run_all
from bridge.engine.wanted import PLACEHOLDER, Desired, Want, Wanted
from bridge.engine.writes import Write
from mappings.documents import CARRIED, UPLOADS, Attachment, Carried, attachment
from mappings.errors import MappingError
from mappings.inventory import Stock
from mappings.kinds import Kind
from mappings.records import File

BY_KIND: dict[Kind, Carried] = {carried.kind: carried for carried in CARRIED}

Attached = Sequence[tuple[str, Sequence[File]]]
"""The files hanging on records: (legacy record id, its files), in source order."""


def carried_kinds(extras: frozenset[str]) -> frozenset[Kind]:
    """The attachment kinds a run carries given its ``--with`` choices."""
    return frozenset(c.kind for c in CARRIED if not c.extra or c.extra in extras)


class Documents:
    """Uploads and links one kind's attachments in one scope (see the module docstring)."""

    def __init__(
        self,
        applier: Applier,
        spool: Spool,
        *,
        cap: int,
        extras: frozenset[str] = frozenset(),
        left_out: frozenset[Kind] = frozenset(),
    ) -> None:
        self.applier = applier
        self.books = applier.books
        self.spool = spool
        self.cap = cap
        # The kinds this run carries: every one but those needing a ``--with`` choice the run was not given.
        self.kinds = carried_kinds(extras)
        # Those the operator left behind (``--without``): counted, never downloaded or sent.
        self.left_out = left_out

    async def write(self, carried: Carried, scope: str, attached: Attached) -> Tally:
        if carried.kind in self.left_out:
            return Tally.of(carried.kind, Fate.LEFT_OUT, sum(len(files) for _, files in attached))
        declared = spec(carried.kind)
        wants: list[Want] = []
        errors: list[MappingError] = []
        large: list[QuarantinedRecord] = []
        ready: list[tuple[Attachment, str]] = []
        held = 0
        seen: list[str] = []
        uploads = 0
        upload_bytes = 0
        for record_id, files in attached:
            target = self.books.lookup(crosswalk_kind(carried.target), scope, record_id)
            for file in files:
                try:
                    found = attachment(carried.kind, scope, file, carried.link, record_id)
                except MappingError as error:
                    errors.append(error)
                    continue
                seen.append(found.legacy_id)
                if target is None:
                    held += 1  # the record it hangs on was refused: the file waits with it
                elif found.size > self.cap:
                    large.append(_too_large(carried.kind, scope, found, self.cap))
                else:
                    ready.append((found, target))
                    if self.books.lookup(declared.stored, scope, found.legacy_id) is None:
                        self.spool.expect(found, keep=not self.applier.executor.dry_run)
                        uploads += 1
                        upload_bytes += found.size
                    wants.append(_want(found))
        adopted = await self._linked_already(carried, scope, ready)
        wants = [want for want in wants if want.legacy_id not in adopted.ids]
        wanted = Wanted((tuple(wants),) if wants else (), tuple(errors), held, tuple(seen))
        done = adopted.tally + await self.applier.write(Target(declared, scope), wanted)
        done += Tally(quarantine=tuple(Refusal(carried.kind, record) for record in large))
        done += total(await run_all(self._follow(carried, scope, found, target) for found, target in ready))
        figure = Tally.of(carried.kind, Fate.CREATED, 0)  # keeps the kind's row in the plan when it has none
        return done + figure + _uploads(uploads, upload_bytes)

    async def _linked_already(self, carried: Carried, scope: str, ready: Sequence[tuple[Attachment, str]]) -> Sent:
        """Documents the target holds linked to their record that the state does not know (a run it forgot
        uploaded and linked them, ``engine.adopt``): booked as linked, neither uploaded nor linked again."""
        executor = self.applier.executor
        adoption = executor.adoption
        if adoption is None or not adoption.covers(scope):
            return Sent({}, Tally())
        stored = spec(carried.kind).stored
        adopted = Sent({}, Tally())
        for found, target in ready:
            if self.books.lookup(stored, scope, found.legacy_id) is not None or target.startswith(PLACEHOLDER):
                continue
            upload = Write(carried.kind, scope, "documents_upload", (), found.metadata, (found.legacy_id,))
            document = await adoption.linked(upload, carried.link, target)
            if document is not None:
                linked = self._link(carried, scope, found, document, target).hashes[0]
                adopted += await executor.adopt(upload, {0: Found(document, linked)})
        return adopted

    def _link(self, carried: Carried, scope: str, found: Attachment, document: str, target: str) -> Write:
        """The link of a document to the record its file hangs on (its hash is what the crosswalk keeps once
        linked)."""
        return Write(
            carried.kind,
            scope,
            "documents_link",
            (document, carried.link),
            {"targetId": target},
            (found.legacy_id,),
            counts_as="followup",
        )

    async def _follow(self, carried: Carried, scope: str, found: Attachment, target: str) -> Tally:
        """The document's description (if its kind has one) and its link, unless the crosswalk says it is
        linked already (its hash is the link's)."""
        document = self.books.lookup(spec(carried.kind).stored, scope, found.legacy_id)
        if document is None:
            return Tally()  # its upload was refused: quarantined, nothing to link
        members = (found.legacy_id,)
        link = self._link(carried, scope, found, document, target)
        if self.books.unchanged(spec(carried.kind).stored, scope, found.legacy_id, link.hashes[0]):
            return Tally()
        done = Tally()
        if carried.description is not None:
            described = Write(
                carried.kind,
                scope,
                "documents_update",
                (document,),
                {"description": carried.description},
                members,
                counts_as="followup",
            )
            done += (await self.applier.executor.write(described)).tally
        return done + (await self.applier.executor.write(link)).tally


def _want(found: Attachment) -> Want:
    desired = Desired(found.legacy_id, found.metadata)
    return Want(found.legacy_id, lambda _: desired)


def _too_large(kind: Kind, scope: str, found: Attachment, cap: int) -> QuarantinedRecord:
    message = (
        f"legacy file {found.file_id!r} declares {found.size} bytes, more than max_file_bytes ({cap}): not "
        "downloaded; raise max_file_bytes if v1 should take it, or carry it by hand"
    )
    return QuarantinedRecord(kind.value, scope, found.legacy_id, "file.too_large", "size", message)


def _uploads(count: int, size: int) -> Tally:
    return Tally(stock=(Stock(UPLOADS, count, bytes=size),)) if count else Tally()
