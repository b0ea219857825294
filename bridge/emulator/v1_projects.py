"""v1 projects (A06), spaces (A05) and contacts (A07)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator import v1_shapes as shapes
from bridge.emulator.money import minor_digits
from bridge.emulator.v1_context import context_of
from bridge.emulator.v1_errors import ValidationError
from bridge.emulator.v1_routing import Auth, Json, can, created, domain_errors, idempotent, json_body, ok, page_response

router = APIRouter()

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
    "displayName": "contact_title",
    "company": "company",
    "title": "job_title",
    "email": "email",
    "type": "type",
    "rate": "rate",
}


def renamed(body: Json, allowed: Mapping[str, str], what: str) -> dict[str, object]:
    """Body fields under their model names; a field the v1 shape does not have is a 400 naming it."""
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ValidationError(
            f"{what} has no field {unknown[0]!r}; allowed fields are {', '.join(sorted(allowed))}.",
            fieldErrors={unknown[0]: ["unknown field"]},
        )
    return {allowed[key]: value for key, value in body.items()}


def major_units(value: object, currency: str, field: str) -> Decimal | None:
    """A Money body field as a major-unit Decimal in the workspace currency."""
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("amount"), int) or isinstance(value.get("amount"), bool):
        raise ValidationError(f"{field} must be Money {{amount: integer minor units, currency}}.")
    if value.get("currency") != currency:
        raise ValidationError(f"{field}.currency must be the workspace currency {currency}.")
    return Decimal(value["amount"]).scaleb(-minor_digits(currency))


# -- projects -------------------------------------------------------------------------------------------------


@router.get("/projects")
async def list_projects(request: Request, grant: Auth) -> Response:
    context = context_of(request)
    workspace = context.workspace(grant)
    items = context.service.list_projects(workspace)
    return page_response(request, items, lambda p: shapes.project(p, workspace), filters={})


@router.post("/projects", status_code=201)
async def create_project(request: Request, grant: Auth) -> Response:
    can(grant, "create", "Project")
    body = await json_body(request)
    fields = renamed(body, PROJECT_CREATE, "A project create")
    context = context_of(request)

    async def produce() -> Response:
        workspace = context.workspace(grant)
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
async def get_project(request: Request, grant: Auth, project_id: str) -> Response:
    context = context_of(request)
    workspace = context.workspace(grant)
    with domain_errors():
        project = context.service.get_project(workspace, project_id)
    return ok(shapes.project(project, workspace))


@router.patch("/projects/{project_id}")
async def update_project(request: Request, grant: Auth, project_id: str) -> Response:
    can(grant, "update", "Project")
    changes = renamed(await json_body(request), PROJECT_UPDATE, "A project update")
    context = context_of(request)
    workspace = context.workspace(grant)
    with domain_errors():
        context.service.get_project(workspace, project_id)
    with domain_errors(body_refs=True):
        project = context.service.update_project(workspace, project_id, changes)
    return ok(shapes.project(project, workspace))


# -- spaces ---------------------------------------------------------------------------------------------------


@router.get("/spaces")
async def list_spaces(request: Request, grant: Auth) -> Response:
    context = context_of(request)
    items = context.service.list_spaces(context.workspace(grant))
    return page_response(request, items, shapes.space, filters={})


@router.post("/spaces", status_code=201)
async def create_space(request: Request, grant: Auth) -> Response:
    can(grant, "create", "Space")
    fields = renamed(await json_body(request), SPACE_CREATE, "A space create")
    context = context_of(request)

    async def produce() -> Response:
        with domain_errors(body_refs=True):
            space = context.service.create_space(context.workspace(grant), **fields)
        return created(shapes.space(space))

    return await idempotent(request, grant, produce)


@router.patch("/spaces/{space_id}")
async def update_space(request: Request, grant: Auth, space_id: str) -> Response:
    can(grant, "update", "Space")
    changes = renamed(await json_body(request), SPACE_UPDATE, "A space update")
    context = context_of(request)
    workspace = context.workspace(grant)
    with domain_errors():
        context.service.get_space(workspace, space_id)
    with domain_errors(body_refs=True):
        space = context.service.update_space(workspace, space_id, changes)
    return ok(shapes.space(space))


@router.delete("/spaces/{space_id}", status_code=204)
async def delete_space(request: Request, grant: Auth, space_id: str) -> Response:
    can(grant, "delete", "Space")
    context = context_of(request)
    with domain_errors():
        context.service.delete_space(context.workspace(grant), space_id, ungroup_projects=True)
    return Response(status_code=204)


# -- contacts -------------------------------------------------------------------------------------------------


def contact_fields(body: Json, currency: str, what: str) -> dict[str, object]:
    fields = renamed(body, CONTACT_FIELDS, what)
    if "type" in fields and fields["type"] is not None:
        if fields["type"] not in shapes.CONTACT_TYPES:
            raise ValidationError(f"type must be one of {', '.join(shapes.CONTACT_TYPES)}; got {fields['type']!r}.")
        fields["type"] = str(fields["type"]).capitalize()
    if "rate" in fields:
        fields["rate"] = major_units(fields["rate"], currency, "rate")
    return fields


@router.get("/contacts")
async def list_contacts(request: Request, grant: Auth) -> Response:
    context = context_of(request)
    workspace = context.workspace(grant)
    items = context.service.list_contacts(workspace)
    return page_response(request, items, lambda c: shapes.contact(c, workspace.currency), filters={})


@router.post("/contacts", status_code=201)
async def create_contact(request: Request, grant: Auth) -> Response:
    can(grant, "create", "Contact")
    context = context_of(request)
    workspace = context.workspace(grant)
    fields = contact_fields(await json_body(request), workspace.currency, "A contact create")

    async def produce() -> Response:
        with domain_errors():
            item = context.service.create_contact(workspace, fields)
        return created(shapes.contact(item, workspace.currency))

    return await idempotent(request, grant, produce)


@router.get("/contacts/{contact_id}")
async def get_contact(request: Request, grant: Auth, contact_id: str) -> Response:
    context = context_of(request)
    workspace = context.workspace(grant)
    with domain_errors():
        item = context.service.get_contact(workspace, contact_id)
    return ok(shapes.contact(item, workspace.currency))


@router.patch("/contacts/{contact_id}")
async def update_contact(request: Request, grant: Auth, contact_id: str) -> Response:
    can(grant, "update", "Contact")
    context = context_of(request)
    workspace = context.workspace(grant)
    fields = contact_fields(await json_body(request), workspace.currency, "A contact update")
    with domain_errors():
        item = context.service.update_contact(workspace, contact_id, fields)
    return ok(shapes.contact(item, workspace.currency))


@router.delete("/contacts/{contact_id}", status_code=204)
async def delete_contact(request: Request, grant: Auth, contact_id: str) -> Response:
    """Remove a contact; lines and transactions that named it keep their data without the contact."""
    can(grant, "delete", "Contact")
    context = context_of(request)
    workspace = context.workspace(grant)
    with domain_errors():
        context.service.get_contact(workspace, contact_id)
    del workspace.contacts[contact_id]
    for project in workspace.projects.values():
        nodes = [n for n in project.nodes.values() if n.contact_id == contact_id]
        actuals = [a for a in project.actuals.values() if a.contact_id == contact_id]
        for node in nodes:
            node.contact_id = None
        for actual in actuals:
            actual.contact_id = None
        if nodes or actuals:
            context.service.touch(project)
    return Response(status_code=204)
