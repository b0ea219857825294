"""The published operation each v1 write is, and the check every body passes before it is journalled or sent.

Every body is validated against its operation's closed request shape (``v1_shapes``) here, so nothing the
published description does not allow is ever built into a write.

``OPERATIONS`` names each operation the bridge uses by its published operationId, with its method, path
template, body shape and, for a bulk, the body's list of entries (its bulk limit is the shape's published
maxItems). The layers above name an operation and its path parameters; only ``Operation.render`` makes a path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from bridge.clients.compose import Encoded
from bridge.clients.v1_shapes import (
    Closed,
    CommentCreate,
    ContactCreate,
    ContactUpdate,
    CurrencyWrite,
    DocumentLinkRequest,
    DocumentUpdate,
    DocumentUploadMetadata,
    FringeWrite,
    GlobalWrite,
    LineBulkCreate,
    LineUpdate,
    PhaseCreate,
    PhaseUpdate,
    ProjectCopyAdd,
    ProjectCreate,
    ProjectUpdate,
    PurchaseOrderCreate,
    PurchaseOrderItemWrite,
    PurchaseOrderUpdate,
    RatePackCreate,
    RatePackItemCreate,
    SpaceCreate,
    SpaceUpdate,
    TagCreate,
    TagUpdate,
    TransactionBulkCreate,
    TransactionItemCreate,
    TransactionItemPatch,
    TransactionPatch,
)
from bridge.errors import ValidationFailed


class UnpublishedBody(ValidationFailed):
    """A request body the published v1 description does not allow: never sent, its records quarantined."""

    def __init__(self, message: str) -> None:
        # Refused here, before any service saw it: the code is ours (the service's codes name its refusals).
        super().__init__(message, code="unpublished_body")


@dataclass(frozen=True, slots=True)
class FanOut:
    """A write the engine journals as one intent of many single-record requests (split items have no bulk).

    The intent's body is ``{list_field: [{param: <path value>, body: <request body>}, ...]}``: each entry is one
    request, its path parameter ``param`` taken from the entry. Journalled, the intent's path holds
    ``FANOUT_MARK`` in place of that parameter (no one request is the intent)."""

    list_field: str
    param: str
    body: str
    limit: int


# A journalled fan-out's path holds this in place of its entries' own path parameter.
FANOUT_MARK = "-"


@dataclass(frozen=True, slots=True)
class Operation:
    """One published v1 operation: its operationId, method, path template, body shape and (bulk) list field.

    The client alone turns an operation and its path parameters into a path (``render``) and back
    (``params_of``); everything above it names operations, never routes."""

    id: str
    method: str
    template: str
    body: type[Closed] | None
    list_field: str | None = None
    fan_out: FanOut | None = None
    # A list read page by page (limit and cursor); False for a list answered whole (budget_listPhases, A47).
    pages: bool = True
    # Sent as multipart/form-data: the body is the ``metadata`` part, the file travels beside it (uploads).
    multipart: bool = False
    # Which path parameter names the record a keyless write (a PATCH, a link's PUT) is booked under: the last
    # (a patched record, a transaction linked to an order), or another (a document linked to its target).
    record: int = -1
    # The template's segments, None for a parameter: split once, since every request is matched against them.
    segments: tuple[str | None, ...] = field(init=False, repr=False, compare=False)
    # Whether pydantic writes every body of this shape as json.dumps writes it (see ``encoded``).
    exact_json: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = self.template.strip("/").split("/")
        object.__setattr__(self, "segments", tuple(None if part.startswith("{") else part for part in parts))
        object.__setattr__(self, "exact_json", self.body is not None and _written_as_json_dumps(self.body))

    @property
    def parameters(self) -> int:
        return sum(part is None for part in self.segments)

    @property
    def bulk_limit(self) -> int:
        """How many records one request carries at most: the published maxItems of a bulk's list (a fan-out's
        own limit for a fan-out, one otherwise)."""
        if self.fan_out is not None:
            return self.fan_out.limit
        if self.list_field is None or self.body is None:
            return 1
        info = self.body.model_fields[_snake(self.list_field)]
        return next(int(m.max_length) for m in info.metadata if getattr(m, "max_length", None) is not None)

    def render(self, params: Sequence[str]) -> str:
        """The path of this operation with ``params`` in template order (a fan-out intent's: ``FANOUT_MARK``
        for its entries' own parameter, which it is not given)."""
        values = list(params)
        if self.fan_out is not None and len(values) == self.parameters - 1:
            values.append(FANOUT_MARK)
        if len(values) != self.parameters:
            raise ValueError(f"{self.id} takes {self.parameters} path parameters, not {len(values)}")
        filled = iter(values)
        return "/" + "/".join(part if part is not None else next(filled) for part in self.segments)

    def params_of(self, path: str) -> tuple[str, ...]:
        """The path parameters of a path this operation rendered (a journalled intent read back)."""
        theirs = path.strip("/").split("/")
        fits = len(theirs) == len(self.segments) and all(
            ours is None or ours == part for ours, part in zip(self.segments, theirs, strict=True)
        )
        if not fits:
            raise ValueError(f"{path} is not a path of {self.id}")
        found = tuple(part for ours, part in zip(self.segments, theirs, strict=True) if ours is None)
        return found[:-1] if self.fan_out is not None and found[-1:] == (FANOUT_MARK,) else found


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


# Schema nodes pydantic writes as JSON byte for byte as ``json.dumps`` (compact, not ASCII-only) writes them:
# text (the same escapes), integers of any size, flags, null, lists, objects and the models built of them. A
# float is not among them (pydantic writes 1e-05 as 1e-5).
_EXACT_JSON_NODES = frozenset(
    {"model", "model-fields", "model-field", "default", "nullable", "str", "int", "bool", "literal", "list"}
)


def _written_as_json_dumps(model: type[Closed]) -> bool:
    """Whether every node of ``model``'s validation schema is one pydantic writes as json.dumps does."""
    pending: list[object] = [model.__pydantic_core_schema__]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            kind = node.get("type")
            if isinstance(kind, str) and kind not in _EXACT_JSON_NODES:
                return False
            pending.extend(node.values())
        elif isinstance(node, list | tuple):
            pending.extend(node)
    return True


def _op(
    op_id: str,
    method: str,
    template: str,
    body: type[Closed] | None = None,
    *,
    bulk: str | None = None,
    fan_out: FanOut | None = None,
    pages: bool = True,
    multipart: bool = False,
    record: int = -1,
) -> Operation:
    return Operation(op_id, method, template, body, bulk, fan_out, pages, multipart, record)


_PROJECT = "/projects/{projectId}"
_LINES = f"{_PROJECT}/budget/lines"
# Split items have no bulk endpoint: one POST /transactions/{id}/items each. A fan-out journals up to 200 of
# them as ONE intent (one journal record and one completion instead of one per item); each entry is
# {"transactionId", "item"} and goes with its own key derived from the intent's.
_ITEMS = FanOut(list_field="items", param="transactionId", body="item", limit=200)
_ORDER = "/purchase-orders/{purchaseOrderId}"
# The operations the bridge uses: the writes it sends and the lists it reads records back from.
OPERATIONS: tuple[Operation, ...] = (
    _op("spaces_list", "GET", "/spaces"),
    _op("spaces_create", "POST", "/spaces", SpaceCreate),
    _op("spaces_update", "PATCH", "/spaces/{spaceId}", SpaceUpdate),
    _op("projects_list", "GET", "/projects"),
    _op("projects_create", "POST", "/projects", ProjectCreate),
    _op("projects_get", "GET", _PROJECT),
    _op("projects_update", "PATCH", _PROJECT, ProjectUpdate),
    _op("contacts_list", "GET", "/contacts"),
    _op("contacts_create", "POST", "/contacts", ContactCreate),
    _op("contacts_get", "GET", "/contacts/{contactId}"),
    _op("contacts_update", "PATCH", "/contacts/{contactId}", ContactUpdate),
    _op("contacts_delete", "DELETE", "/contacts/{contactId}"),
    _op("library_listTags", "GET", "/library/tags"),
    _op("library_createTag", "POST", "/library/tags", TagCreate),
    _op("library_getTag", "GET", "/library/tags/{tagId}"),
    _op("library_updateTag", "PATCH", "/library/tags/{tagId}", TagUpdate),
    _op("library_listCurrencies", "GET", "/library/currencies"),
    _op("library_createCurrency", "POST", "/library/currencies", CurrencyWrite),
    _op("library_getCurrency", "GET", "/library/currencies/{currencyId}"),
    _op("library_updateCurrency", "PATCH", "/library/currencies/{currencyId}", CurrencyWrite),
    _op("library_listFringes", "GET", "/library/fringes"),
    _op("library_createFringe", "POST", "/library/fringes", FringeWrite),
    _op("library_getFringe", "GET", "/library/fringes/{fringeId}"),
    _op("library_updateFringe", "PATCH", "/library/fringes/{fringeId}", FringeWrite),
    _op("library_listGlobals", "GET", "/library/globals"),
    _op("library_createGlobal", "POST", "/library/globals", GlobalWrite),
    _op("library_getGlobal", "GET", "/library/globals/{globalId}"),
    _op("library_updateGlobal", "PATCH", "/library/globals/{globalId}", GlobalWrite),
    _op("library_listProjectCurrencies", "GET", f"{_PROJECT}/library/currencies"),
    _op("library_addProjectCurrency", "POST", f"{_PROJECT}/library/currencies", ProjectCopyAdd),
    _op("library_getProjectCurrency", "GET", f"{_PROJECT}/library/currencies/{{currencyId}}"),
    _op("library_updateProjectCurrency", "PATCH", f"{_PROJECT}/library/currencies/{{currencyId}}", CurrencyWrite),
    _op("library_listProjectFringes", "GET", f"{_PROJECT}/library/fringes"),
    _op("library_addProjectFringe", "POST", f"{_PROJECT}/library/fringes", ProjectCopyAdd),
    _op("library_getProjectFringe", "GET", f"{_PROJECT}/library/fringes/{{fringeId}}"),
    _op("library_updateProjectFringe", "PATCH", f"{_PROJECT}/library/fringes/{{fringeId}}", FringeWrite),
    _op("library_listProjectGlobals", "GET", f"{_PROJECT}/library/globals"),
    _op("library_addProjectGlobal", "POST", f"{_PROJECT}/library/globals", ProjectCopyAdd),
    _op("library_getProjectGlobal", "GET", f"{_PROJECT}/library/globals/{{globalId}}"),
    _op("library_updateProjectGlobal", "PATCH", f"{_PROJECT}/library/globals/{{globalId}}", GlobalWrite),
    _op("budget_listPhases", "GET", f"{_PROJECT}/budget/phases", pages=False),
    _op("budget_createPhase", "POST", f"{_PROJECT}/budget/phases", PhaseCreate),
    _op("budget_getPhase", "GET", f"{_PROJECT}/budget/phases/{{phaseId}}"),
    _op("budget_updatePhase", "PATCH", f"{_PROJECT}/budget/phases/{{phaseId}}", PhaseUpdate),
    _op("budget_deletePhase", "DELETE", f"{_PROJECT}/budget/phases/{{phaseId}}"),
    _op("budget_listLines", "GET", _LINES),
    _op("budget_createLinesBulk", "POST", f"{_LINES}/bulk", LineBulkCreate, bulk="lines"),
    _op("budget_getLine", "GET", f"{_LINES}/{{lineId}}"),
    _op("budget_updateLine", "PATCH", f"{_LINES}/{{lineId}}", LineUpdate),
    _op("budget_deleteLine", "DELETE", f"{_LINES}/{{lineId}}"),
    _op("transactions_list", "GET", "/transactions"),
    _op("transactions_get", "GET", "/transactions/{transactionId}"),
    _op("transactions_update", "PATCH", "/transactions/{transactionId}", TransactionPatch),
    _op("transactions_delete", "DELETE", "/transactions/{transactionId}"),
    _op("transactions_createBulk", "POST", "/transactions/bulk", TransactionBulkCreate, bulk="transactions"),
    _op(
        "transactions_createItem", "POST", "/transactions/{transactionId}/items", TransactionItemCreate, fan_out=_ITEMS
    ),
    _op("transactions_updateItem", "PATCH", "/transactions/{transactionId}/items/{itemId}", TransactionItemPatch),
    _op("comments_list", "GET", f"{_PROJECT}/comments"),
    _op("comments_create", "POST", f"{_PROJECT}/comments", CommentCreate),
    _op("library_listRatePacks", "GET", "/library/rate-packs"),
    _op("library_createRatePack", "POST", "/library/rate-packs", RatePackCreate),
    _op("library_listRatePackItems", "GET", "/library/rate-packs/{packId}/items"),
    _op("library_createRatePackItem", "POST", "/library/rate-packs/{packId}/items", RatePackItemCreate),
    _op("purchase-orders_list", "GET", "/purchase-orders"),
    _op("purchase-orders_get", "GET", _ORDER),
    _op("purchase-orders_create", "POST", "/purchase-orders", PurchaseOrderCreate),
    _op("purchase-orders_delete", "DELETE", _ORDER),
    _op("purchase-orders_submit", "POST", f"{_ORDER}/submit"),
    _op("purchase-orders_listItems", "GET", f"{_ORDER}/items"),
    _op("purchase-orders_createItem", "POST", f"{_ORDER}/items", PurchaseOrderItemWrite),
    # A draft's (or rejected order's) header and items kept up to date: no Idempotency-Key is published for
    # these three (engine.order_updates sends only what v1 does not hold yet).
    _op("purchase-orders_update", "PATCH", _ORDER, PurchaseOrderUpdate),
    _op("purchase-orders_updateItem", "PATCH", f"{_ORDER}/items/{{itemId}}", PurchaseOrderItemWrite),
    _op("purchase-orders_deleteItem", "DELETE", f"{_ORDER}/items/{{itemId}}"),
    # A PUT with no body and no Idempotency-Key (none is published): linking again changes nothing.
    _op("purchase-orders_linkTransaction", "PUT", f"{_ORDER}/transactions/{{transactionId}}"),
    _op("documents_list", "GET", "/documents"),
    _op("documents_get", "GET", "/documents/{documentId}"),
    _op("documents_delete", "DELETE", "/documents/{documentId}"),
    _op("documents_getContent", "GET", "/documents/{documentId}/content"),
    _op("documents_upload", "POST", "/documents", DocumentUploadMetadata, multipart=True),
    _op("documents_update", "PATCH", "/documents/{documentId}", DocumentUpdate),
    _op("documents_link", "PUT", "/documents/{documentId}/links/{kind}", DocumentLinkRequest, record=0),
)
BY_ID: dict[str, Operation] = {op.id: op for op in OPERATIONS}


def checked(operation: Operation, body: Mapping[str, object] | None) -> Closed | None:
    """``body`` as the operation's closed model; UnpublishedBody names what the description does not allow."""
    if operation.body is None:
        if body:
            raise UnpublishedBody(f"{operation.id} takes no body")
        return None
    try:
        model = operation.body.model_validate(dict(body or {}))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'body'}: {error['msg']}" for error in exc.errors()
        )
        raise UnpublishedBody(f"{operation.id}: the published request shape does not allow {problems}") from exc
    if operation.method == "PATCH" and not model.model_fields_set:
        raise UnpublishedBody(f"{operation.id}: an update must change at least one field")
    return model


