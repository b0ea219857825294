"""`bridge verify` proves the documents: the bytes v1 serves hash as the legacy file did, sizes, types and links
agree; a document whose bytes changed on v1, or that lost its link, is named in every report and the
migration is not reconciled."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from bridge.emulator.core.files import Blob
from bridge.engine.run import Transports
from bridge.verify.html import render_html
from bridge.verify.reconcile import VerifyOptions, verify
from bridge.verify.report import render_markdown
from bridge.verify.schema import Reconciliation
from mappings.documents import CARRIED
from tests.support.world import World, fast_controls, fresh_world

DOCUMENT_KINDS = tuple(carried.kind for carried in CARRIED)


@dataclass(frozen=True, slots=True)
class Verified:
    world: World
    clean: Reconciliation


async def _verify(world: World) -> Reconciliation:
    transports = Transports(world.transport, world.transport)
    return await verify(world.settings(), VerifyOptions(), transports, fast_controls())


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Verified:
    """The whole small workspace migrated, then verified as it stands."""
    world = fresh_world(tmp_path_factory.mktemp("verify-documents") / "state.sqlite", projects=())

    async def both() -> Reconciliation:
        await world.run(extras=("tax-documents",))
        return await _verify(world)

    return Verified(world, asyncio.run(both()))


def test_every_document_is_proved_by_its_bytes_size_type_and_link(migrated: Verified) -> None:
    """Each document kind is in the closed ledger, every document found on v1, and none differs."""
    report = migrated.clean
    ledger = {entry.kind: entry for entry in report.ledger}
    for kind in DOCUMENT_KINDS:
        entry = ledger[kind.value]
        assert entry.source == entry.migrated == entry.ok > 0
        assert (entry.closed, entry.missing, entry.unexpected, entry.duplicated) == (True, [], [], [])
    assert report.documents == []


def test_a_document_with_other_bytes_and_one_unlinked_are_named_first(migrated: Verified) -> None:
    """A receipt whose bytes v1 now serves differently (same size) and a contact file whose link was removed are
    each reported, in the JSON, Markdown and HTML reports, and the migration is not reconciled."""
    world = migrated.world
    target = world.service.workspace("target")
    documents = sorted(target.files.live_documents(), key=lambda d: d.id)
    receipt = next(d for d in documents if "transaction" in d.links)
    contact_file = next(d for d in documents if "contact" in d.links and d.description is None)
    receipt.blob = Blob.of(b"\x00" * receipt.size)
    answer = world.call("DELETE", f"/documents/{contact_file.id}/links/contact")
    assert answer.status_code == 200
    report = asyncio.run(_verify(world))
    found = {(d.v1_id, d.problem) for d in report.documents}
    assert found == {(receipt.id, "bytes differ (SHA-256)"), (contact_file.id, "not linked")}
    assert not report.reconciled
    markdown = render_markdown(report)
    section = markdown.index("## Documents that do not prove their legacy file (2)")
    # With the differences, before any project's detail (the ledger and the money lead: the report's order).
    assert markdown.index("## Differences, largest first") < section < markdown.index(f"## {report.projects[0].name}")
    assert receipt.id in markdown[section:]
    assert 'id="documents"' in render_html(report)
