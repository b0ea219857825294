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
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from bridge.clients.http import parse_model
from bridge.errors import UnexpectedResponse
from mappings.budget import line_ref
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.records import BudgetLine, CompactLine, Fringe, Global, Phase, ProjectBudget
from mappings.shapes import parse_row, refused, usable_id

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
    project_id: str, raw: Mapping[str, object], parent_id: str | None, position: int, *, slim: bool
) -> BudgetLine:
    """One row of an account's ``lines`` as a flattened node; ``slim`` leaves out what is never migrated.

    A row its record type refuses (no usable id, text that is not Unicode, a field of the wrong JSON type)
    is a refused node in its place (``mappings.shapes``): quarantined by the mappings, counted in the source,
    its children walked so they are held back under it.
    """
    fields = {key: value for key, value in raw.items() if key != "lines" and not (slim and key in _NOT_MIGRATED)}
    contact = _as_map(raw.get("contact"))
    if "contactId" not in fields and isinstance(contact.get("id"), str):
        fields["contactId"] = contact["id"]
    phase_data = raw.get("phaseData")
    if isinstance(phase_data, dict):
        fields["phaseData"] = {key: _cells(data) for key, data in phase_data.items()}
    fields.update(parentId=parent_id, position=position)
    line_type = raw.get("type")
    keep = {"parent_id": parent_id, "position": position, "type": line_type if isinstance(line_type, str) else ""}
    return parse_row(BudgetLine, fields, Kind.LINE, project_id, index=position, keep=keep)


N = TypeVar("N", BudgetLine, CompactLine)


def _duplicate(project_id: str, line_id: str) -> MappingError:
    detail = "listed more than once in the budget (under two accounts, or twice under one)"
    return MappingError(ErrorCode.DUPLICATE_ID, line_ref(project_id, line_id), "id", line_id, detail)


def _orphan(account_id: str, raw: Mapping[str, object]) -> dict[str, object]:
    """An account the root does not reach, as a row of its own (its ``lines`` kept nested)."""
    orphan = dict(raw)
    orphan.setdefault("id", account_id)
    orphan.setdefault("type", "account")
    return orphan


def _listed_id(row: Mapping[str, object]) -> str | None:
    line_id = row.get("id")
    return line_id if isinstance(line_id, str) else None


class _Nodes(Generic[N]):
    """A budget's nodes in reading order, each id once: a second listing of an id (under two accounts, or twice
    under one) refuses the first as a duplicate and is not added."""

    def __init__(self, project_id: str) -> None:
        self.project_id = project_id
        self.lines: list[N] = []
        self.index: dict[str, int] = {}

    def _refused(self, first: N, error: MappingError) -> N:
        raise NotImplementedError

    def keep(self, line: N) -> bool:
        """Add a node; False when its id was listed before (the first listing is then refused)."""
        at = self.index.get(line.id)
        if at is None:
            self.index[line.id] = len(self.lines)
            self.lines.append(line)
            return True
        first = self.lines[at]
        if first.refusal is None or first.refusal.code is not ErrorCode.DUPLICATE_ID:
            self.lines[at] = self._refused(first, _duplicate(self.project_id, line.id))
        return False


class _Flattener(_Nodes[BudgetLine]):
    """The whole budget document walked with a stack (its depth is the source's to choose, never recursion)."""

    def __init__(self, project_id: str, body: Mapping[str, object]) -> None:
        super().__init__(project_id)
        self.sub_accounts = _as_map(body.get("subAccounts"))
        self.by_path = {
            str(_as_map(acc).get("path")): _as_map(acc)
            for acc in self.sub_accounts.values()
            if _as_map(acc).get("path")
        }

    def children_of(self, line: Mapping[str, object]) -> list[object]:
        if isinstance(line.get("lines"), list):
            return _as_list(line.get("lines"))
        account = self.sub_accounts.get(str(line.get("id"))) or self.by_path.get(str(line.get("path")))
        return _as_list(_as_map(account).get("lines"))

    def _refused(self, first: BudgetLine, error: MappingError) -> BudgetLine:
        return refused(
            BudgetLine, error, {"parent_id": first.parent_id, "position": first.position, "type": first.type}
        )

    def walk(self, rows: list[object], parent_id: str | None) -> None:
        stack: list[tuple[str | None, Iterator[tuple[int, object]]]] = [(parent_id, enumerate(rows))]
        on_path = {parent_id} if parent_id is not None else set()
        while stack:
            parent, pending = stack[-1]
            step = next(pending, None)
            if step is None:
                stack.pop()
                on_path.discard(parent or "")
                continue
            position, row = step
            raw = _as_map(row)
            if _listed_id(raw) in on_path:
                continue  # an account listing its own ancestor: the parent links show the cycle to the mappings
            line = _line(self.project_id, raw, parent, position, slim=False)
            if self.keep(line) and line.type == "account":
                stack.append((line.id, enumerate(self.children_of(raw))))
                on_path.add(line.id)

    def add_unreached(self) -> None:
        for account_id, account in self.sub_accounts.items():
            raw = _as_map(account)
            if account_id in self.index or not raw:
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
    flattener = _Flattener(project_id, document)
    flattener.walk(_as_list(root.get("lines")), None)
    flattener.add_unreached()
    what = f"legacy GET /projects/{project_id}/budget"
    phases, fringes, globals_ = (
        [parse_row(model, row, kind, project_id, index=n) for n, row in enumerate(_as_list(document.get(key)))]
        for model, kind, key in (
            (Phase, Kind.PHASE, "phases"),
            (Fringe, Kind.FRINGE, "fringes"),
            (Global, Kind.GLOBAL, "globals"),
        )
    )
    return parse_model(
        ProjectBudget,
        {
            "projectId": project_id,
            "phases": phases,
            "fringes": fringes,
            "globals": globals_,
            "lines": flattener.lines,
            "totals": _as_map(root.get("totals")),
        },
        what,
        request_id,
    )


