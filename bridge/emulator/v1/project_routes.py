"""v1 projects (A06), spaces (A05) and contacts (A07)."""

from __future__ import annotations

from decimal import Decimal

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core.model import CONTACT_DETAILS, Contact, Project, Workspace
from bridge.emulator.core.money import minor_digits
from bridge.emulator.v1 import requests, shapes
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import context_of
from bridge.emulator.v1.document_shapes import contact_ref
from bridge.emulator.v1.errors import UnprocessableError
from bridge.emulator.v1.expand import CONTACT as CONTACT_EXPAND
from bridge.emulator.v1.expand import PROJECT as PROJECT_EXPAND
from bridge.emulator.v1.expand import contact_transactions, expand_keys
from bridge.emulator.v1.routing import (
    Json,
    V1Router,
    can,
    created,
    domain_errors,
    idempotent,
    ok,
    page_response,
    parsed_body,
    renamed,
    workspace_of,
)

router = V1Router()

PROJECT_CREATE = {
    "name": "name",
    "slug": "alias",
    "emoji": "emoji",
    "image": "image",
    "summary": "summary",
    "spaceId": "space_id",
    "projectType": "project_type",
    "tagIds": "tag_ids",
}
PROJECT_UPDATE = {**PROJECT_CREATE, "status": "status"}
SPACE_CREATE = {"name": "name", "slug": "alias", "image": "image", "parentId": "parent_id"}
SPACE_UPDATE = {**SPACE_CREATE, "archived": "archived"}
CONTACT_FIELDS = {
    "name": "name",
    "company": "company",
    "title": "job_title",
    "email": "email",
    "type": "type",
    "rate": "rate",
    **{name: name for name in CONTACT_DETAILS},
    "track1099": "track1099",
}


def major_units(value: object, currency: str, field: str) -> Decimal | None:
    """A Money body field (shape already checked) as a major-unit Decimal in the workspace currency; another
    currency is a 422: the body is well formed, the workspace cannot hold it."""
    if not isinstance(value, dict):
        return None
    if value["currency"] != currency:
        raise UnprocessableError(f"{field}.currency must be the workspace currency {currency}.")
    return Decimal(value["amount"]).scaleb(-minor_digits(currency))


# -- projects -------------------------------------------------------------------------------------------------


@router.get("/projects")
async def list_projects(request: Request, grant: Grant) -> Response:
    context = context_of(request)
    workspace = workspace_of(request, grant)
    items = context.service.list_projects(workspace)
    expand = expand_keys(request, PROJECT_EXPAND)
    filters = {"expand": request.query_params.get("expand")}
    return page_response(request, items, lambda p: project_view(p, workspace, expand), filters=filters)


def project_view(project: Project, workspace: Workspace, expand: set[str]) -> Json:
    """A project; ``expand=assumptions`` adds its brief, null as the emulator keeps no pinned brief."""
    return shapes.project(project, workspace) | ({"assumptions": None} if "assumptions" in expand else {})


@router.post("/projects", status_code=201)
async def create_project(request: Request, grant: Grant) -> Response:
    can(grant, "create", "Project")
    fields = renamed(await parsed_body(request, requests.ProjectCreate), PROJECT_CREATE)
    context = context_of(request)

    async def produce() -> Response:
        workspace = workspace_of(request, grant)
        with domain_errors(body_refs=True):
            project = context.service.create_project(
                workspace,
                name=fields.get("name"),
                alias=fields.get("alias"),
                space_id=fields.get("space_id"),
                emoji=fields.get("emoji"),
                image=fields.get("image"),
                summary=fields.get("summary"),
                project_type=fields.get("project_type"),
                tag_ids=fields.get("tag_ids"),
            )
        estimate = next(p for p in project.phases.values() if p.type == "estimate")
        return created(
            {
                **shapes.project(project, workspace),
                "defaultBudget": {"budgetId": project.budget_id, "estimatePhaseId": estimate.id},
            }
        )

    return await idempotent(request, grant, produce)


@router.get("/projects/{project_id}")
async def get_project(request: Request, grant: Grant, project_id: str) -> Response:
    context = context_of(request)
    workspace = workspace_of(request, grant)
    with domain_errors():
        project = context.service.get_project(workspace, project_id)
    return ok(project_view(project, workspace, expand_keys(request, PROJECT_EXPAND)))


@router.patch("/projects/{project_id}")
async def update_project(request: Request, grant: Grant, project_id: str) -> Response:
    can(grant, "update", "Project")
    changes = renamed(await parsed_body(request, requests.ProjectUpdate), PROJECT_UPDATE)
    context = context_of(request)
    workspace = workspace_of(request, grant)
    with domain_errors():
        context.service.get_project(workspace, project_id)
    with domain_errors(body_refs=True):
        project = context.service.update_project(workspace, project_id, changes)
    return ok(shapes.project(project, workspace))


