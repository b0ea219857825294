"""Flatten the legacy budget document ``{account, subAccounts, phases, fringes, globals}`` into ``ProjectBudget``.

The root ``account`` lists the top-level lines; a line of type ``account`` has its own lines either nested
(``lines`` on the line) or in ``subAccounts``, keyed by the account's id (system idMode) or, failing that,
found by its path (A29). Each flattened line records its parent and its index among its siblings, so the tree
and its order survive the trip; ``contact`` (expanded) becomes ``contactId``. Accounts the root does not reach
(a missing parent, a cycle) are appended with the parentId the service gave them, so the mappings can
quarantine them by name instead of the read silently losing them.

``PiecewiseReader`` gives the same lines for a migration, read one account at a time and kept compact.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from bridge.clients.http import parse_model
from bridge.errors import UnexpectedResponse
from mappings.records import BudgetLine, CompactLine, ProjectBudget

JsonGetter = Callable[[str, Sequence[tuple[str, str]]], Awaitable[tuple[object, str | None]]]

# Read for a whole budget only (the verifier compares them); a migration never sends them.
_NOT_MIGRATED = frozenset({"totals", "contact", "path", "lastModified"})


def _as_map(value: object) -> Mapping[str, object]:
    return value if isinstance(value, dict) else {}


def _as_list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


# The published LinePhaseData: these are numbers, and a formula's text is in <name>Formula (A44).
_CELLS = ("quantity", "rate", "multiplier")


def _cells(raw: object) -> object:
    """One phase's data with each cell as written: the <name>Formula text where there is one, else the number.

    The mappings validate what they get (a formula over globals, or a number), so the text a service holds in
    place of a number reaches them and is quarantined by name instead of read as its computed value.
    """
    if not isinstance(raw, dict):
        return raw
    cells = dict(raw)
    for name in _CELLS:
        text = cells.get(f"{name}Formula")
        if isinstance(text, str):
            cells[name] = text
    return cells


def _line(
    raw: Mapping[str, object], parent_id: str | None, position: int, what: str, request_id: str | None, *, slim: bool
) -> BudgetLine:
    """One row of an account's ``lines`` as a flattened node; ``slim`` leaves out what is never migrated."""
    line_id = raw.get("id")
    if not isinstance(line_id, str):
        raise UnexpectedResponse(f"{what}: a line under {parent_id or 'root'} has no id", request_id=request_id)
    fields = {key: value for key, value in raw.items() if key != "lines" and not (slim and key in _NOT_MIGRATED)}
    contact = _as_map(raw.get("contact"))
    if "contactId" not in fields and isinstance(contact.get("id"), str):
        fields["contactId"] = contact["id"]
    phase_data = raw.get("phaseData")
    if isinstance(phase_data, dict):
        fields["phaseData"] = {key: _cells(data) for key, data in phase_data.items()}
    fields.update(parentId=parent_id, position=position)
    return parse_model(BudgetLine, fields, what, request_id)


def _orphan(account_id: str, raw: Mapping[str, object]) -> dict[str, object]:
    """An account the root does not reach, as a row of its own (its ``lines`` kept nested)."""
    orphan = dict(raw)
    orphan.setdefault("id", account_id)
    orphan.setdefault("type", "account")
    return orphan


class _Flattener:
    def __init__(self, project_id: str, body: Mapping[str, object], request_id: str | None) -> None:
        self.what = f"legacy GET /projects/{project_id}/budget"
        self.request_id = request_id
        self.sub_accounts = _as_map(body.get("subAccounts"))
        self.by_path = {
            str(_as_map(acc).get("path")): _as_map(acc)
            for acc in self.sub_accounts.values()
            if _as_map(acc).get("path")
        }
        self.lines: list[BudgetLine] = []
        self.seen: set[str] = set()

    def children_of(self, line: Mapping[str, object]) -> list[object]:
        if isinstance(line.get("lines"), list):
            return _as_list(line.get("lines"))
        account = self.sub_accounts.get(str(line.get("id"))) or self.by_path.get(str(line.get("path")))
        return _as_list(_as_map(account).get("lines"))

    def walk(self, rows: list[object], parent_id: str | None) -> None:
        for position, row in enumerate(rows):
            raw = _as_map(row)
            line_id = raw.get("id")
            if isinstance(line_id, str) and line_id in self.seen:
                # A line listed twice (or an account that contains itself) would loop or duplicate: keep the first.
                continue
            line = _line(raw, parent_id, position, self.what, self.request_id, slim=False)
            self.seen.add(line.id)
            self.lines.append(line)
            if line.type == "account":
                self.walk(self.children_of(raw), line.id)

    def add_unreached(self) -> None:
        for account_id, account in self.sub_accounts.items():
            raw = _as_map(account)
            if account_id in self.seen or not raw:
                continue
            parent = raw.get("parentId")
            orphan = _orphan(account_id, raw)
            orphan["lines"] = _as_list(raw.get("lines"))
            self.walk([orphan], parent if isinstance(parent, str) else None)


