"""Flatten the legacy budget document ``{account, subAccounts, phases, fringes, globals}`` into ``ProjectBudget``.

The root ``account`` lists the top-level lines; a line of type ``account`` has its own lines either nested
(``lines`` on the line) or in ``subAccounts``, keyed by the account's id (system idMode) or, failing that,
found by its path (A29). Each flattened line records its parent and its index among its siblings, so the tree
and its order survive the trip; ``contact`` (expanded) becomes ``contactId``. Accounts the root does not reach
(a missing parent, a cycle) are appended with the parentId the service gave them, so the mappings can
quarantine them by name instead of the read silently losing them.
"""

from __future__ import annotations

from collections.abc import Mapping

from bridge.clients.http import parse_model
from bridge.errors import UnexpectedResponse
from mappings.records import BudgetLine, ProjectBudget


def _as_map(value: object) -> Mapping[str, object]:
    return value if isinstance(value, dict) else {}


def _as_list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


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
            if not isinstance(line_id, str):
                raise UnexpectedResponse(
                    f"{self.what}: a line under {parent_id or 'root'} has no id", request_id=self.request_id
                )
            if line_id in self.seen:
                # A line listed twice (or an account that contains itself) would loop or duplicate: keep the first.
                continue
            self.seen.add(line_id)
            fields = {key: value for key, value in raw.items() if key != "lines"}
            contact = _as_map(raw.get("contact"))
            if "contactId" not in fields and isinstance(contact.get("id"), str):
                fields["contactId"] = contact["id"]
            fields.update(parentId=parent_id, position=position)
            self.lines.append(parse_model(BudgetLine, fields, self.what, self.request_id))
            if raw.get("type") == "account":
                self.walk(self.children_of(raw), line_id)

    def add_unreached(self) -> None:
        for account_id, account in self.sub_accounts.items():
            raw = _as_map(account)
            if account_id in self.seen or not raw:
                continue
            parent = raw.get("parentId")
            orphan = {key: value for key, value in raw.items() if key != "lines"}
            orphan.setdefault("id", account_id)
            orphan.setdefault("type", "account")
            self.walk([{**orphan, "lines": _as_list(raw.get("lines"))}], parent if isinstance(parent, str) else None)


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
