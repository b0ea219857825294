"""The seeded comments, budget notes and workspace rates: in every size, drawn without disturbing any record
seeded before them, and with the ``--dirty`` comment and rate where the bridge will meet them."""

from __future__ import annotations

import json

import pytest

from bridge.emulator.core import seed as seed_module
from bridge.emulator.core.records import RATE_UNITS
from bridge.emulator.core.seed import Size, canonical_dump, seeded_fleet, seeded_service
from bridge.emulator.core.seed_remarks import COMMENTS_PER_PROJECT, RATES
from bridge.emulator.core.store import Service

PAIRS = (("source", "target"), ("second", "second_target"))


def _without_remarks(service: Service) -> list[object]:
    """Every workspace as canonical JSON with the comments, notes, rates and plan taken out."""
    dumped: list[object] = []
    for workspace in service.workspaces.values():
        plain = json.loads(canonical_dump(workspace))
        plain.pop("rates")
        plain.pop("plan")
        for project in plain["projects"].values():
            project.pop("comments")
            project.pop("notes")
            for node in project["nodes"].values():
                node["notes"] = None
        dumped.append(plain)
    return dumped


@pytest.mark.parametrize("dirty", [False, True])
def test_drawing_remarks_leaves_every_other_record_as_it_was(monkeypatch: pytest.MonkeyPatch, dirty: bool) -> None:
    """A fleet seeded with its remarks and one seeded without them are the same in everything else (ids,
    stamps, versions), dirty records and a second tenant included."""
    with_remarks = seeded_fleet(PAIRS, 42, "small", dirty=dirty, hostile=dirty, target_library=True)
    monkeypatch.setattr(seed_module, "add_remarks", lambda *args: None)
    monkeypatch.setattr(seed_module, "add_dirty_remarks", lambda *args: {})
    without = seeded_fleet(PAIRS, 42, "small", dirty=dirty, hostile=dirty, target_library=True)
    assert not any(w.rates for w in without.workspaces.values())
    assert _without_remarks(with_remarks) == _without_remarks(without)


@pytest.mark.parametrize("size", ["small", "medium"])
def test_every_size_holds_comments_notes_and_rates(size: Size) -> None:
    """Each project has its comments (on the project, accounts and lines; some HTML with formatting) and a
    root note, some account lines have notes in all three forms, and the workspace has its rates (more than
    a legacy page of 100 from medium up), each with a published unit."""
    source = seeded_service(42, size).workspace("source")
    for project in source.projects.values():
        comments = list(project.comments.values())
        assert len(comments) == COMMENTS_PER_PROJECT[size]
        assert {c.target_kind for c in comments} == {"project", "budgetLine"}
        assert {project.nodes[c.target_id].type for c in comments if c.target_kind == "budgetLine"} == {
            "account",
            "line",
        }
        assert any("<strong>" in c.content or "<em>" in c.content for c in comments)
        assert "root" in project.notes
        noted = [n for n in project.nodes.values() if n.notes]
        assert noted
        assert all(project.notes[n.id].text == n.notes and project.notes[n.id].html.startswith("<") for n in noted)
    assert len(source.rates) == RATES[size]
    assert all(r.unit in RATE_UNITS for r in source.rates.values())
    assert (len(source.rates) > 100) == (size != "small")


def test_the_seed_is_the_same_every_time() -> None:
    """Comments, notes and rates come from the seed: two generations are byte-identical, another seed differs."""
    assert canonical_dump(seeded_service(42, "small").workspace("source")) == canonical_dump(
        seeded_service(42, "small").workspace("source")
    )

    def drawn(seed: int) -> list[object]:
        source = seeded_service(seed).workspace("source")
        comments = [c.content for p in source.projects.values() for c in p.comments.values()]
        return [*comments, *(r.rate for r in source.rates.values())]

    assert drawn(42) == drawn(42)
    assert drawn(42) != drawn(43)


def test_dirty_adds_a_comment_on_a_quarantined_line_and_a_rate_without_unit() -> None:
    """--dirty names, apart from the bridge's catalogue, a comment on the malformed-rate line and a unitless rate."""
    service = seeded_service(42, "small", dirty=True)
    source = service.workspace("source")
    remarks = service.dirty_remarks
    assert set(remarks) == {"comment_on_quarantined_line", "rate_without_unit"}
    assert not set(remarks) & set(service.dirty_catalogue)
    first = next(iter(source.projects.values()))
    comment = first.comments[remarks["comment_on_quarantined_line"].record_id]
    assert comment.target_id == service.dirty_catalogue["rate_malformed"].record_id
    assert source.rates[remarks["rate_without_unit"].record_id].unit is None
    assert seeded_service(42, "small").dirty_remarks == {}
