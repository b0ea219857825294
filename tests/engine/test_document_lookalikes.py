"""Two receipts of one name and different bytes, both in flight when the run stopped, resumed past key
retention: each is found on v1 by its name, size and content hash (A103), not the first of its name."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bridge.engine.stale import same_bytes
from bridge.engine.writes import Write
from mappings.kinds import Kind
from tests.engine.test_every_kind import _age_in_flight
from tests.support.census import v1_writes_by_route
from tests.support.world import World, fresh_world

SAME_NAME = "scan.pdf"


class Crash(BaseException):
    """The process dying (nothing after it runs)."""


@dataclass(slots=True)
class CrashAtSecondUpload:
    """Stops the run when a second receipt upload has been committed by v1 (its answer lost)."""

    committed: list[str] = field(default_factory=list)

    def reached(self, write: Write, point: str) -> None:
        if write.kind is Kind.RECEIPT and write.operation == "documents_upload" and point == "service":
            self.committed.append(write.members[0])
            if len(self.committed) == 2:
                raise Crash


def test_two_same_named_receipts_past_key_retention_are_told_apart_by_size_and_hash(tmp_path: Path) -> None:
    world: World = fresh_world(tmp_path / "state.sqlite")
    shelf = world.service.workspace("source").files
    project = world.service.workspace("source").projects[world.projects[0]]
    receipts = [f for a in project.actuals.values() for f in shelf.files_of("actual", a.id)]
    for stored in receipts:
        stored.name = SAME_NAME
    legacy = Counter(stored.blob.sha256() for stored in receipts if stored.blob is not None)
    assert len(legacy) >= 2  # the same name, different bytes

    async def crash_then_resume() -> None:
        with pytest.raises(Crash):
            await world.run(observer=CrashAtSecondUpload())
        assert _age_in_flight(tmp_path / "state.sqlite", hours=48) > 0
        await world.control("POST", "/settings", {"idempotencyRetentionS": 0})
        assert not (await world.run()).ledger.quarantine

    asyncio.run(crash_then_resume())
    documents = [d for d in world.list_all("/documents") if d["name"] == SAME_NAME]
    # Each receipt once on v1 with its own bytes, linked to a transaction; none uploaded twice, none unlinked.
    assert Counter(d["contentHash"] for d in documents) == legacy
    assert all([link["kind"] for link in d["links"]] == ["transaction"] for d in documents)
    assert len({d["links"][0]["id"] for d in documents}) == len(documents)
    uploads = v1_writes_by_route(world.call("GET", "/_emulator/stats").json())["POST /v1/documents"]
    assert uploads == len(world.list_all("/documents"))
    assert world.list_all("/documents", {"unassigned": "true"}) == []


DIGEST = "ab" * 32


@pytest.mark.parametrize(
    ("listed", "same"),
    [
        (DIGEST, True),
        ("sha256:" + DIGEST.upper(), True),
        ("cd" * 32, False),
        ("d41d8cd98f00b204e9800998ecf8427e", True),  # an MD5-shaped hash says nothing: name and size decide
        (None, True),
    ],
)
def test_a_listed_content_hash_decides_only_when_it_is_shaped_as_a_sha256(listed: str | None, same: bool) -> None:
    assert same_bytes({"contentHash": DIGEST}, {"contentHash": listed}, "contentHash") is same
