"""The kinds the bridge does not write, counted in the emulator's own store (the oracle plan and verify meet)."""

from __future__ import annotations

from bridge.emulator.core.files import StoredFile
from bridge.emulator.core.model import Project, Workspace
from bridge.emulator.core.records import ROOT_NOTE


def inventory_counts(workspace: Workspace, projects: list[Project]) -> dict[str, int]:
    """What the source holds of each kind ``engine.inventory`` declares, as the emulator's store counts it."""
    shelf = workspace.files
    contacts = list(workspace.contacts)
    return {
        "tax_document": sum(len(shelf.files_of("contact.taxDocument", c)) for c in contacts),
        "bank_transaction": len(workspace.bank.transactions),
        # Those of transactions no actual was made from (the others go with their actuals).
        "bank_transaction_file": sum(
            len(shelf.files_of("transaction", t.id)) for t in workspace.bank.transactions.values() if not t.actual_id
        ),
    }


def remark_counts(workspace: Workspace, projects: list[Project]) -> dict[str, int]:
    """The comments (a project's root budget note among them), the workspace rates and their one pack, as the
    emulator's store counts them."""
    notes = [p.notes.get(ROOT_NOTE) for p in projects]
    return {
        "comment": sum(len(p.comments) for p in projects)
        + sum(1 for note in notes if note is not None and (note.text.strip() or note.html.strip())),
        "rate_pack": 1 if workspace.rates else 0,
        "rate": len(workspace.rates),
    }


def bank_files(workspace: Workspace, projects: list[Project]) -> list[StoredFile]:
    """The files of the bank transactions the projects' actuals came from that the actuals do not hold (A102)."""
    shelf = workspace.files
    made = {a.id for p in projects for a in p.actuals.values()}
    found: list[StoredFile] = []
    for txn in workspace.bank.transactions.values():
        if txn.actual_id in made:
            own = {f.id for f in shelf.files_of("actual", txn.actual_id or "")}
            found += [f for f in shelf.files_of("transaction", txn.id) if f.id not in own]
    return found
