"""v1 budget-line writes: create, bulk create, patch, delete, phase data (single and bulk) (A13, A14, A19).

Bodies are checked against their published shapes first (``v1.budget_requests``): a line has no tags on this
surface and markup phase data no ``excludeFringes``. Bulk writes are all-or-nothing: entries are applied in
request order and, if one fails, what the earlier ones did is undone before the error is returned. The
phase-data writes do not list 422, so a line or phase they name that is not in the project is a 404 (A52).
"""

from __future__ import annotations

import copy

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core.model import Node, PhaseData, Project, Workspace
from bridge.emulator.v1 import budget_requests, shapes
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.budget_routes import (
    LINE_FIELDS,
    MARKUP_DATA_FIELDS,
    PHASE_DATA_FIELDS,
    budget_changed,
    budget_deleted,
)
from bridge.emulator.v1.context import V1Context, context_of
from bridge.emulator.v1.errors import NotFoundError, UnprocessableError, ValidationError
from bridge.emulator.v1.routing import (
    Json,
    V1Router,
    can,
    created,
    domain_errors,
    idempotent,
    ok,
    parsed_body,
    project_of,
    renamed,
)

router = V1Router(prefix="/projects/{project_id}/budget/lines")


def _phase_data(node_type: str, data: object) -> dict[str, object]:
    """Phase data already checked against its published shape, in the store's terms for this line type."""
    assert isinstance(data, dict)  # the published shape is an object
    return renamed(data, MARKUP_DATA_FIELDS if node_type == "markup" else PHASE_DATA_FIELDS)


def _line_fields(context: V1Context, workspace: Workspace, project: Project, body: Json, node_type: str) -> Json:
    """A checked v1 line body in the store's terms; an unknown contact is 422 (the body names what is absent)."""
    fields = renamed(body, LINE_FIELDS)
    kind = str(fields.get("type", node_type))
    contact = fields.get("contact_id")
    if contact is not None and contact not in workspace.contacts:
        raise UnprocessableError(f"contactId {contact!r} is not a contact of this workspace.")
    if "include_accounts" in fields:
        raw = fields["include_accounts"]
        fields["include_accounts"] = None if raw is None else [c.strip() for c in str(raw).split(",") if c.strip()]
    if "phase_data" in fields:
        data = fields["phase_data"]
        assert isinstance(data, dict)  # the published shape is an object keyed by phase id
        fields["phase_data"] = {pid: _phase_data(kind, value) for pid, value in data.items()}
    return fields


def _create_one(context: V1Context, workspace: Workspace, project: Project, body: Json) -> Node:
    fields = _line_fields(context, workspace, project, body, "line")
    parent = fields.pop("parent_id", None)
    if parent is not None and parent not in project.nodes:
        raise UnprocessableError(f"parentId {parent!r} is not a line of this project.")
    with domain_errors(body_refs=True):
        return context.service.create_nodes(project, None if parent is None else str(parent), [fields])[0]


def _view(context: V1Context, workspace: Workspace, project: Project, node: Node) -> Json:
    return shapes.line(context.service, workspace, project, node, {"phaseData"})


@router.post("", status_code=201)
async def create_line(request: Request, grant: Grant, project_id: str) -> Response:
    can(grant, "create", "BudgetLine")
    body = await parsed_body(request, budget_requests.LineCreate)
    context = context_of(request)
    workspace, project = project_of(request, grant, project_id)

    async def produce() -> Response:
        node = _create_one(context, workspace, project, body)
        budget_changed(context, grant, project, "budgetLine", node.id)
        return created(_view(context, workspace, project, node))

    return await idempotent(request, grant, produce)


