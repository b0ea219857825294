"""Store rules: what the service core accepts, refuses (with a message naming the field) and keeps."""

from __future__ import annotations

from decimal import Decimal

import pytest

from bridge.emulator.core.errors import Conflict, FormulaError, InvalidInput, NotFound, SpaceNotEmpty
from bridge.emulator.core.model import Project, Workspace
from bridge.emulator.core.store import Service
from bridge.emulator.legacy.errors import AccessRestricted, Unauthenticated
from bridge.emulator.legacy.routing import authenticated_workspace


@pytest.fixture
def service() -> Service:
    return Service(seed=1)


@pytest.fixture
def workspace(service: Service) -> Workspace:
    return service.create_workspace("w")


@pytest.fixture
def project(service: Service, workspace: Workspace) -> Project:
    return service.create_project(workspace, name="Night Harbor")


def test_a_new_project_has_a_unique_alias_and_one_estimate_phase(service: Service, workspace: Workspace) -> None:
    """Aliases come from the name and stay unique; the default phase is a visible estimate 'Estimate' (A06)."""
    first = service.create_project(workspace, name="Night Harbor")
    second = service.create_project(workspace, name="Night Harbor")
    assert (first.alias, second.alias) == ("night-harbor", "night-harbor-2")
    assert [(p.name, p.type, p.is_hidden) for p in first.phases.values()] == [("Estimate", "estimate", False)]
    assert service.get_project(workspace, "night-harbor-2") is second


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 256}, "name"),
        ({"name": "Bad\x00name"}, "name"),
        ({"name": "ok", "status": "closed"}, "status"),
        ({"name": "ok", "labels": "not-a-list"}, "labels"),
    ],
)
def test_invalid_project_fields_are_refused_naming_the_field(
    service: Service, workspace: Workspace, fields: dict[str, object], field: str
) -> None:
    """Each refusal is an InvalidInput whose field is the one to fix."""
    with pytest.raises(InvalidInput) as caught:
        service.create_project(workspace, **fields)  # type: ignore[arg-type]  # off-type on purpose: the refusal is tested
    assert caught.value.field == field


def test_a_space_holding_active_projects_cannot_be_deleted(service: Service, workspace: Workspace) -> None:
    """Soft delete is refused while an active project is in the space, allowed once it is archived."""
    space = service.create_space(workspace, name="Features")
    project = service.create_project(workspace, name="P", space_id=space.id)
    with pytest.raises(SpaceNotEmpty):
        service.delete_space(workspace, space.alias)
    service.update_project(workspace, project.id, {"status": "archived"})
    service.delete_space(workspace, space.id)
    with pytest.raises(NotFound):
        service.get_space(workspace, space.id)
    assert service.list_spaces(workspace) == []


def test_tags_are_unique_immutable_and_validated(service: Service, project: Project) -> None:
    """A duplicate name conflicts, the name never changes, colours must be #RRGGBB, descriptions <= 500."""
    service.create_tag(project, name="VFX", color="#7C3AED")
    with pytest.raises(Conflict):
        service.create_tag(project, name="VFX")
    with pytest.raises(InvalidInput, match="immutable"):
        service.update_tag(project, "VFX", {"name": "Effects"})
    with pytest.raises(InvalidInput, match="colour"):
        service.create_tag(project, name="Night", color="blue")
    with pytest.raises(InvalidInput):
        service.create_tag(project, name="Long", description="x" * 501)
    assert service.update_tag(project, "VFX", {"color": "#000000"}).color == "#000000"


def test_a_bad_line_in_a_batch_of_nodes_writes_nothing(service: Service, project: Project) -> None:
    """create_nodes checks every spec before writing, so one bad spec leaves the budget unchanged."""
    account = service.create_nodes(project, None, [{"type": "account", "account_code": "1000"}])[0]
    phase = next(iter(project.phases))
    with pytest.raises(InvalidInput, match="NOPE"):
        service.create_nodes(
            project,
            account.id,
            [{"phase_data": {phase: {"rate": 5}}}, {"phase_data": {phase: {"quantity": "=NOPE * 2"}}}],
        )
    assert account.children == []


def test_lines_go_only_under_accounts(service: Service, project: Project) -> None:
    """Adding a node under a line is refused."""
    account = service.create_nodes(project, None, [{"type": "account"}])[0]
    line = service.create_nodes(project, account.id, [{"description": "x"}])[0]
    with pytest.raises(InvalidInput, match="under an account"):
        service.create_nodes(project, line.id, [{"description": "y"}])


