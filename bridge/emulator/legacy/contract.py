"""The legacy surface's published contract: the query parameters each operation declares, and its answers.

A route sees only the parameters its operation declares (plus ``idMode``, which the legacy seed accepts on
every request); any other name is ignored, as a service that does not know it would. A declared parameter
whose value is outside its published type (a boolean that is not true/false, a ``date-time`` that is neither
a date-time nor a bare date, a value outside an enum) is refused with 400 and the legacy error body (A01),
naming the parameter.

``expands`` values are not held to the published enums: the legacy seed lists values outside them (for
example ``attachments`` on actuals), and the seed wins where it speaks.

``violations`` holds one answer to its operation's published response shape (``legacy.contract_shapes``).
The routes do not use it: it is the oracle the tests hold the emulator's legacy answers to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import TypeAdapter, ValidationError

from bridge.emulator.core.bank import BANK_STATUSES, BANK_SUB_STATUSES, BANK_TYPES
from bridge.emulator.core.errors import InvalidInput
from bridge.emulator.legacy import contract_shapes as shapes
from bridge.emulator.legacy import purchase_order_contract as po
from bridge.emulator.legacy import remark_contract as remarks
from bridge.emulator.legacy import transaction_contract as bank
from bridge.emulator.wire.formats import is_date_time

BASE = "/api/v1"


@dataclass(frozen=True, slots=True)
class Param:
    """One declared query parameter: ``text`` (anything), ``boolean``, ``date``, ``date-time`` or an enum."""

    kind: str = "text"
    choices: frozenset[str] = frozenset()


TEXT = Param()
BOOLEAN = Param("boolean")
DATE = Param("date")
DATE_TIME = Param("date-time")


def one_of(*values: str) -> Param:
    return Param("enum", frozenset(values))


ID_MODE = {"idMode": one_of("user", "system")}
TAG_FILTER = {"tags": TEXT, "tagFilterMode": one_of("contains", "excludes")}
PROJECT = "/projects/{project_id}"
PURCHASE_ORDERS = PROJECT + "/purchaseOrders"
PURCHASE_ORDER = PURCHASE_ORDERS + "/{order_id}"
NOTE_FORMAT = one_of("json", "html", "text", "all")

# (method, route path) -> the query parameters the published operation declares (idMode added to all).
DECLARED: Mapping[tuple[str, str], Mapping[str, Param]] = {
    ("GET", "/spaces"): {"archived": BOOLEAN, "search": TEXT, "expands": TEXT},
    ("GET", "/spaces/{space_id}"): {"expands": TEXT},
    ("GET", "/projects"): {
        "id": TEXT,
        "spaceId": TEXT,
        "status": one_of("active", "archived"),
        "name": TEXT,
        "spaceName": TEXT,
        "labels": TEXT,
    },
    ("GET", "/contacts"): {
        "projectId": TEXT,
        "accountId": TEXT,
        "hasLinkedUser": BOOLEAN,
        "hasAttachments": BOOLEAN,
        "hasTaxDocuments": BOOLEAN,
        "email": TEXT,
        "title": TEXT,
        "expands": TEXT,
    },
    ("GET", PROJECT + "/budget"): {
        "accountId": TEXT,
        "phaseId": TEXT,
        "includeHiddenPhases": BOOLEAN,
        "excludeSubAccounts": BOOLEAN,
        **TAG_FILTER,
        "expands": TEXT,
        "actualDateRange[from]": DATE,
        "actualDateRange[to]": DATE,
    },
    # ``expand`` too: the official SDKs spell the single line's contact expansion that way.
    ("GET", PROJECT + "/budget/line/{line_id:path}"): {
        "includeHiddenPhases": BOOLEAN,
        **TAG_FILTER,
        "expands": TEXT,
        "expand": TEXT,
    },
    ("GET", PROJECT + "/actuals"): {
        "accountId": TEXT,
        "startDate": DATE_TIME,
        "endDate": DATE_TIME,
        "hasAttachments": BOOLEAN,
        "hasAssignedAccount": BOOLEAN,
        "hasLinkedTransaction": BOOLEAN,
        "sourceIds": TEXT,
        "expands": TEXT,
    },
    ("GET", PROJECT + "/actuals/{actual_id}"): {"expands": TEXT},
    ("GET", "/contacts/{contact_id}"): {"expands": TEXT},
    ("GET", PROJECT + "/tags"): {"name": TEXT, "sortBy": one_of("name"), "sortOrder": one_of("asc", "desc")},
    ("GET", PURCHASE_ORDERS): {
        "accountId": TEXT,
        "startDate": DATE_TIME,
        "endDate": DATE_TIME,
        "hasAttachments": BOOLEAN,
        "status": one_of("draft", "approved", "rejected", "pending", "paid"),
        "expands": TEXT,
    },
    ("GET", PURCHASE_ORDER): {"expands": TEXT},
    ("GET", PROJECT + "/comments"): {"accountId": TEXT, "lineId": TEXT},
    ("GET", PROJECT + "/budget/note"): {"format": NOTE_FORMAT},
    ("GET", PROJECT + "/budget/note/{line_id:path}"): {"format": NOTE_FORMAT},
    ("GET", "/rates"): {"expands": TEXT, "search": TEXT, "limit": TEXT, "offset": TEXT},
    ("GET", "/transactions"): {
        "type": one_of(*BANK_TYPES),
        "status": one_of(*BANK_STATUSES),
        "subStatus": one_of(*BANK_SUB_STATUSES),
        **dict.fromkeys(("projectId", "sourceType", "sourceName", "sourceLast4"), TEXT),
        **dict.fromkeys(("description", "merchant", "contactTitle"), TEXT),
        **dict.fromkeys(("hasAccount", "isActualized", "hasAttachments", "hasContact"), BOOLEAN),
        "startDate": DATE_TIME,
        "endDate": DATE_TIME,
        "expands": TEXT,
    },
}


def declared(method: str, route: str) -> Mapping[str, Param]:
    """What ``method route`` declares; an operation the table does not list declares only ``idMode``."""
    return {**DECLARED.get((method, route), {}), **ID_MODE}


def base_name(name: str) -> str:
    """The parameter an array spelling names: ``expands[]`` is ``expands``."""
    return name.removesuffix("[]")


def check(params: Mapping[str, Param], name: str, value: str) -> None:
    """Raise InvalidInput when a declared parameter's value is outside its published type."""
    param = params[name]
    if param.kind == "boolean" and value.lower() not in ("true", "false", "1", "0"):
        raise InvalidInput(name, f"{value!r} is not a boolean; send true or false")
    # The legacy seed says these are ISO 8601, and the official SDKs send a bare date: both are accepted.
    if param.kind == "date-time" and not (is_date_time(value) or _valid_date(value)):
        raise InvalidInput(name, f"{value!r} is not an ISO 8601 date or date-time, such as 2024-01-31T23:59:59Z")
    if param.kind == "date" and not _valid_date(value):
        raise InvalidInput(name, f"{value!r} is not a date, such as 2024-01-31")
    if param.kind == "enum" and value not in param.choices:
        raise InvalidInput(name, f"{value!r} is not one of {', '.join(sorted(param.choices))}")