# -- spaces ---------------------------------------------------------------------------------------------------


@router.get("/spaces")
async def list_spaces(request: Request, grant: Grant) -> Response:
    context = context_of(request)
    items = context.service.list_spaces(workspace_of(request, grant))
    return page_response(request, items, shapes.space, filters={})


@router.post("/spaces", status_code=201)
async def create_space(request: Request, grant: Grant) -> Response:
    can(grant, "create", "Space")
    fields = renamed(await parsed_body(request, requests.SpaceCreate), SPACE_CREATE)
    context = context_of(request)

    async def produce() -> Response:
        with domain_errors(body_refs=True):
            space = context.service.create_space(workspace_of(request, grant), **fields)
        return created(shapes.space(space))

    return await idempotent(request, grant, produce)


@router.patch("/spaces/{space_id}")
async def update_space(request: Request, grant: Grant, space_id: str) -> Response:
    can(grant, "update", "Space")
    changes = renamed(await parsed_body(request, requests.SpaceUpdate), SPACE_UPDATE)
    context = context_of(request)
    workspace = workspace_of(request, grant)
    with domain_errors():
        context.service.get_space(workspace, space_id)
    with domain_errors(body_refs=True):
        space = context.service.update_space(workspace, space_id, changes)
    return ok(shapes.space(space))


@router.delete("/spaces/{space_id}", status_code=204)
async def delete_space(request: Request, grant: Grant, space_id: str) -> Response:
    can(grant, "delete", "Space")
    context = context_of(request)
    with domain_errors():
        context.service.delete_space(workspace_of(request, grant), space_id, ungroup_projects=True)
    return Response(status_code=204)


# -- contacts -------------------------------------------------------------------------------------------------


def contact_fields(body: Json, currency: str) -> dict[str, object]:
    fields = renamed(body, CONTACT_FIELDS)
    if "type" in fields:
        fields["type"] = str(fields["type"]).capitalize()
    if "rate" in fields:
        fields["rate"] = major_units(fields["rate"], currency, "rate")
    return fields


@router.get("/contacts")
async def list_contacts(request: Request, grant: Grant) -> Response:
    context = context_of(request)
    workspace = workspace_of(request, grant)
    items = context.service.list_contacts(workspace)
    expand = expand_keys(request, CONTACT_EXPAND)
    filters = {"expand": request.query_params.get("expand")}
    return page_response(request, items, lambda c: contact_view(c, workspace, expand), filters=filters)


def contact_view(contact: Contact, workspace: Workspace, expand: set[str]) -> Json:
    """A contact; ``expand`` adds its documents and its transactions."""
    body = shapes.contact(contact, workspace.currency)
    if "documents" in expand:
        body["documents"] = [contact_ref(d) for d in workspace.files.linked_documents("contact", contact.id)]
    if "transactions" in expand:
        body["transactions"] = contact_transactions(workspace, contact.id)
    return body


@router.post("/contacts", status_code=201)
async def create_contact(request: Request, grant: Grant) -> Response:
    can(grant, "create", "Contact")
    context = context_of(request)
    workspace = workspace_of(request, grant)
    fields = contact_fields(await parsed_body(request, requests.ContactCreate), workspace.currency)

    async def produce() -> Response:
        with domain_errors():
            item = context.service.create_contact(workspace, fields)
        return created(shapes.contact(item, workspace.currency))

    return await idempotent(request, grant, produce)


@router.get("/contacts/{contact_id}")
async def get_contact(request: Request, grant: Grant, contact_id: str) -> Response:
    context = context_of(request)
    workspace = workspace_of(request, grant)
    with domain_errors():
        item = context.service.get_contact(workspace, contact_id)
    return ok(contact_view(item, workspace, expand_keys(request, CONTACT_EXPAND)))


@router.patch("/contacts/{contact_id}")
async def update_contact(request: Request, grant: Grant, contact_id: str) -> Response:
    can(grant, "update", "Contact")
    context = context_of(request)
    workspace = workspace_of(request, grant)
    fields = contact_fields(await parsed_body(request, requests.ContactUpdate), workspace.currency)
    with domain_errors():
        item = context.service.update_contact(workspace, contact_id, fields)
    return ok(shapes.contact(item, workspace.currency))


@router.delete("/contacts/{contact_id}", status_code=204)
async def delete_contact(request: Request, grant: Grant, contact_id: str) -> Response:
    """Remove a contact; lines and transactions that named it keep their data without the contact."""
    can(grant, "delete", "Contact")
    context = context_of(request)
    workspace = workspace_of(request, grant)
    with domain_errors():
        context.service.delete_contact(workspace, contact_id)
    return Response(status_code=204)