def checked_write(operation: Operation, body: Mapping[str, object]) -> None:
    """Check a journalled write's body; a fan-out's is checked entry by entry (each entry's request body)."""
    fan_out = operation.fan_out
    if fan_out is None:
        checked(operation, body)
        return
    entries = body.get(fan_out.list_field)
    for entry in entries if isinstance(entries, list) else []:
        item = entry.get(fan_out.body) if isinstance(entry, Mapping) else None
        checked(operation, item if isinstance(item, Mapping) else {})


def wire(model: Closed | None) -> dict[str, object] | None:
    """The JSON object a checked model sends: only the fields that were set, nulls kept where published."""
    return None if model is None else model.model_dump(mode="json", exclude_unset=True, by_alias=True)


def encoded(operation: Operation, model: Closed) -> Encoded | None:
    """``wire(model)`` written as the JSON text httpx would send for it, when pydantic writes it the same
    (``Operation.exact_json``), else None. Writing it straight from the model cost half what building the
    object and encoding it with json.dumps cost (a 500-transaction bulk, a split item)."""
    if not operation.exact_json:
        return None
    try:
        return Encoded(model.__pydantic_serializer__.to_json(model, exclude_unset=True, by_alias=True))
    except PydanticSerializationError:
        return None  # text json.dumps writes or refuses its own way (a lone surrogate): left to it