def flatten_budget(project_id: str, body: object, request_id: str | None) -> ProjectBudget:
    """The project's budget as one flat, ordered record (parents before children)."""
    document = _as_map(body)
    root = document.get("account")
    if not isinstance(root, dict):
        raise UnexpectedResponse(
            f"legacy GET /projects/{project_id}/budget answered without a root account", request_id=request_id
        )
    flattener = _Flattener(project_id, document, request_id)
    flattener.walk(_as_list(root.get("lines")), None)
    flattener.add_unreached()
    return parse_model(
        ProjectBudget,
        {
            "projectId": project_id,
            "phases": _as_list(document.get("phases")),
            "fringes": _as_list(document.get("fringes")),
            "globals": _as_list(document.get("globals")),
            "lines": flattener.lines,
            "totals": _as_map(root.get("totals")),
        },
        flattener.what,
        request_id,
    )


@dataclass(frozen=True, slots=True)
class _Piece:
    """One account as read: its own fields (``lines`` left out), its direct children compact, the request id."""

    account: Mapping[str, object]
    children: list[CompactLine]
    request_id: str | None


class PiecewiseReader:
    """A budget's nodes read one account at a time, each piece made compact as soon as it arrives (A41).

    The result is the lines ``flatten_budget`` gives for the whole document, in the same order with the same
    parents and positions (orphan accounts appended with the parent the service names), without what a
    migration never sends. Accounts are read ``READS_AT_ONCE`` at a time ahead of the walk (the service shapes
    one while the bridge parses another); only their raw rows exist at once, so reading a 27,500-line budget
    costs a few MB above its compact result instead of several hundred.
    """

    READS_AT_ONCE = 4

    def __init__(self, get_json: JsonGetter, project_id: str, params: Sequence[tuple[str, str]]) -> None:
        self.get_json = get_json
        self.path = f"/projects/{project_id}/budget"
        self.params = [*params, ("excludeSubAccounts", "true")]
        self.what = f"legacy GET {self.path}"
        self.lines: list[CompactLine] = []
        self.seen: set[str] = set()
        # Children that came nested in their account's row: that account needs no read of its own.
        self.nested: dict[str, list[CompactLine]] = {}
        self.ahead: dict[str, asyncio.Task[_Piece]] = {}
        self.reads = asyncio.Semaphore(self.READS_AT_ONCE)

    async def read(self, accounts: Sequence[tuple[str, str | None]]) -> tuple[CompactLine, ...]:
        """Every node; ``accounts`` are (id, parentId) as ``budget/accounts`` lists them, unreachable ones too."""
        # The root, then the listed accounts parents first: the order the walk needs them in, and the order
        # the semaphore lets the reads go.
        root = asyncio.create_task(self._fetch(None))
        self.ahead = {account_id: asyncio.create_task(self._fetch(account_id)) for account_id, _ in accounts}
        try:
            await self._walk((await root).children)
            for account_id, listed_parent in accounts:
                if account_id in self.seen:
                    continue
                # Not under the root (a missing parent, a cycle): a node of its own, under the parent it names.
                piece = await self._piece(account_id)
                parent = piece.account.get("parentId")
                row = _orphan(account_id, piece.account)
                line = _line(
                    row, parent if isinstance(parent, str) else listed_parent, 0, self.what, piece.request_id, slim=True
                )
                if self._keep(CompactLine.of(line)) and line.type == "account":
                    await self._walk(piece.children)
        finally:
            unread = [root, *self.ahead.values()]  # accounts whose lines came nested, or all after a failure
            for task in unread:
                task.cancel()
            await asyncio.gather(*unread, return_exceptions=True)
        return tuple(self.lines)

    def _keep(self, line: CompactLine) -> bool:
        if line.id in self.seen:
            return False  # listed twice, or an account that contains itself: keep the first, as a whole read does
        self.seen.add(line.id)
        self.lines.append(line)
        return True

    async def _walk(self, rows: list[CompactLine]) -> None:
        for line in rows:
            if self._keep(line) and line.type == "account":
                children = self.nested.pop(line.id, None)
                await self._walk(children if children is not None else (await self._piece(line.id)).children)

    async def _piece(self, account_id: str) -> _Piece:
        ahead = self.ahead.pop(account_id, None)
        return await (ahead if ahead is not None else self._fetch(account_id))

    async def _fetch(self, account_id: str | None) -> _Piece:
        """One account (None: the root) with its direct children."""
        params = self.params if account_id is None else [("accountId", account_id), *self.params]
        async with self.reads:
            body, request_id = await self.get_json(self.path, params)
        account = _as_map(_as_map(body).get("account"))
        if not account:
            raise UnexpectedResponse(
                f"{self.what}?accountId={account_id or 'root'} answered without its account", request_id=request_id
            )
        own = {key: value for key, value in account.items() if key != "lines"}
        return _Piece(own, self._children(account, account_id, request_id), request_id)

    def _children(self, row: Mapping[str, object], parent_id: str | None, request_id: str | None) -> list[CompactLine]:
        children = []
        for position, child in enumerate(_as_list(row.get("lines"))):
            raw = _as_map(child)
            line = CompactLine.of(_line(raw, parent_id, position, self.what, request_id, slim=True))
            if isinstance(raw.get("lines"), list):
                self.nested.setdefault(line.id, self._children(raw, line.id, request_id))
            children.append(line)
        return children