@dataclass(frozen=True, slots=True)
class _Piece:
    """One account as read: its own fields (``lines`` left out), its direct children compact, the request id."""

    account: Mapping[str, object]
    children: list[CompactLine]
    request_id: str | None


class PiecewiseReader(_Nodes[CompactLine]):
    """A budget's nodes read one account at a time, each piece made compact as soon as it arrives (A41).

    The result is the lines ``flatten_budget`` gives for the whole document, in the same order with the same
    parents and positions (orphan accounts appended with the parent the service names), without what a
    migration never sends. Accounts are read ``READS_AT_ONCE`` at a time ahead of the walk (the service shapes
    one while the bridge parses another); only their raw rows exist at once, so reading a 27,500-line budget
    costs a few MB above its compact result instead of several hundred.
    """

    READS_AT_ONCE = 4

    def __init__(self, get_json: JsonGetter, project_id: str, params: Sequence[tuple[str, str]]) -> None:
        super().__init__(project_id)
        self.get_json = get_json
        self.path = f"/projects/{project_id}/budget"
        self.params = [*params, ("excludeSubAccounts", "true")]
        self.what = f"legacy GET {self.path}"
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
            await self._walk((await root).children, None)
            for account_id, listed_parent in accounts:
                if account_id in self.index:
                    continue
                # Not under the root (a missing parent, a cycle): a node of its own, under the parent it names.
                piece = await self._piece(account_id)
                parent = piece.account.get("parentId")
                row = _orphan(account_id, piece.account)
                named = parent if isinstance(parent, str) else listed_parent
                line = CompactLine.of(_line(self.project_id, row, named, 0, slim=True))
                if self.keep(line) and line.type == "account":
                    await self._walk(piece.children, line.id)
        finally:
            unread = [root, *self.ahead.values()]  # accounts whose lines came nested, or all after a failure
            for task in unread:
                task.cancel()
            await asyncio.gather(*unread, return_exceptions=True)
        return tuple(self.lines)

    def _refused(self, first: CompactLine, error: MappingError) -> CompactLine:
        return replace(first, refusal=error)

    async def _walk(self, rows: list[CompactLine], parent_id: str | None) -> None:
        """The nodes under ``rows``, depth first with a stack: a tree's depth never becomes recursion."""
        stack: list[tuple[str | None, Iterator[CompactLine]]] = [(parent_id, iter(rows))]
        on_path = {parent_id} if parent_id is not None else set()
        while stack:
            parent, pending = stack[-1]
            line = next(pending, None)
            if line is None:
                stack.pop()
                on_path.discard(parent or "")
                continue
            if line.id in on_path:
                continue  # an account listing its own ancestor: the parent links show the cycle to the mappings
            if self.keep(line) and line.type == "account":
                children = self.nested.pop(line.id, None)
                if children is None:
                    children = (await self._piece(line.id)).children if usable_id(line.id) else []
                stack.append((line.id, iter(children)))
                on_path.add(line.id)

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
        return _Piece(own, self._children(account, account_id), request_id)

    def _children(self, row: Mapping[str, object], parent_id: str | None) -> list[CompactLine]:
        """An account's direct children, compact; children that came nested under them are kept for the walk."""
        children: list[CompactLine] = []
        pending: list[tuple[Mapping[str, object], str | None, list[CompactLine]]] = [(row, parent_id, children)]
        while pending:
            current, parent, into = pending.pop()
            for position, child in enumerate(_as_list(current.get("lines"))):
                raw = _as_map(child)
                line = CompactLine.of(_line(self.project_id, raw, parent, position, slim=True))
                if isinstance(raw.get("lines"), list) and line.id not in self.nested:
                    nested: list[CompactLine] = []
                    self.nested[line.id] = nested
                    pending.append((raw, line.id, nested))
                into.append(line)
        return children
