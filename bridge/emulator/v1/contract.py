"""Which published v1 response shape each operation the emulator serves answers with, and a check against them.

The shapes themselves are in ``v1.contract_shapes`` (written from reading the v1 description, never copied
from it). ``check(method, path, status, body)`` names every way one response breaks its operation's
published shape; an operation this module does not encode (incentives and incentive packs) is not checked.

The emulator's routes do not use this module: it is the oracle the tests hold the emulator's answers to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from bridge.emulator.v1 import contract_library as lib
from bridge.emulator.v1 import document_shapes
from bridge.emulator.v1.comment_contract import Comment
from bridge.emulator.v1.contract_library import Unit, UnitCollection
from bridge.emulator.v1.contract_shapes import (
    BudgetDocument,
    BudgetLine,
    BudgetPhase,
    BudgetTotals,
    Contact,
    Error,
    LineList,
    Me,
    PhaseDataUpsert,
    PhaseDataUpserts,
    Project,
    ProjectCreated,
    Space,
    Tag,
    Transaction,
    TransactionItem,
    TransactionStats,
    Webhook,
    WebhookDelivery,
    WebhookWithSecret,
    page,
)
from bridge.emulator.v1.purchase_order_contract import OPERATIONS as PURCHASE_ORDER_OPERATIONS
from bridge.emulator.v1.rate_pack_contract import RatePack, RatePackEnableLink, RatePackItem

# -- operations -----------------------------------------------------------------------------------------------

NO_BODY = None  # 204 and 304 answers carry no body
P = "/projects/{projectId}"
B = P + "/budget"
RP = "/library/rate-packs"

LIBRARY = {
    "currencies": (lib.Currency, lib.ProjectCurrency),
    "fringes": (lib.Fringe, lib.ProjectFringe),
    "fringe-groups": (lib.FringeGroup, lib.ProjectFringeGroup),
    "globals": (lib.Global, lib.ProjectGlobal),
}


def _library_operations(kind: str, item: Any, copy: Any) -> dict[tuple[str, str], Mapping[int, Any]]:
    """The ten routes of one library kind: the workspace collection and the project's copies (adding a copy
    again answers 200 with the existing one)."""
    answers: dict[tuple[str, str], Mapping[int, Any]] = {}
    for base, shape, added in ((f"/library/{kind}", item, {201: item}), (f"{P}/library/{kind}", copy, None)):
        one = base + "/{id}"
        answers[("GET", base)] = {200: page(shape)}
        answers[("POST", base)] = added or {200: shape, 201: shape}
        answers[("GET", one)] = {200: shape}
        answers[("PATCH", one)] = {200: shape}
        answers[("DELETE", one)] = {204: NO_BODY}
    return answers


# (method, path template under /v1) -> published success status -> shape. Error statuses all take Error.
OPERATIONS: Mapping[tuple[str, str], Mapping[int, Any]] = {
    ("GET", "/me"): {200: Me},
    ("GET", "/spaces"): {200: page(Space)},
    ("POST", "/spaces"): {201: Space},
    ("PATCH", "/spaces/{spaceId}"): {200: Space},
    ("DELETE", "/spaces/{spaceId}"): {204: NO_BODY},
    ("GET", "/projects"): {200: page(Project)},
    ("POST", "/projects"): {201: ProjectCreated},
    ("GET", P): {200: Project},
    ("PATCH", P): {200: Project},
    ("GET", "/contacts"): {200: page(Contact)},
    ("POST", "/contacts"): {201: Contact},
    ("GET", "/contacts/{contactId}"): {200: Contact},
    ("PATCH", "/contacts/{contactId}"): {200: Contact},
    ("DELETE", "/contacts/{contactId}"): {204: NO_BODY},
    ("GET", B): {200: BudgetDocument, 304: NO_BODY},
    ("GET", B + "/totals"): {200: BudgetTotals, 304: NO_BODY},
    ("GET", B + "/phases"): {200: page(BudgetPhase)},
    ("POST", B + "/phases"): {201: BudgetPhase},
    ("GET", B + "/phases/{phaseId}"): {200: BudgetPhase},
    ("PATCH", B + "/phases/{phaseId}"): {200: BudgetPhase},
    ("DELETE", B + "/phases/{phaseId}"): {204: NO_BODY},
    ("GET", B + "/lines"): {200: page(BudgetLine)},
    ("POST", B + "/lines"): {201: BudgetLine},
    ("POST", B + "/lines/bulk"): {201: LineList},
    ("POST", B + "/lines/phase-data/bulk"): {200: PhaseDataUpserts},
    ("GET", B + "/lines/{lineId}"): {200: BudgetLine},
    ("PATCH", B + "/lines/{lineId}"): {200: BudgetLine},
    ("DELETE", B + "/lines/{lineId}"): {204: NO_BODY},
    ("PUT", B + "/lines/{lineId}/phase-data/{phaseId}"): {200: PhaseDataUpsert},
    ("GET", "/library/tags"): {200: page(Tag)},
    ("POST", "/library/tags"): {201: Tag},
    ("GET", "/library/tags/{tagId}"): {200: Tag},
    ("PATCH", "/library/tags/{tagId}"): {200: Tag},
    ("DELETE", "/library/tags/{tagId}"): {204: NO_BODY},
    ("GET", P + "/library/tags"): {200: page(Tag)},
    ("GET", "/library/units"): {200: UnitCollection},
    ("POST", "/library/units"): {201: Unit},
    ("GET", "/library/units/{unitId}"): {200: Unit},
    ("PATCH", "/library/units/{unitId}"): {200: Unit},
    ("DELETE", "/library/units/{unitId}"): {204: NO_BODY},
    **{
        operation: answers
        for kind, (item, copy) in LIBRARY.items()
        for operation, answers in _library_operations(kind, item, copy).items()
    },
    ("GET", "/transactions"): {200: page(Transaction)},
    ("POST", "/transactions"): {201: Transaction},
    ("POST", "/transactions/bulk"): {201: page(Transaction)},
    ("GET", "/transactions/{transactionId}"): {200: Transaction},
    ("PATCH", "/transactions/{transactionId}"): {200: Transaction},
    ("DELETE", "/transactions/{transactionId}"): {204: NO_BODY},
    ("GET", "/transactions/stats"): {200: TransactionStats},
    ("GET", "/transactions/{transactionId}/items"): {200: page(TransactionItem)},
    ("POST", "/transactions/{transactionId}/items"): {201: TransactionItem},
    ("PATCH", "/transactions/{transactionId}/items/{itemId}"): {200: TransactionItem},
    ("DELETE", "/transactions/{transactionId}/items/{itemId}"): {204: NO_BODY},
    ("GET", P + "/comments"): {200: page(Comment)},
    ("POST", P + "/comments"): {201: Comment},
    ("PATCH", P + "/comments/{commentId}"): {200: Comment},
    ("DELETE", P + "/comments/{commentId}"): {204: NO_BODY},
    ("GET", RP): {200: page(RatePack)},
    ("POST", RP): {201: RatePack},
    ("GET", RP + "/{packId}"): {200: RatePack},
    ("PATCH", RP + "/{packId}"): {200: RatePack},
    ("DELETE", RP + "/{packId}"): {204: NO_BODY},
    ("POST", RP + "/{packId}/enablement"): {200: RatePackEnableLink},
    ("DELETE", RP + "/{packId}/enablement"): {204: NO_BODY},
    ("GET", RP + "/{packId}/items"): {200: page(RatePackItem)},
    ("POST", RP + "/{packId}/items"): {201: RatePackItem},
    ("PATCH", RP + "/{packId}/items/{itemId}"): {200: RatePackItem},
    ("DELETE", RP + "/{packId}/items/{itemId}"): {204: NO_BODY},
    ("GET", "/webhooks"): {200: page(Webhook)},
    ("POST", "/webhooks"): {201: WebhookWithSecret},
    ("GET", "/webhooks/{webhookId}"): {200: Webhook},
    ("PATCH", "/webhooks/{webhookId}"): {200: Webhook},
    ("DELETE", "/webhooks/{webhookId}"): {204: NO_BODY},
    ("POST", "/webhooks/{webhookId}/test-delivery"): {202: WebhookDelivery},
    ("GET", "/webhooks/{webhookId}/deliveries"): {200: page(WebhookDelivery)},
    **document_shapes.OPERATIONS,
    **PURCHASE_ORDER_OPERATIONS,
}


def _pattern(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")


# Literal segments win over parameters (``/lines/bulk`` is not ``/lines/{lineId}``): fewer parameters first.
_MATCHERS = sorted(
    ((method, template, _pattern(template)) for method, template in OPERATIONS),
    key=lambda entry: entry[1].count("{"),
)
_ADAPTERS: dict[object, TypeAdapter[Any]] = {}


def operation(method: str, path: str) -> str | None:
    """The template of the encoded operation serving ``method path`` (path under /v1), or None."""
    for wanted, template, pattern in _MATCHERS:
        if wanted == method.upper() and pattern.match(path):
            return template
    return None


def _adapter(shape: Any) -> TypeAdapter[Any]:
    if shape not in _ADAPTERS:
        _ADAPTERS[shape] = TypeAdapter(shape)
    return _ADAPTERS[shape]


def check(method: str, path: str, status: int, body: object) -> list[str]:
    """Every way this response breaks its operation's published shape (empty when it conforms or when the
    operation is not encoded here). ``path`` is under /v1; ``body`` is the parsed JSON (None for no body)."""
    template = operation(method, path)
    if template is None:
        return []
    where = f"{method.upper()} {template} -> {status}"
    if status >= 400:
        shape: object = Error
    elif status in OPERATIONS[(method.upper(), template)]:
        shape = OPERATIONS[(method.upper(), template)][status]
    else:
        return [f"{where}: status {status} is not a published answer of this operation"]
    if shape is NO_BODY or shape is document_shapes.BYTES:
        return [] if body is None else [f"{where}: a JSON body where the description publishes none"]
    try:
        _adapter(shape).validate_python(body)
    except ValidationError as exc:
        return [
            f"{where}: {'/'.join(str(p) for p in error['loc']) or '<root>'}: {error['msg']}" for error in exc.errors()
        ]
    return []
