"""Documents as a user checks them on v1: receipts linked to their transactions, contact files to their contacts,
tax documents only on the opt-in; a crash between an upload and its link resumes with no duplicate document;
the dirty world's oversized scan and lost receipt are quarantined with their codes while the rest go on."""

from __future__ import annotations

import asyncio
import stat
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bridge.engine.writes import Write
from mappings.documents import CARRIED, TAX_DOCUMENT_NOTE
from mappings.kinds import Kind
from tests.engine.test_every_kind import _age_in_flight
from tests.support.census import v1_writes_by_route
from tests.support.world import World, fresh_world

DOCUMENT_KINDS = tuple(carried.kind for carried in CARRIED)


class Crash(BaseException):
    """The process dying (nothing after it runs)."""


@dataclass(slots=True)
class CrashAt:
    """Stops the run when the first upload of ``kind`` reaches ``point``: ``service`` (v1 committed it, the
    answer is lost) or ``done`` (booked in the crosswalk, its link not sent)."""

    kind: Kind
    point: str

    def reached(self, write: Write, point: str) -> None:
        if write.kind is self.kind and write.operation == "documents_upload" and point == self.point:
            raise Crash


def _documents(world: World) -> list[dict[str, Any]]:
    return world.list_all("/documents")


def _shape(documents: list[dict[str, Any]]) -> Counter[tuple[str, ...]]:
    """Each document by name, size, type, description and links: a duplicate counts twice."""
    return Counter(
        (
            str(d["name"]),
            str(d["size"]),
            str(d["mimeType"]),
            str(d.get("description")),
            ",".join(sorted(f"{link['kind']}:{link['id']}" for link in d.get("links") or [])),
        )
        for d in documents
    )


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Counter[tuple[str, ...]], Counter[tuple[str, ...]]]:
    """The documents and the census a clean run of the small project leaves (the census names links by label)."""
    world = fresh_world(tmp_path_factory.mktemp("documents") / "state.sqlite")

    async def clean() -> Counter[tuple[str, ...]]:
        assert not (await world.run(extras=("tax-documents",))).ledger.quarantine
        return await world.census()

    census = asyncio.run(clean())
    shapes = Counter(key for key in census.elements() if key[0] in DOCUMENT_KINDS)
    return shapes, census


def test_documents_are_uploaded_once_each_with_their_bytes_and_linked(tmp_path: Path) -> None:
    """Every receipt, contact file and purchase order file becomes one v1 document with the legacy name, size and
    type, linked to the transaction, contact or order made from its record; none is left unlinked; the spool
    keeps only 0600 manifests."""
    world = fresh_world(tmp_path / "state.sqlite")
    plan = asyncio.run(world.run(dry_run=True, extras=("tax-documents",)))
    run = asyncio.run(world.run(extras=("tax-documents",)))
    documents = _documents(world)
    uploads = sum(run.ledger.of(kind).to_create for kind in DOCUMENT_KINDS)
    assert uploads == len(documents) > 0
    assert plan.ledger.uploads.count == run.ledger.uploads.count == uploads
    assert run.ledger.uploads.bytes == sum(int(d["size"]) for d in documents)
    assert all(d.get("links") for d in documents)
    assert world.list_all("/documents", {"unassigned": "true"}) == []
    linked = Counter(link["kind"] for d in documents for link in d["links"])
    expected: Counter[str] = Counter()
    for carried in CARRIED:
        expected[carried.link] += run.ledger.of(carried.kind).to_create
    assert linked == expected
    spool = Path(f"{tmp_path / 'state.sqlite'}.spool")
    assert not list(spool.glob("*.bin"))
    assert all(stat.S_IMODE(m.stat().st_mode) == 0o600 for m in spool.glob("*.json"))
    again = asyncio.run(world.run(extras=("tax-documents",)))
    assert sum(again.ledger.of(kind).requests for kind in DOCUMENT_KINDS) == 0
    assert len(_documents(world)) == len(documents)