def _valid_date(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == len("2024-01-31")


# -- responses ------------------------------------------------------------------------------------------------

BYTES: Any = "bytes"  # an answer that is the file itself, not JSON
FILES = "/files/{file_id:path}"
FILE_ANSWERS: Mapping[tuple[str, str], Mapping[int, Any]] = {
    ("POST", "/files/upload"): {201: shapes.File},
    ("GET", FILES + "/download"): {200: BYTES},
    ("DELETE", FILES): {204: None},
    ("POST", PROJECT + "/actuals/{actual_id}/attachment"): {201: shapes.File},
    ("POST", "/contacts/{contact_id}/attachment"): {201: shapes.File},
    ("POST", "/contacts/{contact_id}/tax-document"): {201: shapes.File},
}
TRANSACTION = "/transactions/{transaction_id}"
TRANSACTION_ANSWERS: Mapping[tuple[str, str], Mapping[int, Any]] = {
    ("GET", "/transactions"): {200: bank.Transactions},
    ("GET", TRANSACTION): {200: bank.Transaction},
    ("PUT", TRANSACTION): {200: bank.Transaction},
    ("POST", TRANSACTION + "/attachment"): {201: shapes.File},
    ("POST", TRANSACTION + "/attachments/parse"): {200: bank.ParsedAttachments},
}

# (method, route path) -> the published success status -> its shape (``legacy.contract_shapes``); every error
# status answers with the Error shape. The reads the bridge and the runbooks make, and the purchase-order
# writes a rehearsal makes, are encoded.
ANSWERS: Mapping[tuple[str, str], Mapping[int, Any]] = {
    ("GET", "/projects"): {200: shapes.Projects},
    ("GET", PROJECT): {200: shapes.Project},
    ("GET", "/spaces"): {200: shapes.Spaces},
    ("GET", "/spaces/{space_id}"): {200: shapes.Space},
    ("GET", "/contacts"): {200: shapes.Contacts},
    ("GET", PROJECT + "/budget"): {200: shapes.Budget},
    ("GET", PROJECT + "/budget/accounts"): {200: shapes.Accounts},
    ("GET", PROJECT + "/budget/phases"): {200: shapes.Phases},
    ("GET", PROJECT + "/budget/fringes"): {200: shapes.Fringes},
    ("GET", PROJECT + "/budget/globals"): {200: shapes.Globals},
    ("GET", PROJECT + "/tags"): {200: shapes.Tags},
    ("GET", PROJECT + "/actuals"): {200: shapes.Actuals},
    ("GET", PROJECT + "/actuals/{actual_id}"): {200: shapes.Actual},
    ("GET", "/contacts/{contact_id}"): {200: shapes.Contact},
    **FILE_ANSWERS,
    ("GET", PURCHASE_ORDERS): {200: po.PurchaseOrders},
    ("GET", PURCHASE_ORDER): {200: po.PurchaseOrder},
    ("POST", PURCHASE_ORDER): {201: po.PurchaseOrder},
    ("PUT", PURCHASE_ORDER): {200: po.PurchaseOrder},
    ("DELETE", PURCHASE_ORDER): {204: po.NoBody},
    ("GET", PROJECT + "/budget/line/{line_id}"): {200: shapes.BudgetLine},
    ("GET", PROJECT + "/comments"): {200: remarks.Comments},
    ("GET", PROJECT + "/budget/note"): {200: remarks.BudgetNote},
    ("GET", PROJECT + "/budget/note/{line_id}"): {200: remarks.LineNote},
    ("GET", "/rates"): {200: remarks.Rates},
    ("POST", "/rates"): {201: remarks.Rate},
    ("PUT", "/rates/{rate_id}"): {200: remarks.Rate},
    **TRANSACTION_ANSWERS,
}


def _pattern(route: str) -> re.Pattern[str]:
    """A route's paths: a ``{name:path}`` parameter spans ``/`` (a file id), any other one a segment."""
    escaped = re.sub(r"\\\{[^}]+:path\\\}", ".+", re.escape(route))
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", escaped) + "$")


# Literal segments win over parameters (``/budget/phases`` before a parameter there): fewer parameters first.
_MATCHERS = sorted(((key, _pattern(key[1])) for key in ANSWERS), key=lambda entry: entry[0][1].count("{"))
_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def answered(method: str, path: str) -> tuple[str, str] | None:
    """The encoded operation serving ``method path`` (path under /api/v1), or None."""
    return next((key for key, pattern in _MATCHERS if key[0] == method.upper() and pattern.match(path)), None)


def violations(method: str, path: str, status: int, body: object) -> list[str]:
    """Every way this answer breaks its operation's published shape: empty when it conforms or when the
    operation is not encoded here. ``path`` is under /api/v1; ``body`` is the parsed JSON."""
    key = answered(method, path)
    if key is None:
        return []
    where = f"{key[0]} {key[1]} -> {status}"
    published = ANSWERS[key]
    if status < 400 and status not in published:
        return [f"{where}: status {status} is not a published answer of this operation"]
    shape = shapes.Error if status >= 400 else published[status]
    if shape is None or shape is BYTES:
        return [] if body is None else [f"{where}: a JSON body where the description publishes none"]
    if shape not in _ADAPTERS:
        _ADAPTERS[shape] = TypeAdapter(shape)
    try:
        _ADAPTERS[shape].validate_python(body)
    except ValidationError as exc:
        return [f"{where}: {'/'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in exc.errors()]
    return []
