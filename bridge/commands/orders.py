"""What `bridge plan` and `bridge run` say about purchase orders: the status table (each legacy status, what it
is on v1 and why, with counts and money) and the CSV of the orders to approve again in the app.

v1 creates drafts only, so every order approved, pending or paid on legacy needs a person in the app; the CSV
lists them one per line (its text cells neutralised for spreadsheets, ``state.crosswalk.csv_cell``), and with
them each order edited on legacy that v1 holds past draft, where it takes no edit (A107): its ``v1_amount`` is
what v1 holds beside the legacy ``amount``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

import click

from bridge.commands.closing import say
from bridge.engine.plan import Plan
from bridge.files import write_private
from bridge.terminal import plain
from mappings.money import to_major
from mappings.purchase_orders import OrderLine, status_table
from state.crosswalk import csv_cell

APPROVALS_CSV = "purchase-orders-to-approve.csv"
COLUMNS = (
    "project", "legacy_id", "number", "name", "legacy_status", "v1_status", "v1_id", "amount", "currency", "v1_amount",
)  # fmt: skip


def approvals_csv(lines: Sequence[OrderLine]) -> str:
    """The orders that need a person in the app (approving, or an edit v1 took none of), one row each (header
    first)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for line in lines:
        if line.status.needs_approval or line.left:
            row = (
                line.scope,
                line.legacy_id,
                line.number or "",
                line.name or "",
                line.legacy_status,
                line.status.v1,
                line.v1_id or "",
                str(to_major(line.amount)),
                line.amount["currency"],
                str(to_major(line.v1_amount)) if line.v1_amount else "",
            )
            writer.writerow([csv_cell(cell) for cell in row])
    return out.getvalue()


def show_orders(plan: Plan, directory: Path | None) -> None:
    """The status table on the terminal and (with ``directory``) the approvals CSV written there."""
    if not plan.orders:
        return
    click.echo("purchase orders (v1 creates drafts only; legacy status -> v1, count, why):")
    for row in status_table(plan.orders):
        money = ", ".join(f"{value:,} {currency}" for currency, value in sorted(row.money.items()))
        approve = "; approve them in the app" if row.needs_approval else ""
        say(f"  {plain(row.legacy)} -> {row.v1}: {row.count:,} ({money}): {row.why}{approve}")
    synthesized = sum(line.synthesized for line in plan.orders)
    if synthesized:
        click.echo(f"  {synthesized:,} had no items: each carries one synthesized item holding its amount")
    for line in plan.orders:
        if line.difference:
            name = plain(line.number or line.legacy_id)
            click.echo(
                f"  {name} ({plain(line.scope)}): its items differ from its amount by {line.difference} "
                f"{line.amount['currency']}; v1 shows the items' sum"
            )
        if line.left:
            name = plain(line.number or line.legacy_id)
            currency = line.amount["currency"]
            click.echo(
                f"  {name} ({plain(line.scope)}): {line.status.why}; legacy {to_major(line.amount)} {currency}, "
                f"v1 {to_major(line.v1_amount or line.amount)} {currency} (differs by {line.behind})"
            )
    due = sum(line.status.needs_approval or line.left for line in plan.orders)
    if directory is not None and due:
        path = directory / APPROVALS_CSV
        directory.mkdir(parents=True, exist_ok=True)
        write_private(path, approvals_csv(plan.orders).encode("utf-8"), option="the approvals list")
        click.echo(f"  {due:,} to approve in the app, listed in {path}")
