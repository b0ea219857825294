"""The rules for bank and card transactions (``core.bank``): which ones a query selects, and how one is coded.

The legacy description declares the filters but not how they match (A-guess, each): a list filter keeps a
transaction whose value is any of those sent; ``description``, ``merchant`` and ``contactTitle`` match a part of
the text in any case; source names match whole, in any case; the date window is inclusive at both ends; a
project filter naming no project matches nothing. The feed is listed newest first (equal moments by id).

Coding (``updateTransaction``): a project, a budget line of that project and a contact, each settable to null.
A line needs a project; moving a transaction to another project drops a line that is not the new project's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from bridge.emulator.core import validate
from bridge.emulator.core.bank import BankTransaction
from bridge.emulator.core.errors import InvalidInput, NotFound
from bridge.emulator.core.model import Project, Workspace
from bridge.emulator.core.workspaces import StoreCore


@dataclass(frozen=True, slots=True)
class BankQuery:
    """A ``listTransactions`` request's filters; an empty set or None leaves that filter out."""

    types: frozenset[str] = frozenset()
    statuses: frozenset[str] = frozenset()
    sub_statuses: frozenset[str] = frozenset()
    project_refs: frozenset[str] = frozenset()
    source_types: frozenset[str] = frozenset()
    source_names: frozenset[str] = frozenset()
    source_last4s: frozenset[str] = frozenset()
    description: str | None = None
    merchant: str | None = None
    contact_title: str | None = None
    has_account: bool | None = None
    is_actualized: bool | None = None
    has_attachments: bool | None = None
    has_contact: bool | None = None
    start: datetime | None = None
    end: datetime | None = None


def _contains(needle: str | None, haystack: str | None) -> bool:
    return needle is None or (haystack is not None and needle.casefold() in haystack.casefold())


def _either(wanted: bool | None, actual: bool) -> bool:
    return wanted is None or wanted == actual


class BankStore(StoreCore):
    """Read and code a workspace's bank and card transactions."""

    def list_bank_transactions(self, workspace: Workspace, query: BankQuery) -> list[BankTransaction]:
        """The transactions ``query`` selects, newest first."""
        projects = {p.id for p in workspace.projects.values() if query.project_refs & {p.id, p.alias}}
        names = {name.casefold() for name in query.source_names}
        shelf = workspace.files

        def keep(txn: BankTransaction) -> bool:
            contact = workspace.contacts.get(txn.contact_id or "")
            return (
                (not query.types or txn.type in query.types)
                and (not query.statuses or txn.status in query.statuses)
                and (not query.sub_statuses or txn.sub_status in query.sub_statuses)
                and (not query.project_refs or txn.project_id in projects)
                and (not query.source_types or txn.source.kind in query.source_types)
                and (not names or txn.source.name.casefold() in names)
                and (not query.source_last4s or txn.source.last4 in query.source_last4s)
                and _contains(query.description, txn.description)
                and _contains(query.merchant, txn.merchant)
                and _contains(query.contact_title, contact.contact_title if contact else None)
                and _either(query.has_account, txn.has_account)
                and _either(query.is_actualized, txn.is_actualized)
                and _either(query.has_contact, contact is not None)
                and _either(query.has_attachments, bool(shelf.files_of("transaction", txn.id)))
                and (query.start is None or txn.date >= query.start)
                and (query.end is None or txn.date <= query.end)
            )

        found = [txn for txn in workspace.bank.transactions.values() if keep(txn)]
        return sorted(found, key=lambda txn: (txn.date, txn.id), reverse=True)

    def get_bank_transaction(self, workspace: Workspace, ref: str) -> BankTransaction:
        transaction = workspace.bank.transactions.get(ref)
        if transaction is None:
            raise NotFound("transaction", ref)
        return transaction

    def coding_project(self, workspace: Workspace, ref: object) -> Project | None:
        """The project a transaction is coded to, by id or alias; None clears it, an unknown one is refused."""
        if ref is None:
            return None
        text = validate.required_text("projectId", ref)
        found = next((p for p in workspace.projects.values() if text in (p.id, p.alias) and not p.deleted), None)
        if found is None:
            raise InvalidInput("projectId", f"no project has id or alias {text!r}")
        return found

    def code_bank_transaction(
        self, workspace: Workspace, ref: str, project: Project | None, changes: Mapping[str, object]
    ) -> BankTransaction:
        """Code a transaction to ``project`` (None: to none) with ``changes``: ``line_id`` (a line of that
        project, or None) and ``contact_id`` (a contact of the workspace, or None); a key left out keeps its
        value, but a line the new project does not hold is dropped."""
        transaction = self.get_bank_transaction(workspace, ref)
        line = changes.get("line_id", transaction.line_id)
        if line is not None and (project is None or line not in project.nodes):
            if "line_id" in changes:
                raise InvalidInput("accountId", "a budget line needs the project it belongs to; send its projectId")
            line = None
        if "contact_id" in changes:
            contact = validate.text("contactId", changes["contact_id"])
            if contact is not None and contact not in workspace.contacts:
                raise InvalidInput("contactId", f"no contact has id {contact!r}")
            transaction.contact_id = contact
        transaction.project_id = project.id if project else None
        transaction.line_id = None if line is None else str(line)
        return transaction
