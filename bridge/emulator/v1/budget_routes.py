"""The v1 budget: phases, the budget document, totals, lines (single, bulk, phase data) (A08, A13, A14, A19).

Bulk writes are all-or-nothing: every entry is applied in request order and, if any fails, what the earlier
ones changed is undone before the error is returned, so the budget (and its version, hence its ETag, aside)
is as before. Every successful write fires ``budget.changed``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core.model import Node, Phase, Project, Workspace
from bridge.emulator.core.store import Service
from bridge.emulator.core.totals import ProjectTotals, Values
from bridge.emulator.v1 import budget_requests, shapes
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import V1Context, context_of
from bridge.emulator.v1.errors import (
    AccountCodeAmbiguousError,
    AccountPathAmbiguousError,
    BudgetTooLargeError,
    ValidationError,
)
from bridge.emulator.v1.expand import expand_keys
from bridge.emulator.v1.routing import (
    Json,
    V1Router,
    can,
    created,
    domain_errors,
    flag,
    idempotent,
    listed,
    ok,
    page_response,
    parsed_body,
    project_of,
    renamed,
)

router = V1Router(prefix="/projects/{project_id}/budget")

LINE_TYPES = ("account", "line", "subtotal", "markup")
EXPANDS = frozenset({"phaseData", "phaseTotals", "contact"})
TAG_MODES = ("any", "all", "none")
PHASE_FIELDS = {
    "name": "name",
    "type": "type",
    "alias": "alias",
    "color": "color",
    "isHidden": "is_hidden",
    "baseCurrencyId": "currency_id",
    "rollupFormula": "rollup_formula",
}
PHASE_UPDATE = {k: v for k, v in PHASE_FIELDS.items() if k != "type"}
LINE_FIELDS = {
    "description": "description",
    "type": "type",
    "accountId": "account_code",
    "parentId": "parent_id",
    "contactId": "contact_id",
    "lineColor": "color",
    "notes": "notes",
    "markupAccountFilter": "include_accounts",
    "subtotalSumAllAbove": "subtotal_sum_all_above",
    "phaseData": "phase_data",
}
PHASE_DATA_FIELDS = {
    "rate": "rate",
    "quantity": "quantity",
    "multiplier": "multiplier",
    "unit": "unit",
    "fringeIds": "fringe_ids",
    "startDate": "start_date",
    "endDate": "end_date",
}
MARKUP_DATA_FIELDS = {"rate": "markup_amount", "unit": "markup_type"}


def budget_changed(context: V1Context, grant: Grant, project: Project, kind: str = "budget", entity: str = "") -> None:
    """Fire budget.changed for a successful budget write (kind budgetLine for one line, else budget)."""
    context.webhooks.emit(grant.workspace, "budget.changed", kind, entity or project.budget_id, project.id)


# -- phases ---------------------------------------------------------------------------------------------------


@router.get("/phases")
async def list_phases(request: Request, grant: Grant, project_id: str) -> Response:
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    return ok({"data": [shapes.phase(p) for p in context.service.list_phases(project)]})


@router.post("/phases", status_code=201)
async def create_phase(request: Request, grant: Grant, project_id: str) -> Response:
    can(grant, "create", "BudgetPhase")
    fields = renamed(await parsed_body(request, budget_requests.PhaseCreate), PHASE_FIELDS)
    context = context_of(request)
    _, project = project_of(request, grant, project_id)

    async def produce() -> Response:
        with domain_errors(body_refs=True):
            phase = context.service.create_phase(project, **fields)
        budget_changed(context, grant, project)
        return created(shapes.phase(phase))

    return await idempotent(request, grant, produce)


@router.get("/phases/{phase_id}")
async def get_phase(request: Request, grant: Grant, project_id: str, phase_id: str) -> Response:
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    with domain_errors():
        return ok(shapes.phase(context.service.get_phase(project, phase_id)))


@router.patch("/phases/{phase_id}")
async def update_phase(request: Request, grant: Grant, project_id: str, phase_id: str) -> Response:
    can(grant, "update", "BudgetPhase")
    changes = renamed(await parsed_body(request, budget_requests.PhaseUpdate), PHASE_UPDATE)
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    with domain_errors():
        context.service.get_phase(project, phase_id)
    with domain_errors(body_refs=True):
        phase = context.service.update_phase(project, phase_id, changes)
    budget_changed(context, grant, project)
    return ok(shapes.phase(phase))


def budget_deleted(
    request: Request, grant: Grant, project_id: str, resource_type: str, remove: Callable[[Service, Project], None]
) -> Response:
    """A budget delete: the role's check, the project, the store's removal (its refusals as v1 errors), then
    ``budget.changed``; 204."""
    can(grant, "delete", resource_type)
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    with domain_errors():
        remove(context.service, project)
    budget_changed(context, grant, project)
    return Response(status_code=204)


@router.delete("/phases/{phase_id}", status_code=204)
async def delete_phase(request: Request, grant: Grant, project_id: str, phase_id: str) -> Response:
    return budget_deleted(
        request, grant, project_id, "BudgetPhase", lambda service, p: service.delete_phase(p, phase_id)
    )


# -- reads: budget document and totals ------------------------------------------------------------------------


def select_phases(context: V1Context, project: Project, selector: str | None) -> list[Phase]:
    """Visible phases, or the one ``selector`` names by id, alias, name or type; ambiguous -> 400."""
    visible = context.service.list_phases(project, include_hidden=False)
    if selector is None:
        return visible
    by_id = [p for p in visible if p.id == selector]
    matches = by_id or [p for p in visible if selector in (p.alias, p.name, p.type)]
    if not matches:
        raise ValidationError(f"phase {selector!r} names no visible phase of this project; list the phases first.")
    if len({p.id for p in matches}) > 1:
        raise ValidationError(
            f"phase {selector!r} matches {len(matches)} visible phases ({', '.join(p.name for p in matches)}); "
            "select the phase by id."
        )
    return matches[:1]


def select_nodes(context: V1Context, project: Project, path: str | None, code: str | None) -> list[Node] | None:
    """The subtree selected by ``path`` (one line) or ``accountId`` (one account code), None for everything."""
    service = context.service
    start: list[Node] = []
    if path is not None:
        wanted = path.strip("/")
        start = [n for n in project.nodes.values() if service.node_path(project, n).strip("/") == wanted]
        if len(start) > 1:
            raise AccountPathAmbiguousError(
                f"path {path!r} matches {len(start)} lines; select by accountId or read the lines and use an id."
            )
    if code is not None:
        holders = [n for n in (start or project.nodes.values()) if n.account_code == code]
        if len(holders) > 1:
            raise AccountCodeAmbiguousError(
                f"account number {code!r} is used by {len(holders)} lines; select the account by path instead."
            )
        start = holders
    if path is None and code is None:
        return None
    return list(service.walk(project, [n.id for n in start])) if start else []


def phase_values(totals: ProjectTotals, phase: Phase, values: Values, project: Project, *, combined: bool) -> Json:
    """PhaseValues in workspace-currency minor units (A09)."""
    minor = totals.in_workspace_minor
    body: Json = {
        "base": minor(phase.id, values.base),
        "overtime": 0,
        "fringe": minor(phase.id, values.fringe),
        "fringeBreakdown": [
            {
                "id": fid,
                "name": project.fringes[fid].code if fid in project.fringes else fid,
                "amount": minor(phase.id, v),
            }
            for fid, v in values.breakdown.items()
        ],
        "amount": minor(phase.id, values.amount),
        "currency": totals.workspace_currency,
    }
    if combined:
        body["combined"] = body["amount"]
    return body


def _selection_totals(totals: ProjectTotals, nodes: list[Node] | None, phase: Phase) -> Values:
    if nodes is None:
        return totals.phases.get(phase.id) or Values()
    summed = Values()
    ids = {n.id for n in nodes}
    for node in nodes:  # only the selection's tops: their values already hold their descendants
        if node.parent_id not in ids:
            summed.add(totals.node(node.id, phase.id))
    return summed


def _conditional(request: Request, project: Project, body: Json) -> Response:
    tag = hashlib.sha256(f"{project.id}:{project.version}:{request.url.query}".encode()).hexdigest()[:20]
    etag = f'W/"{tag}"'
    headers = {"ETag": etag, "Cache-Control": "private, max-age=0, must-revalidate"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    response = ok(body)
    response.headers.update(headers)
    return response


def _computed_at() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def selected(
    request: Request, grant: Grant, project_id: str
) -> tuple[Workspace, Project, list[Phase], list[Node] | None]:
    """What a budget read selects: the token's workspace, the project, the phases its ``phase`` names and the
    lines its ``path`` or ``accountId`` name (None: every line)."""
    context = context_of(request)
    workspace, project = project_of(request, grant, project_id)
    query = request.query_params
    phases = select_phases(context, project, query.get("phase"))
    return workspace, project, phases, select_nodes(context, project, query.get("path"), query.get("accountId"))


@router.get("")
async def get_budget(request: Request, grant: Grant, project_id: str) -> Response:
    context = context_of(request)
    workspace, project, phases, nodes = selected(request, grant, project_id)
    query = request.query_params
    lines = context.service.tree_order(project) if nodes is None else nodes
    if len(lines) > context.budget_line_limit:
        raise BudgetTooLargeError(
            f"The selection holds {len(lines)} lines, over the {context.budget_line_limit} a document may hold; "
            "narrow it with path or accountId, or page through /budget/lines."
        )
    totals = context.service.totals(workspace, project)
    body: Json = {
        "id": project.budget_id,
        "computedAt": _computed_at(),
        "selection": shapes.present(query, ("path", "accountId", "phase")),
        "phases": [shapes.phase(p) for p in phases],
        "totals": {
            p.id: phase_values(totals, p, _selection_totals(totals, nodes, p), project, combined=False) for p in phases
        },
        "lines": [
            {
                **{
                    k: v
                    for k, v in shapes.line(context.service, workspace, project, node, set()).items()
                    if k in DOC_LINE
                },
                "values": {
                    p.id: phase_values(totals, p, totals.node(node.id, p.id), project, combined=False) for p in phases
                },
                "phaseData": {
                    p.id: shapes.phase_data(node, node.phase_data[p.id]) for p in phases if p.id in node.phase_data
                },
            }
            for node in lines
            if node.type in DOC_LINE_TYPES
        ],
    }
    return _conditional(request, project, body)


DOC_LINE = frozenset({"id", "accountId", "description", "parentId", "path", "depth", "type"})
# The line types a budget document carries (the published ComputedLineType); subtotals and markups show in
# their parents' values only.
DOC_LINE_TYPES = frozenset({"account", "line", "credit", "fringe"})


@router.get("/totals")
async def get_totals(request: Request, grant: Grant, project_id: str) -> Response:
    context = context_of(request)
    workspace, project, phases, nodes = selected(request, grant, project_id)
    query = request.query_params
    totals = context.service.totals(workspace, project)
    body: Json = {
        "computedAt": _computed_at(),
        "totals": {
            p.id: phase_values(totals, p, _selection_totals(totals, nodes, p), project, combined=True) for p in phases
        },
    }
    applied = shapes.present(query, ("phase", "accountId", "path"))
    if applied:
        body["filter"] = applied
    return _conditional(request, project, body)


# -- lines: reads -----------------------------------------------------------------------------------------------


def _expand(request: Request) -> set[str]:
    return expand_keys(request, EXPANDS)  # an unknown key is the published 400 expand_invalid


def _line_view(context: V1Context, workspace: Workspace, project: Project, node: Node, expand: set[str]) -> Json:
    body = shapes.line(context.service, workspace, project, node, expand)
    if "phaseTotals" in expand:
        totals = context.service.totals(workspace, project)
        body["phaseTotals"] = {
            p.id: phase_values(totals, p, totals.node(node.id, p.id), project, combined=True)
            for p in context.service.list_phases(project, include_hidden=False)
        }
    return body


@router.get("/lines")
async def list_lines(request: Request, grant: Grant, project_id: str) -> Response:
    context = context_of(request)
    workspace, project = project_of(request, grant, project_id)
    query = request.query_params
    expand = _expand(request)
    types = listed(query.get("type"))
    bad_types = [t for t in types if t not in LINE_TYPES]
    if bad_types:
        raise ValidationError(f"type {bad_types[0]!r} is not a line type; use {', '.join(LINE_TYPES)}.")
    mode = query.get("tagMode", "any")
    if mode not in TAG_MODES:
        raise ValidationError(f"tagMode must be one of {', '.join(TAG_MODES)}; got {mode!r}.")
    tag_ids = listed(query.get("tags"))
    names = {t.id: t.name for t in workspace.library.tags.values()}
    wanted = {names.get(t, f"\0{t}") for t in tag_ids}
    selected = select_nodes(context, project, query.get("path"), query.get("accountId"))
    if query.get("path") is not None and selected:
        selected = selected[:1]
    nodes = context.service.tree_order(project) if selected is None else selected

    def keep(node: Node) -> bool:
        if types and node.type not in types:
            return False
        if not wanted:
            return True
        held = set(node.tags) & wanted
        return {"any": bool(held), "all": held == wanted, "none": not held}[mode]

    items = [n for n in nodes if keep(n)] if types or wanted else nodes
    filters = {k: query.get(k) for k in ("accountId", "path", "tags", "tagMode", "type", "expand")}
    return page_response(
        request,
        items,
        lambda n: _line_view(context, workspace, project, n, expand),
        filters=filters,
        with_count=flag(request, "withCount"),
        extra={"truncated": False},
    )


@router.get("/lines/{line_id}")
async def get_line(request: Request, grant: Grant, project_id: str, line_id: str) -> Response:
    context = context_of(request)
    workspace, project = project_of(request, grant, project_id)
    expand = _expand(request)
    with domain_errors():
        node = context.service.get_node(project, line_id)
    return ok(_line_view(context, workspace, project, node, expand))
