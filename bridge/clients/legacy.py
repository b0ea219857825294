"""The legacy client (``X-API-Key``): typed reads of everything the migration and the verifier need.

Every call sends ``idMode=system`` so ids are database ids, stable across renames (records.py). Lists come
whole in one response (A03); only actuals are read in date windows (legacy_actuals.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date
from types import TracebackType
from typing import Self, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, Field

from bridge.clients.http import (
    REQUEST_ID_HEADER,
    Call,
    HttpSession,
    RunControls,
    json_body,
    make_endpoint,
    parse_model,
)
from bridge.clients.legacy_actuals import ActualsReader
from bridge.clients.legacy_budget import PiecewiseReader, flatten_budget
from bridge.clients.legacy_stamps import STAMPED
from bridge.config import REQUEST_TIMEOUT_S, Secret
from bridge.errors import SourceUnreadable, UnexpectedResponse
from bridge.logging import register_secret
from mappings.kinds import Kind
from mappings.records import (
    Actual,
    CompactLine,
    Contact,
    Fringe,
    Global,
    LegacyRecord,
    Phase,
    Project,
    ProjectBudget,
    PurchaseOrder,
    RawNumber,
    Space,
    Tag,
)
from mappings.refs import WORKSPACE
from mappings.shapes import parse_row, usable_id, without_duplicates

RecordT = TypeVar("RecordT", bound=LegacyRecord)

SYSTEM_IDS = ("idMode", "system")
# The largest page `GET /rates` publishes (limit 1-1000).
RATES_PAGE = 1000
BUDGET_EXPANDS = ("phases", "fringes", "globals", "lines.phaseData", "lines.contact", "lines.notes")
LINE_EXPANDS = ("lines.phaseData", "lines.contact", "lines.notes")


class AccountSummary(BaseModel):
    """One entry of ``budget/accounts`` (parents before children)."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    id: str
    account_id: str | None = Field(default=None, alias="accountId")
    path: str | None = None
    description: str | None = None
    parent_id: str | None = Field(default=None, alias="parentId")


class TagTotals(BaseModel):
    """A tag's totals as legacy computes them, keyed by phase id (floats, major units; the verifier's input).

    Figures are kept as sent (any JSON value): the verifier converts each and reports one it cannot read,
    so a broken figure costs that figure, not the whole verification.
    """

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    phase_totals: dict[str, RawNumber] = Field(default_factory=dict, alias="phaseTotals")
    fringe_totals: dict[str, RawNumber] = Field(default_factory=dict, alias="fringeTotals")
    actual_total: RawNumber = Field(default=None, alias="actualTotal")


def _figures(raw: object) -> dict[str, object]:
    """A tag's ``totals`` object with each per-phase map an object (anything else reads as no figures)."""
    totals = raw if isinstance(raw, dict) else {}
    return {key: value for key, value in totals.items() if key == "actualTotal" or isinstance(value, dict)}


def _items(body: object, key: str, what: str, request_id: str | None) -> list[object]:
    rows = body.get(key) if isinstance(body, dict) else None
    if not isinstance(rows, list):
        raise UnexpectedResponse(f"legacy {what} answered without a {key!r} array", request_id=request_id)
    return rows


@dataclass(frozen=True, slots=True)
class Read:
    """One GET as a read of the source: its path, its parameters and the SHA-256 of the body it answered."""

    path: str
    params: tuple[tuple[str, str], ...]
    digest: str


READS: ContextVar[set[Read] | None] = ContextVar("legacy_reads", default=None)
"""Where the reads of one piece of work are noted while it runs (bridge mode's quiet projects, ``engine.quiet``):
a context variable, since one project's reads are made by many tasks, each of which inherits it."""
ReadKey = tuple[str, tuple[tuple[str, str], ...]]
"""A read's path and parameters."""
ANSWERED: ContextVar[dict[ReadKey, httpx.Response] | None] = ContextVar("legacy_answered", default=None)
"""Answers read just before, by (path, params), each taken once instead of asking again (a project found changed
processes the answers its quiet check read, ``engine.quiet``)."""


def digest(response: httpx.Response) -> str:
    """What a read is compared by: the SHA-256 of its body."""
    return hashlib.sha256(response.content).hexdigest()


