"""The files of bank transactions as a user checks them on v1 (A102): those of a transaction an actual came from
are on the v1 transaction made from that actual, once each (a file the actual holds too is its receipt only);
those of transactions no actual came from are counted as not carried, with their bytes and why."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from bridge.emulator.core.files import Shelf, StoredFile
from mappings.documents import BANK_FILE_NOTE
from mappings.kinds import Kind
from tests.support.world import fresh_world


def test_bank_transaction_files_go_with_their_actuals_once_and_the_rest_are_counted(tmp_path: Path) -> None:
    world = fresh_world(tmp_path / "state.sqlite", projects=())  # the feed's stock is counted on a whole run
    source = world.service.workspace("source")
    shelf = source.files
    feed = source.bank.transactions.values()
    receipts = Counter(f.id for p in source.projects.values() for a in p.actuals.values() for f in a_files(shelf, a.id))
    # Per file on a transaction an actual came from: one document per actual holding it as a receipt, plus one
    # per such transaction whose actual does not hold it (a copy the actual holds adds none).
    expected: Counter[str] = Counter()
    shared = 0
    for txn in feed:
        if txn.actual_id is None:
            continue
        own = {f.id for f in a_files(shelf, txn.actual_id)}
        for stored in shelf.files_of("transaction", txn.id):
            assert stored.blob is not None
            shared += stored.id in own
            expected[stored.blob.sha256()] = receipts[stored.id] + sum(
                1
                for t in feed
                if t.actual_id
                and stored in shelf.files_of("transaction", t.id)
                and stored.id not in {f.id for f in a_files(shelf, t.actual_id)}
            )
    assert shared > 0
    assert len(expected) > shared  # the seed holds both cases
    run = asyncio.run(world.run()).ledger
    assert not [q for q in run.quarantine if q.kind == Kind.BANK_FILE]
    documents = world.list_all("/documents")
    on_v1 = Counter(d["contentHash"] for d in documents if d["contentHash"] in expected)
    assert on_v1 == expected
    banked = [d for d in documents if d.get("description") == BANK_FILE_NOTE]
    assert len(banked) == run.of(Kind.BANK_FILE).to_create > 0
    assert all([link["kind"] for link in d["links"]] == ["transaction"] for d in banked)
    held = {entry.kind: (entry, stock) for entry, stock in run.held()}
    entry, stock = held["bank_transaction_file"]
    assert "no actual was made from it" in entry.why
    rest = [f for t in feed if t.actual_id is None for f in shelf.files_of("transaction", t.id)]
    assert (stock.count, stock.bytes) == (len(rest), sum(f.size for f in rest)) != (0, 0)


def a_files(shelf: Shelf, actual_id: str) -> list[StoredFile]:
    return shelf.files_of("actual", actual_id)
