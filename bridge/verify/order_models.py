"""The purchase-order section of a project's report (``ProjectReport.purchase_orders``, schema 1.7.0).

Its own module so that the comparison (``verify.purchase_orders``) and the schema share it without importing
each other. Money travels as minor units per currency (integers) and decimal text, as in the rest of the report.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from bridge.verify.amounts import amount, as_computed


class OrdersModel(BaseModel):
    """As ``schema.ReportModel``: immutable and closed."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class OrderStatusCount(OrdersModel):
    """One row of the status table: a legacy status, what v1 holds for it, why, how many and how much."""

    legacy_status: str
    v1_status: str = Field(description="the status the v1 copies have now (draft unless approved in the app since)")
    why: str
    count: int = Field(description="legacy purchase orders with this status (and this v1 status)")
    money: dict[str, str] = Field(description="their legacy amounts per currency, exact decimal text")
    needs_approval: bool = Field(description="approve them again in the app: v1 can only create drafts")


class OrderDifference(OrdersModel):
    """A purchase order whose v1 copy differs: its items' sum or count, its transaction links, or its absence."""

    legacy_id: str
    number: str | None
    v1_id: str | None
    what: str = Field(description="'missing', 'items sum', 'item count' or 'links'")
    legacy: str
    v1: str

    def said(self) -> str:
        name = f"purchase order {self.number or self.legacy_id}" + (f" (v1 {self.v1_id})" if self.v1_id else "")
        return f"{name}: {self.what}: legacy {self.legacy}, v1 {self.v1}"


class OrderLeft(OrdersModel):
    """An order v1 holds past draft or rejected whose legacy copy was edited since (A107): v1 takes no edit of it,
    so its difference is that edit, left for a person to make in the app (1.8.0)."""

    legacy_id: str
    number: str | None
    v1_id: str
    v1_status: str
    legacy: str = Field(description="the legacy items: count and sum in minor units")
    v1: str = Field(description="the v1 copy's items: count and sum in minor units")

    def said(self) -> str:
        name = f"purchase order {self.number or self.legacy_id} (v1 {self.v1_id})"
        return (
            f"{name}: left as {self.v1_status} on v1, which takes edits of draft or rejected orders only: "
            f"legacy {self.legacy}, v1 {self.v1}; make the legacy edit in the app"
        )


class OrdersReport(OrdersModel):
    """A project's purchase orders on both sides: statuses, item sums per currency, links, differences first."""

    differences: list[OrderDifference]
    statuses: list[OrderStatusCount]
    items_legacy_minor: dict[str, int] = Field(
        description="legacy items' totalPrice (or the amount of an order without items) per currency, minor units"
    )
    items_v1_minor: dict[str, int] = Field(description="the v1 copies' item amounts per currency, minor units")
    links_legacy: int = Field(description="actuals naming an order, whose transaction is on v1")
    links_v1: int = Field(description="transactions linked to the v1 copies")
    awaiting_approval: int = Field(description="orders past draft on legacy that are drafts on v1")
    committed: str = Field(default="", description="why v1's committed phases leave those orders out")
    left_on_v1: list[OrderLeft] = Field(
        default_factory=list, description="orders edited on legacy that v1 holds past draft: explained (1.8.0)"
    )

    def lines(self) -> list[str]:
        """The section as plain lines, differences first (the terminal, Markdown and HTML reports escape them)."""
        lines = [f"difference: {d.said()}" for d in self.differences]
        lines += [f"explained: {left.said()}" for left in self.left_on_v1]
        legacy = ", ".join(amount(n, c) for c, n in self.items_legacy_minor.items()) or "none"
        v1 = ", ".join(amount(n, c) for c, n in self.items_v1_minor.items()) or "none"
        lines.append(f"items: legacy {legacy}; v1 {v1}")
        lines.append(f"links to transactions: legacy {self.links_legacy}, v1 {self.links_v1}")
        for row in self.statuses:
            money = ", ".join(as_computed(v, c) for c, v in row.money.items())
            approve = " (approve in the app)" if row.needs_approval else ""
            lines.append(f"{row.legacy_status} -> {row.v1_status}: {row.count} ({money}){approve}: {row.why}")
        if self.committed:
            lines.append(self.committed)
        return lines
