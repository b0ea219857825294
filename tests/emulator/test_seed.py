"""Seeded workspaces: deterministic, realistic, and holding every case a migration must handle."""

from __future__ import annotations

import hashlib
import math
from decimal import Decimal

import pytest

from bridge.emulator.core import formula
from bridge.emulator.core.model import Project
from bridge.emulator.core.money import minor_digits
from bridge.emulator.core.seed import SIZES, Size, canonical_dump, seeded_service
from bridge.emulator.core.store import Service


def _digest(service: Service) -> str:
    return hashlib.sha256(canonical_dump(service.workspace("source"))).hexdigest()


def _projects(service: Service) -> list[Project]:
    return list(service.workspace("source").projects.values())


def test_the_same_seed_and_size_give_a_byte_identical_workspace() -> None:
    """Two generations from (42, small) hash the same; another seed hashes differently."""
    assert _digest(seeded_service(42, "small")) == _digest(seeded_service(42, "small"))
    assert _digest(seeded_service(43, "small")) != _digest(seeded_service(42, "small"))


@pytest.mark.parametrize("size", ["small", "medium"])
def test_sizes_hold_about_the_documented_lines_and_actuals(size: Size) -> None:
    """small ~300 lines / ~1,000 actuals; medium ~5,000 / ~20,000 (within 25%)."""
    service = seeded_service(42, size)
    lines = sum(1 for p in _projects(service) for n in p.nodes.values() if n.type == "line")
    actuals = sum(len(p.actuals) for p in _projects(service))
    wanted_lines, wanted_actuals = SIZES[size]
    assert abs(lines - wanted_lines) <= wanted_lines * 0.25
    assert abs(actuals - wanted_actuals) <= wanted_actuals * 0.25


def test_the_source_holds_every_case_a_migration_must_handle() -> None:
    """Phases (hidden, JPY, rollup), fringes on labour lines, globals in formulas, repeated codes, splits..."""
    service = seeded_service(42, "small")
    workspace = service.workspace("source")
    project = _projects(service)[0]
    phases = list(project.phases.values())
    assert len(phases) >= 4
    assert any(p.is_hidden for p in phases)
    assert {p.type for p in phases} >= {"estimate", "actual", "committed", "rollup"}
    assert any(p.name == "Working" and p.type == "estimate" for p in phases)
    codes = {project.currencies[p.currency_id].code for p in phases if p.currency_id}
    assert len(codes) >= 2
    assert any(minor_digits(c) == 0 for c in codes)
    lines = [n for n in project.nodes.values() if n.type == "line"]
    assert any(d.fringe_ids and d.quantity for n in lines for d in n.phase_data.values())
    used = {
        s
        for n in lines
        for d in n.phase_data.values()
        if formula.is_formula(d.quantity)
        for s in formula.symbols(str(d.quantity))
    }
    assert {"SHOOT_DAYS", "PREP_WEEKS"} <= used
    assert any(g.formula and formula.symbols(g.formula) for g in project.globals.values())
    line_codes = [n.account_code for n in lines]
    assert len(set(line_codes)) < len(line_codes)
    rates = [d.rate for n in lines for d in n.phase_data.values() if isinstance(d.rate, Decimal)]
    assert any((r * 100) != (r * 100).to_integral_value() for r in rates)
    assert any(a.subactuals for a in project.actuals.values())
    assert any(n.type == "markup" for n in project.nodes.values())
    assert any(n.type == "subtotal" for n in project.nodes.values())
    assert any(s.archived for s in workspace.spaces.values())
    assert any(p.status == "archived" for p in workspace.projects.values())
    assert len(workspace.contacts) >= 5
    colours = {p.tags["VFX"].color for p in workspace.projects.values()}
    assert len(colours) > 1


def test_split_actuals_sum_to_their_amount_in_clean_data() -> None:
    """Without --dirty every split's parts add up to the actual's amount."""
    for project in _projects(seeded_service(42, "small")):
        for actual in project.actuals.values():
            if actual.subactuals:
                assert sum(Decimal(str(p.amount)) for p in actual.subactuals) == actual.amount


def test_the_dirty_catalogue_names_records_that_exist_with_the_bad_value() -> None:
    """Each catalogued record is in the source workspace and its field holds what its name says."""
    service = seeded_service(42, "small", dirty=True, hostile=True)
    catalogue = service.dirty_catalogue
    projects = _projects(service)
    assert {"amount_nan", "amount_thousands_separator", "parent_cycle", "missing_parent", "unknown_currency"} <= set(
        catalogue
    )
    first = projects[0]
    nan = first.actuals[catalogue["amount_nan"].record_id].amount
    assert isinstance(nan, float)
    assert math.isnan(nan)
    assert first.actuals[catalogue["amount_thousands_separator"].record_id].amount == "1,000.00"
    cycle = first.nodes[catalogue["parent_cycle"].record_id]
    assert first.nodes[cycle.parent_id or ""].parent_id == cycle.id
    assert first.nodes[catalogue["missing_parent"].record_id].parent_id not in first.nodes
    duplicate = catalogue["duplicate_actual_id"].record_id
    assert duplicate in first.actuals
    assert duplicate in projects[1].actuals
    assert "vfx" in first.tags
    assert "VFX" in first.tags
    # Totals still compute: unreadable values count as empty (A27).
    assert service.totals(service.workspace("source"), first).phases


def test_the_target_starts_empty_or_with_library_items_named_like_the_source() -> None:
    """target is empty by default; with target_library it holds JPY, FICA (equal) and HEALTH (unequal)."""
    assert not seeded_service(42, "small").workspace("target").projects
    library = seeded_service(42, "small", target_library=True).workspace("target").library
    source = _projects(seeded_service(42, "small"))[0]
    by_name = {f.name: f for f in library.fringes.values()}
    source_fringes = {f.code: f for f in source.fringes.values()}
    assert by_name["FICA"].rate == source_fringes["FICA"].rate
    assert by_name["HEALTH"].rate != source_fringes["HEALTH"].rate
    assert {c.code for c in library.currencies.values()} == {"JPY"}
    assert {t.name for t in library.tags.values()} <= set(source.tags)
