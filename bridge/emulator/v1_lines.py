"""v1 budget-line writes: create, bulk create, patch, delete, phase data (single and bulk) (A13, A14, A19).

Bulk writes are all-or-nothing: entries are applied in request order and, if one fails, what the earlier
ones did is undone before the error is returned.
"""

from __future__ import annotations

import copy

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator import v1_shapes as shapes
from bridge.emulator.model import Node, PhaseData, Project, Workspace
from bridge.emulator.v1_budget import LINE_FIELDS, MARKUP_DATA_FIELDS, PHASE_DATA_FIELDS, budget_changed
from bridge.emulator.v1_context import V1Context, context_of
from bridge.emulator.v1_errors import BulkTooLargeError, UnprocessableError, ValidationError
from bridge.emulator.v1_projects import renamed
from bridge.emulator.v1_routing import Auth, Json, can, created, domain_errors, idempotent, json_body, ok, project_of

router = APIRouter(prefix="/projects/{project_id}/budget/lines")

MAX_BULK_LINES = 100
MAX_BULK_PHASE_DATA = 500


def _phase_data(node_type: str, data: object, phase_id: str) -> dict[str, object]:
    if not isinstance(data, dict):
        raise ValidationError(f"phaseData.{phase_id} must be an object.")
    fields = MARKUP_DATA_FIELDS if node_type == "markup" else PHASE_DATA_FIELDS
    return renamed(data, fields, f"phaseData.{phase_id}")


def _line_fields(context: V1Context, workspace: Workspace, project: Project, body: object, node_type: str) -> Json:
    """A v1 line body in the store's terms; unknown tags and contacts are 422 (the body names what is absent)."""
    if not isinstance(body, dict):
        raise ValidationError("Each line must be a JSON object.")
    fields = renamed(body, LINE_FIELDS, "A budget line")
    if "description" in fields and (not isinstance(fields["description"], str) or len(fields["description"]) > 255):
        raise ValidationError("description must be a string of at most 255 characters.")
    kind = str(fields.get("type", node_type))
    if "tags" in fields:
        names = shapes.tag_names(workspace, fields["tags"])
        for name in names:  # a v1 tag id reaches the core as its name, held as a project tag (A14)
            if name not in project.tags:
                with domain_errors():
                    context.service.create_tag(project, name=name, color=None)
        fields["tags"] = names
    contact = fields.get("contact_id")
    if contact is not None and contact not in workspace.contacts:
        raise UnprocessableError(f"contactId {contact!r} is not a contact of this workspace.")
    if "include_accounts" in fields:
        raw = fields["include_accounts"]
        fields["include_accounts"] = None if raw is None else [c.strip() for c in str(raw).split(",") if c.strip()]
    if "phase_data" in fields:
        data = fields["phase_data"]
        if not isinstance(data, dict):
            raise ValidationError("phaseData must be an object keyed by phase id.")
        fields["phase_data"] = {pid: _phase_data(kind, value, pid) for pid, value in data.items()}
    return fields


def _create_one(context: V1Context, workspace: Workspace, project: Project, body: object) -> Node:
    fields = _line_fields(context, workspace, project, body, "line")
    if "description" not in fields:  # required, but may be empty (A32)
        raise ValidationError("description is required for a new budget line (an empty string is accepted).")
    parent = fields.pop("parent_id", None)
    if parent is not None and parent not in project.nodes:
        raise UnprocessableError(f"parentId {parent!r} is not a line of this project.")
    with domain_errors(body_refs=True):
        return context.service.create_nodes(project, None if parent is None else str(parent), [fields])[0]


def _view(context: V1Context, workspace: Workspace, project: Project, node: Node) -> Json:
    return shapes.line(context.service, workspace, project, node, {"phaseData"})


@router.post("", status_code=201)
async def create_line(request: Request, grant: Auth, project_id: str) -> Response:
    can(grant, "create", "BudgetLine")
    body = await json_body(request)
    context = context_of(request)
    workspace, project = project_of(request, grant, project_id)

    async def produce() -> Response:
        node = _create_one(context, workspace, project, body)
        budget_changed(context, grant, project, "budgetLine", node.id)
        return created(_view(context, workspace, project, node))

    return await idempotent(request, grant, produce)


@router.post("/bulk", status_code=201)
async def create_lines(request: Request, grant: Auth, project_id: str) -> Response:
    can(grant, "create", "BudgetLine")
    body = await json_body(request)
    lines = body.get("lines")
    if not isinstance(lines, list) or not lines:
        raise ValidationError("lines must be a non-empty list of budget lines.")
    if len(lines) > MAX_BULK_LINES:
        raise BulkTooLargeError(f"A bulk create takes at most {MAX_BULK_LINES} lines; got {len(lines)}. Split it.")
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
        raise UnprocessableError(f"phase {phase_id!r} is not a phase of this project.")
    fields = _phase_data(node.type, data, phase_id)
    with domain_errors(body_refs=True):
        written = context.service.set_phase_data(project, line_id, phase_id, fields)
    return {"lineId": line_id, "phaseId": phase_id, "phaseData": shapes.phase_data(node, written)}


@router.post("/phase-data/bulk")
async def bulk_phase_data(request: Request, grant: Auth, project_id: str) -> Response:
    can(grant, "update", "BudgetLine")
    body = await json_body(request)
    items = body.get("items")
    if not isinstance(items, list) or not items:
        raise ValidationError("items must be a non-empty list of {lineId, phaseId, phaseData}.")
    if len(items) > MAX_BULK_PHASE_DATA:
        raise BulkTooLargeError(f"A phase-data bulk takes at most {MAX_BULK_PHASE_DATA} entries; got {len(items)}.")
    context = context_of(request)
    _, project = project_of(request, grant, project_id)

    async def produce() -> Response:
        saved: dict[str, dict[str, PhaseData]] = {}
        results: list[Json] = []
        try:
            for index, item in enumerate(items):
                if not isinstance(item, dict) or not {"lineId", "phaseId", "phaseData"} <= set(item):
                    raise ValidationError(
                        f"items[{index}] must be {{lineId, phaseId, phaseData}}. Nothing was changed."
                    )
                line_id, phase_id = str(item["lineId"]), str(item["phaseId"])
                node = project.nodes.get(line_id)
                if node is None:
                    raise UnprocessableError(f"items[{index}].lineId {line_id!r} is not a line of this project.")
                saved.setdefault(line_id, copy.deepcopy(node.phase_data))
                results.append(_write_phase_data(context, project, line_id, phase_id, item["phaseData"]))
        except Exception:
            for line_id, data in saved.items():
                project.nodes[line_id].phase_data = data
            context.service.touch(project)
            raise
        budget_changed(context, grant, project)
        return ok({"data": results})

    return await idempotent(request, grant, produce)


@router.patch("/{line_id}")
async def update_line(request: Request, grant: Auth, project_id: str, line_id: str) -> Response:
    can(grant, "update", "BudgetLine")
    body = await json_body(request)
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
async def delete_line(request: Request, grant: Auth, project_id: str, line_id: str) -> Response:
    can(grant, "delete", "BudgetLine")
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    with domain_errors():
        context.service.delete_node(project, line_id)
    budget_changed(context, grant, project)
    return Response(status_code=204)


@router.put("/{line_id}/phase-data/{phase_id}")
async def put_phase_data(request: Request, grant: Auth, project_id: str, line_id: str, phase_id: str) -> Response:
    can(grant, "update", "BudgetLine")
    body = await json_body(request)
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    result = _write_phase_data(context, project, line_id, phase_id, body)
    budget_changed(context, grant, project, "budgetLine", line_id)
    return ok(result)