@pytest.mark.parametrize("kind", DOCUMENT_KINDS, ids=[k.value for k in DOCUMENT_KINDS])
@pytest.mark.parametrize("point", ["service", "done"])
def test_a_crash_between_upload_and_link_resumes_with_no_duplicate_document(
    kind: Kind, point: str, tmp_path: Path, clean: tuple[Counter[tuple[str, ...]], Counter[tuple[str, ...]]]
) -> None:
    """Killed when v1 has committed an upload (its answer lost, or booked but not linked), the resumed run
    replays the upload under the same key with the same bytes, or finds it booked, and links it: v1 ends with
    the documents a clean run leaves, each once, all linked."""
    world = fresh_world(tmp_path / "state.sqlite")

    async def crash_then_resume() -> Counter[tuple[str, ...]]:
        with pytest.raises(Crash):
            await world.run(observer=CrashAt(kind, point), extras=("tax-documents",))
        resumed = await world.run(extras=("tax-documents",))
        assert not resumed.ledger.quarantine
        return await world.census()

    census = asyncio.run(crash_then_resume())
    assert Counter(key for key in census.elements() if key[0] in DOCUMENT_KINDS) == clean[0]
    assert world.list_all("/documents", {"unassigned": "true"}) == []


def test_an_upload_replayed_past_key_retention_is_found_not_uploaded_again(tmp_path: Path) -> None:
    """An upload whose answer was lost two days ago, on a service that forgot its key, is found among the
    unlinked documents by its name and linked: v1 received exactly one upload per document."""
    world = fresh_world(tmp_path / "state.sqlite")

    async def crash_then_resume() -> None:
        with pytest.raises(Crash):
            await world.run(observer=CrashAt(Kind.RECEIPT, "service"))
        assert _age_in_flight(tmp_path / "state.sqlite", hours=48) > 0
        await world.control("POST", "/settings", {"idempotencyRetentionS": 0})
        assert not (await world.run()).ledger.quarantine

    asyncio.run(crash_then_resume())
    documents = _documents(world)
    uploads = v1_writes_by_route(world.call("GET", "/_emulator/stats").json())["POST /v1/documents"]
    assert uploads == len(documents)
    assert world.list_all("/documents", {"unassigned": "true"}) == []


def test_the_dirty_worlds_oversized_scan_and_lost_receipt_are_quarantined(tmp_path: Path) -> None:
    """On the dirty world the 12 MiB scan is refused file.too_large before any byte is read (the plan says so
    too) and the receipt whose download is a 404 file.not_found, each with its size or fix; every other receipt
    is carried."""
    world = fresh_world(tmp_path / "state.sqlite", dirty=True, projects=())
    plan = asyncio.run(world.run(dry_run=True)).ledger
    run = asyncio.run(world.run()).ledger
    codes = {q.code: q for q in run.quarantine if q.kind == Kind.RECEIPT}
    assert set(codes) == {"file.too_large", "file.not_found"}
    assert str(12 * 1024 * 1024) in codes["file.too_large"].message
    assert "404" in codes["file.not_found"].message
    assert plan.of(Kind.RECEIPT).quarantined == {"file.too_large": 1}
    assert run.of(Kind.RECEIPT).quarantined == {"file.too_large": 1, "file.not_found": 1}
    carried = run.of(Kind.RECEIPT).to_create
    assert carried == plan.of(Kind.RECEIPT).to_create - 1 > 0
    # A bank transaction's file on a transaction is described as such (A102): the receipts are the others.
    on_transactions = [d for d in _documents(world) if any(link["kind"] == "transaction" for link in d["links"])]
    receipts = [d for d in on_transactions if d.get("description") is None]
    assert len(receipts) == carried


def test_tax_documents_need_the_opt_in(tmp_path: Path) -> None:
    """Without --with tax-documents no tax document reaches v1 and the plan counts them as not carried, naming
    the choice; with it each is carried, linked to its contact and described as a legacy tax document."""
    world = fresh_world(tmp_path / "state.sqlite", projects=())  # the workspace's stock is counted on a whole run
    without = asyncio.run(world.run()).ledger
    held = {entry.kind: (entry, stock) for entry, stock in without.held()}
    assert "--with tax-documents" in held["tax_document"][0].why
    assert held["tax_document"][1].count > 0
    assert without.of(Kind.TAX_DOCUMENT).records == 0
    assert not [d for d in _documents(world) if d.get("description") == TAX_DOCUMENT_NOTE]
    opted = asyncio.run(world.run(extras=("tax-documents",))).ledger
    assert "tax_document" not in {entry.kind for entry, _ in opted.held()}
    taxed = [d for d in _documents(world) if d.get("description") == TAX_DOCUMENT_NOTE]
    assert len(taxed) == opted.of(Kind.TAX_DOCUMENT).to_create == held["tax_document"][1].count
    assert all([link["kind"] for link in d["links"]] == ["contact"] for d in taxed)