def test_deleting_a_line_unassigns_its_actuals(service: Service, workspace: Workspace, project: Project) -> None:
    """Removing a subtree leaves the actuals coded to it unassigned instead of pointing at nothing."""
    account = service.create_nodes(project, None, [{"type": "account"}])[0]
    line = service.create_nodes(project, account.id, [{"description": "x"}])[0]
    actual = service.create_actual(workspace, project, {"description": "a", "amount": 5, "line_id": line.id})
    service.delete_node(project, account.id)
    assert actual.line_id is None
    assert project.nodes == {}


def test_a_global_cycle_is_refused_and_the_old_formula_kept(service: Service, project: Project) -> None:
    """Changing a global into a cycle fails with FormulaError and leaves the global as it was."""
    service.create_global(project, {"symbol": "A", "formula": "2"})
    service.create_global(project, {"symbol": "B", "formula": "A * 3"})
    with pytest.raises(FormulaError, match="cycle"):
        service.update_global(project, "A", {"formula": "B + 1"})
    assert service.get_global(project, "A").formula == "2"


def test_a_phase_used_by_a_rollup_cannot_be_deleted(service: Service, project: Project) -> None:
    """Deleting a rollup input is refused; deleting the rollup first works."""
    estimate = next(iter(project.phases.values()))
    actual = service.create_phase(project, name="Actual", type="actual")
    variance = service.create_phase(
        project, name="Variance", type="rollup", rollup_formula=f"@{estimate.id} - @{actual.id}"
    )
    with pytest.raises(Conflict, match="Variance"):
        service.delete_phase(project, actual.id)
    service.delete_phase(project, variance.id)
    service.delete_phase(project, "Actual")
    assert [p.name for p in service.list_phases(project)] == ["Estimate"]


def test_actuals_keep_decimal_amounts_and_refuse_bad_ones(
    service: Service, workspace: Workspace, project: Project
) -> None:
    """Amounts are Decimal (0.1 stays 0.1); NaN, '1,000.00' and > 2**53 are refused; chosen ids are unique."""
    actual = service.create_actual(workspace, project, {"description": "a", "amount": 0.1}, actual_id="A-1")
    assert actual.amount == Decimal("0.1")
    for bad in (float("nan"), "1,000.00", 2**53 + 1):
        with pytest.raises(InvalidInput, match="amount"):
            service.create_actual(workspace, project, {"description": "b", "amount": bad})
    with pytest.raises(Conflict):
        service.create_actual(workspace, project, {"description": "c", "amount": 1}, actual_id="A-1")


def test_a_batch_counts_inserts_errors_and_replacements(
    service: Service, workspace: Workspace, project: Project
) -> None:
    """replace deletes the existing actuals first; a bad item counts as an error without stopping the batch."""
    service.create_actual(workspace, project, {"description": "old", "amount": 1})
    summary = service.batch_actuals(
        workspace, project, [{"description": "a", "amount": 2}, {"amount": 3}, {"description": "c"}], replace=True
    )
    assert (summary.inserted, summary.deleted, summary.errors, summary.processed, summary.received) == (2, 1, 1, 3, 3)
    assert sorted(a.description for a in project.actuals.values()) == ["a", "c"]


def test_keys_open_one_workspace_unless_restricted(service: Service, workspace: Workspace) -> None:
    """A known key opens its workspace; unknown or missing keys are Unauthenticated; restricted is refused."""
    service.add_api_key("w", "secret-key")
    assert authenticated_workspace(service, "secret-key") is workspace
    with pytest.raises(Unauthenticated):
        authenticated_workspace(service, "other")
    with pytest.raises(Unauthenticated):
        authenticated_workspace(service, None)
    service.restrict_api_key("secret-key")
    with pytest.raises(AccessRestricted) as caught:
        authenticated_workspace(service, "secret-key")
    assert "secret-key" not in str(caught.value)


def test_every_write_bumps_the_project_version(service: Service, project: Project) -> None:
    """The version (totals cache key, ETag source) grows on each change."""
    versions = [project.version]
    service.create_tag(project, name="T")
    versions.append(project.version)
    service.create_fringe(project, {"code": "F", "units": "total", "rate": 5})
    versions.append(project.version)
    assert versions == sorted(set(versions))
