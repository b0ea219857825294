"""How the legacy surface writes a bank or card transaction (``Transaction``, ``TransactionSource``).

``projectId`` names the project as the id mode does (its alias, or its id in system mode), and stays the stored
id when the project is gone. The related records (``project``, ``contact``, ``account``, ``actual``,
``attachments``) are shown only when ``expands`` names them (the description lists ``attachments`` among the
expands of ``listTransactions``), and only when the record is there to show. The merchant a ``merchant`` filter
matches is not part of the published read shape, so it is not written.
"""

from __future__ import annotations

from bridge.emulator.core.bank import BankTransaction
from bridge.emulator.core.errors import NotFound
from bridge.emulator.core.file_store import find_actual
from bridge.emulator.legacy.file_shapes import files_json
from bridge.emulator.legacy.shapes import Json, LegacyView, num, stamp


def transaction_json(view: LegacyView, txn: BankTransaction) -> Json:
    workspace = view.workspace
    project = workspace.projects.get(txn.project_id or "")
    live = project if project is not None and not project.deleted else None
    shaped: Json = {
        "id": txn.id,
        "type": txn.type,
        "status": txn.status,
        "description": txn.description,
        "amount": num(txn.amount),
        "date": stamp(txn.date),
        "projectId": (project.id if view.system else project.alias) if project else txn.project_id,
        "hasAccount": txn.has_account,
        "isActualized": txn.is_actualized,
        "source": {"id": txn.source.id, "type": txn.source.kind, "name": txn.source.name, "last4": txn.source.last4},
    }
    if txn.sub_status is not None:  # the published enum holds no null (OAS 3.0.3, A82): none is omitted
        shaped["subStatus"] = txn.sub_status
    expands = view.expands
    if "attachments" in expands:
        shaped["attachments"] = files_json(workspace.files, "transaction", txn.id)
    if "contact" in expands and txn.contact_id in workspace.contacts:
        shaped["contact"] = view.contact_of(txn.contact_id or "")
    if "project" in expands and live is not None:
        shaped["project"] = view.project(live)
    line = live.nodes.get(txn.line_id or "") if live is not None else None
    if "account" in expands and live is not None and line is not None:
        shaped["account"] = view.line(live, line, view.service.totals(workspace, live))
    if "actual" in expands and txn.actual_id is not None:
        try:
            owner, actual = find_actual(workspace, txn.actual_id)
        except NotFound:  # the actual was deleted since: nothing to show
            return shaped
        shaped["actual"] = view.actual(owner, actual)
    return shaped