@router.post("/bulk", status_code=201)
async def create_lines(request: Request, grant: Grant, project_id: str) -> Response:
    can(grant, "create", "BudgetLine")
    lines = (await parsed_body(request, budget_requests.LineBulkCreate))["lines"]
    assert isinstance(lines, list)  # the published shape holds 1 to 100 lines
    context = context_of(request)
    workspace, project = project_of(request, grant, project_id)

    async def produce() -> Response:
        made: list[Node] = []
        try:
            for index, line in enumerate(lines):
                try:
                    made.append(_create_one(context, workspace, project, line))
                except (ValidationError, UnprocessableError) as exc:
                    exc.message = f"lines[{index}]: {exc.message} Nothing was created."
                    raise
        except Exception:
            for node in reversed(made):
                context.service.delete_node(project, node.id)
            raise
        budget_changed(context, grant, project)
        return created({"data": [_view(context, workspace, project, n) for n in made]})

    return await idempotent(request, grant, produce)


def _write_phase_data(context: V1Context, project: Project, line_id: str, phase_id: str, data: object) -> Json:
    with domain_errors():
        node = context.service.get_node(project, line_id)
    if phase_id not in project.phases:
        raise NotFoundError(f"Phase {phase_id!r} was not found in this project.")
    fields = _phase_data(node.type, data)
    with domain_errors():
        written = context.service.set_phase_data(project, line_id, phase_id, fields)
    return {"lineId": line_id, "phaseId": phase_id, "phaseData": shapes.phase_data(node, written)}


@router.post("/phase-data/bulk")
async def bulk_phase_data(request: Request, grant: Grant, project_id: str) -> Response:
    can(grant, "update", "BudgetLine")
    items = (await parsed_body(request, budget_requests.PhaseDataBulk))["items"]
    assert isinstance(items, list)  # the published shape holds 1 to 500 entries
    context = context_of(request)
    _, project = project_of(request, grant, project_id)

    async def produce() -> Response:
        saved: dict[str, dict[str, PhaseData]] = {}
        results: list[Json] = []
        try:
            for index, item in enumerate(items):
                assert isinstance(item, dict)  # the published entry is {lineId, phaseId, phaseData}
                line_id, phase_id = str(item["lineId"]), str(item["phaseId"])
                node = project.nodes.get(line_id)
                if node is None:
                    raise NotFoundError(f"items[{index}].lineId {line_id!r} is not a line of this project.")
                saved.setdefault(line_id, copy.deepcopy(node.phase_data))
                results.append(_write_phase_data(context, project, line_id, phase_id, item["phaseData"]))
        except Exception:
            context.service.restore_phase_data(project, saved)
            raise
        budget_changed(context, grant, project)
        return ok({"data": results})

    return await idempotent(request, grant, produce)


@router.patch("/{line_id}")
async def update_line(request: Request, grant: Grant, project_id: str, line_id: str) -> Response:
    can(grant, "update", "BudgetLine")
    body = await parsed_body(request, budget_requests.LineUpdate)
    context = context_of(request)
    workspace, project = project_of(request, grant, project_id)
    with domain_errors():
        node = context.service.get_node(project, line_id)
    fields = _line_fields(context, workspace, project, body, node.type)
    if "type" in fields and fields.pop("type") != node.type:
        raise ValidationError("type cannot change on an existing line; delete it and create a new one.")
    move = "parent_id" in fields
    parent = fields.pop("parent_id", None)
    with domain_errors(body_refs=True):
        if move:
            context.service.move_node(project, line_id, None if parent is None else str(parent))
        node = context.service.update_node(project, line_id, fields)
    budget_changed(context, grant, project, "budgetLine", node.id)
    return ok(_view(context, workspace, project, node))


@router.delete("/{line_id}", status_code=204)
async def delete_line(request: Request, grant: Grant, project_id: str, line_id: str) -> Response:
    return budget_deleted(request, grant, project_id, "BudgetLine", lambda store, p: store.delete_node(p, line_id))


@router.put("/{line_id}/phase-data/{phase_id}")
async def put_phase_data(request: Request, grant: Grant, project_id: str, line_id: str, phase_id: str) -> Response:
    can(grant, "update", "BudgetLine")
    body = await parsed_body(request, budget_requests.PhaseDataWrite)
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    result = _write_phase_data(context, project, line_id, phase_id, body)
    budget_changed(context, grant, project, "budgetLine", line_id)
    return ok(result)