class LegacyClient:
    """Typed reads on the legacy surface; ``session`` carries the key, retries and the limiter."""

    def __init__(self, session: HttpSession) -> None:
        self.session = session

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.session.aclose()

    async def get_json(self, path: str, params: Sequence[tuple[str, str]] = ()) -> tuple[object, str | None]:
        """GET ``path`` in system idMode; the decoded body and its request id."""
        call = Call("GET", path, params=[*params, SYSTEM_IDS])
        answered = ANSWERED.get()
        response = answered.pop((path, tuple(params)), None) if answered is not None else None
        if response is None:
            response = await self.session.send(call)
        request_id = response.headers.get(REQUEST_ID_HEADER)
        if (noted := READS.get()) is not None:
            noted.add(Read(path, tuple(params), digest(response)))
        try:
            body = json_body(response, f"legacy {call.what}")
            if (stamped := STAMPED.get()) is not None:  # a sync cycle: the write times of what changed, for its lag
                stamped.note(response.content, body)
        except RecursionError:
            # The JSON decoder recurses on nesting: a body nested past the interpreter's limit is no answer.
            raise UnexpectedResponse(
                f"legacy {call.what} answered a body nested too deep to read", request_id=request_id
            ) from None
        return body, request_id

    async def answer(self, read: Read) -> httpx.Response:
        """What ``read``'s GET answers now, not decoded (a quiet project's reads, compared by ``digest``)."""
        return await self.session.send(Call("GET", read.path, params=[*read.params, SYSTEM_IDS]))

    async def _list(
        self,
        path: str,
        key: str,
        model: type[RecordT],
        where: tuple[Kind, str],
        params: Sequence[tuple[str, str]] = (),
    ) -> list[RecordT]:
        """A list's rows as records; a row its type refuses, or an id listed twice, is a refused record."""
        body, rid = await self.get_json(path, params)
        kind, scope = where
        rows = _items(body, key, f"GET {path}", rid)
        return without_duplicates(
            [parse_row(model, row, kind, scope, index=n) for n, row in enumerate(rows)], kind, scope
        )

    async def rows(self, path: str, key: str, params: Sequence[tuple[str, str]] = ()) -> list[object]:
        """A list's rows as sent, unparsed: what the inventory counts (``engine.inventory`` reads each row)."""
        body, rid = await self.get_json(path, params)
        return _items(body, key, f"GET {path}", rid)

    async def purchase_order_records(self, project_id: str) -> list[PurchaseOrder]:
        """The project's purchase orders as records, with their items, contact and actuals (the actuals naming
        each order: its links to carry); a row its type refuses is a refused record."""
        expands = [("expands[]", name) for name in ("items", "contact", "actuals")]
        path = f"/projects/{project_id}/purchaseOrders"
        return await self._list(path, "purchaseOrders", PurchaseOrder, (Kind.PURCHASE_ORDER, project_id), expands)

    async def comments(self, project_id: str) -> list[object]:
        return await self.rows(f"/projects/{project_id}/comments", "comments")

    async def root_note(self, project_id: str) -> object:
        """The project's budget note (``BudgetNoteResponse.note``) in every format; None when it has none (A70)."""
        try:
            body, _ = await self.get_json(f"/projects/{project_id}/budget/note", [("format", "all")])
        except SourceUnreadable as error:
            if error.status == 404:
                return None
            raise
        return body.get("note") if isinstance(body, dict) else None

    async def rates(self, page_size: int = RATES_PAGE) -> list[object]:
        """Every workspace rate: the one legacy list published with paging (limit and offset), read to a short
        page. An offset moves if a rate is added or removed mid-read, so rows are kept once by id (A71)."""
        seen: dict[object, object] = {}
        offset = 0
        while True:
            # With its contact (``expands[]=contact``), so a rate's contact is reported as not carried (A86).
            query = [("limit", str(page_size)), ("offset", str(offset)), ("expands[]", "contact")]
            page = await self.rows("/rates", "rates", query)
            for row in page:
                seen.setdefault(row.get("id") if isinstance(row, dict) else id(row), row)
            if len(page) < page_size:
                return list(seen.values())
            offset += len(page)

    async def bank_transactions(self) -> list[object]:
        """The workspace's bank and card transactions, with their attachments."""
        return await self.rows("/transactions", "transactions", [("expands[]", "attachments")])

    async def spaces(self) -> list[Space]:
        """Every space, archived ones too: the list hides archived spaces unless asked, so ask both ways."""
        merged: dict[str, Space] = {}
        for archived in ("false", "true"):
            for space in await self._list(
                "/spaces", "spaces", Space, (Kind.SPACE, WORKSPACE), [("archived", archived)]
            ):
                merged.setdefault(space.id, space)
        return list(merged.values())

    async def projects(self) -> list[Project]:
        """Every project, active and archived (asked separately so neither depends on the list's default)."""
        merged: dict[str, Project] = {}
        for status in ("active", "archived"):
            for project in await self._list(
                "/projects", "projects", Project, (Kind.PROJECT, WORKSPACE), [("status", status)]
            ):
                merged.setdefault(project.id, project)
        return list(merged.values())

    async def contacts(self) -> list[Contact]:
        """Every contact, with the names and sizes of its attachments and tax documents (counted by the inventory)
        and its private fields (``secureInfo``: personal data, carried only on opt-in and never logged, A101)."""
        params = [("expands[]", "attachments"), ("expands[]", "taxDocuments"), ("expands[]", "secureInfo")]
        return await self._list("/contacts", "contacts", Contact, (Kind.CONTACT, WORKSPACE), params)

    async def phases(self, project_id: str) -> list[Phase]:
        """Every phase, hidden ones included (A43).

        ``GET /budget/phases`` declares no way to ask for hidden phases, so they are read where the published
        description declares one: the budget with ``includeHiddenPhases`` and the phases expanded, the root
        account alone (``excludeSubAccounts``) and no phase data, so the tree adds almost nothing.
        """
        params = [("includeHiddenPhases", "true"), ("excludeSubAccounts", "true"), ("expands[]", "phases")]
        return await self._list(f"/projects/{project_id}/budget", "phases", Phase, (Kind.PHASE, project_id), params)

    async def fringes(self, project_id: str) -> list[Fringe]:
        return await self._list(f"/projects/{project_id}/budget/fringes", "fringes", Fringe, (Kind.FRINGE, project_id))

    async def globals(self, project_id: str) -> list[Global]:
        return await self._list(f"/projects/{project_id}/budget/globals", "globals", Global, (Kind.GLOBAL, project_id))

    async def accounts(self, project_id: str) -> list[AccountSummary]:
        """The accounts to read ahead of the walk; a row without a usable id is left to the walk, which finds
        it under its parent and refuses it there (this list only schedules reads)."""
        path = f"/projects/{project_id}/budget/accounts"
        body, rid = await self.get_json(path)
        rows = (row for row in _items(body, "accounts", f"GET {path}", rid) if isinstance(row, dict))
        return [
            AccountSummary(id=row["id"], parentId=row["parentId"] if usable_id(row.get("parentId")) else None)
            for row in rows
            if usable_id(row.get("id"))
        ]

    async def tags(self, project_id: str) -> list[Tag]:
        """The project's tags; each record keeps its ``totals`` as an extra field (see ``tag_totals``)."""
        return await self._list(f"/projects/{project_id}/tags", "tags", Tag, (Kind.TAG, project_id))

    async def tag_totals(self, project_id: str) -> dict[str, TagTotals]:
        """Each tag's totals by tag id, as the legacy surface computes them."""
        totals: dict[str, TagTotals] = {}
        for tag in await self.tags(project_id):
            raw = (tag.model_extra or {}).get("totals")
            totals[tag.id] = parse_model(TagTotals, _figures(raw), f"legacy tag {tag.id} totals")
        return totals

    async def budget(self, project_id: str) -> ProjectBudget:
        """The whole budget tree, flattened: lines with parent, position, phase data and totals by phase id."""
        params = [("includeHiddenPhases", "true"), *(("expands[]", value) for value in BUDGET_EXPANDS)]
        body, rid = await self.get_json(f"/projects/{project_id}/budget", params)
        return flatten_budget(project_id, body, rid)

    async def budget_lines(self, project_id: str) -> tuple[CompactLine, ...]:
        """The budget's nodes as ``budget`` flattens them, compact, read one account at a time (A41).

        What a migration holds while it writes a tree: no totals, library or expanded contacts, and never the
        raw document of more than one account. Costs one read per account plus the account list.
        """
        accounts = [(account.id, account.parent_id) for account in await self.accounts(project_id)]
        params = [("includeHiddenPhases", "true"), *(("expands[]", value) for value in LINE_EXPANDS)]
        return await PiecewiseReader(self.get_json, project_id, params).read(accounts)

    def actuals(
        self, project_id: str, start: date, end: date, *, max_rows: int = 5000, recheck: bool = False
    ) -> tuple[ActualsReader, AsyncIterator[Actual]]:
        """A windowed read of the project's actuals; the reader's ``summary`` holds windows, counts, totalAmount."""
        reader = ActualsReader(self.get_json, project_id, max_rows=max_rows)
        return reader, reader.read(start, end, recheck=recheck)


def open_legacy(
    base_url: str,
    key: Secret,
    controls: RunControls,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout: float = REQUEST_TIMEOUT_S,
) -> LegacyClient:
    """A LegacyClient over its own endpoint (close it with ``async with``)."""
    register_secret(key)
    endpoint = make_endpoint(base_url, {"X-API-Key": key.reveal()}, transport=transport, timeout=timeout)
    return LegacyClient(HttpSession(endpoint, "legacy", controls, secrets=(key,)))
