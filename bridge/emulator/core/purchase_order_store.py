"""The store's purchase orders: a project's legacy orders, the workspace's v1 orders and their status machine.

Writes take model-named fields, checked here as the other store mixins check theirs. A v1 order's currency is
the project's actuals currency (its first phase's, else the workspace's: assumption, the description says
only that the service sets it); its amount is always the sum of its items.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date
from decimal import Decimal, InvalidOperation

from bridge.emulator.core import validate
from bridge.emulator.core.actuals import ActualsStore, parse_date
from bridge.emulator.core.errors import Conflict, InvalidInput, NotFound
from bridge.emulator.core.model import Actual, Project, Workspace
from bridge.emulator.core.money import minor_digits, round_minor
from bridge.emulator.core.purchase_orders import (
    CANCEL,
    DECISIONS,
    DELETABLE,
    EDITABLE,
    LEGACY_STATUSES,
    LINKABLE,
    PAY,
    SUBMIT,
    VOID,
    AlreadyLinked,
    Event,
    EventType,
    InvalidStatus,
    Item,
    LegacyItem,
    LegacyPurchaseOrder,
    Move,
    PurchaseOrder,
    require_status,
)

LEGACY_FIELDS = frozenset({"number", "title", "date", "amount", "status", "notes", "contact_id", "items"})
ORDER_FIELDS = frozenset(
    {"project_id", "number", "name", "contact_id", "budget_line_id", "due_date", "service_start_at"}
    | {"service_end_at", "notes", "sort"}
)
ITEM_FIELDS = frozenset({"line_number", "description", "budget_line_id", "qty", "unit", "rate", "amount", "sort"})
DATE_FIELDS = ("due_date", "service_start_at", "service_end_at")
ITEM_SORT_STEP = 1000


def _day(field: str, value: object) -> date | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(field, "must be a date like 2026-05-20")
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise InvalidInput(field, f"{value!r} is not a date like 2026-05-20") from exc


def _numeric(text: str | None) -> Decimal | None:
    """A qty or rate that is a plain number, else None (a formula, or nothing)."""
    if text is None:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


class PurchaseOrderStore(ActualsStore):
    """Legacy orders per project; v1 orders per workspace with their published status rules."""

    # -- legacy -------------------------------------------------------------------------------------------

    def get_legacy_order(self, project: Project, ref: str) -> LegacyPurchaseOrder:
        """A legacy order by id or by its number (the published path takes either)."""
        order = project.purchase_orders.get(ref)
        if order is None:
            order = next((o for o in project.purchase_orders.values() if o.number == ref), None)
        if order is None:
            raise NotFound("purchase order", ref)
        return order

    def legacy_order_actuals(self, project: Project, order: LegacyPurchaseOrder) -> list[Actual]:
        """The project's actuals that name the order, in creation order."""
        return [a for a in project.actuals.values() if a.purchase_order_id == order.id]

    def create_legacy_order(
        self, workspace: Workspace, project: Project, fields: Mapping[str, object], *, order_id: str
    ) -> LegacyPurchaseOrder:
        """A new legacy order under ``order_id`` (409 if taken). ``amount`` is required unless items are given,
        when it defaults to their sum (assumption: the legacy seed's example creates one without it)."""
        validate.required_text("purchaseOrderId", order_id, max_len=128)
        if order_id in project.purchase_orders:
            raise Conflict(f"purchase order {order_id!r} already exists; update it or choose another id")
        now = self.clock()
        order = LegacyPurchaseOrder(
            id=order_id, amount=Decimal(0), paid_amount=Decimal(0), status="draft", last_modified=now
        )
        self._apply_legacy(workspace, project, order, {"amount": None, **fields}, creating=True)
        project.purchase_orders[order.id] = order
        return order

    def update_legacy_order(
        self, workspace: Workspace, project: Project, ref: str, changes: Mapping[str, object]
    ) -> LegacyPurchaseOrder:
        """Apply model-named ``changes`` to a legacy order; its items are not changed this way (the published
        update takes none)."""
        order = self.get_legacy_order(project, ref)
        if "items" in changes:
            raise InvalidInput("items", "an update does not take items")
        self._apply_legacy(workspace, project, order, changes, creating=False)
        order.last_modified = self.clock()
        return order

    def delete_legacy_order(self, project: Project, ref: str) -> None:
        """Remove a legacy order; the actuals that named it no longer do."""
        order = self.get_legacy_order(project, ref)
        for actual in self.legacy_order_actuals(project, order):
            actual.purchase_order_id = None
        del project.purchase_orders[order.id]

    def _apply_legacy(
        self,
        workspace: Workspace,
        project: Project,
        order: LegacyPurchaseOrder,
        fields: Mapping[str, object],
        *,
        creating: bool,
    ) -> None:
        unknown = sorted(set(fields) - LEGACY_FIELDS)
        if unknown:
            raise InvalidInput(unknown[0], "is not a field of a purchase order")
        if "items" in fields:
            order.items = self._legacy_items(project, fields["items"])
        for key, value in fields.items():
            if key == "amount":
                if value is None and not (creating and order.items):
                    raise InvalidInput("amount", "is required; send the order's total")
                order.amount = (
                    sum((i.total_price for i in order.items), Decimal(0))
                    if value is None
                    else validate.required_number("amount", value)
                )
            elif key == "status":
                order.status = validate.choice("status", value, LEGACY_STATUSES)
            elif key == "date":
                order.date = None if value is None else parse_date("date", value)
            elif key == "contact_id":
                order.contact_id = self._contact_ref(workspace, value)
            elif key in ("number", "title", "notes"):
                setattr(order, key, validate.text(key, value, max_len=2000))

    def _legacy_items(self, project: Project, items: object) -> list[LegacyItem]:
        if not isinstance(items, list):
            raise InvalidInput("items", "must be an array")
        made: list[LegacyItem] = []
        for index, item in enumerate(items):
            label = f"items[{index}]"
            if not isinstance(item, Mapping):
                raise InvalidInput(label, "must be an object")
            quantity = validate.number(f"{label}.quantity", item.get("quantity"))
            unit_price = validate.number(f"{label}.unitPrice", item.get("unit_price"))
            total = validate.number(f"{label}.totalPrice", item.get("total_price"))
            quantity = Decimal(1) if quantity is None else quantity
            if unit_price is None:
                # An item given by its total alone (the legacy seed's examples) is that total for its quantity.
                if total is None:
                    raise InvalidInput(f"{label}.totalPrice", "is required when unitPrice is not given")
                unit_price = total / quantity if quantity else total
            made.append(
                LegacyItem(
                    id=self.ids.new("poi"),
                    quantity=quantity,
                    unit_price=unit_price,
                    total_price=quantity * unit_price if total is None else total,
                    last_modified=self.clock(),
                    description=validate.text(f"{label}.description", item.get("description"), max_len=1000),
                    line_id=self._line_ref(project, f"{label}.accountId", item.get("line_id")),
                )
            )
        return made

    # -- v1: reads ----------------------------------------------------------------------------------------

    def list_orders(self, workspace: Workspace, *, include_deleted: bool = False) -> list[PurchaseOrder]:
        """The workspace's v1 orders in creation order; deleted ones only when asked for."""
        return [o for o in workspace.purchase_orders.values() if include_deleted or not o.deleted]

    def get_order(self, workspace: Workspace, ref: str) -> PurchaseOrder:
        """A live v1 order by id."""
        order = workspace.purchase_orders.get(ref)
        if order is None or order.deleted:
            raise NotFound("purchase order", ref)
        return order

    def order_transactions(self, workspace: Workspace, order: PurchaseOrder) -> Iterator[tuple[Project, Actual]]:
        """The transactions linked to the order, project by project, each in creation order."""
        for project in self._live_projects(workspace):
            for actual in project.actuals.values():
                if actual.purchase_order_id == order.id:
                    yield project, actual

    @staticmethod
    def _live_projects(workspace: Workspace) -> list[Project]:
        return [p for p in workspace.projects.values() if not p.deleted]

    # -- v1: writes ---------------------------------------------------------------------------------------

    def create_order(self, workspace: Workspace, fields: Mapping[str, object], *, actor: str | None) -> PurchaseOrder:
        """A new draft from model-named ``fields`` (items under ``items``); the currency is the service's."""
        items = fields.get("items") or []
        if not isinstance(items, list):
            raise InvalidInput("items", "must be an array")
        project = self._order_project(workspace, fields.get("project_id"))
        now = self.clock()
        order = PurchaseOrder(
            id=self.ids.new("po"),
            workspace_id=workspace.id,
            currency=self.actual_currency(workspace, project) if project else workspace.currency,
            created_at=now,
            updated_at=now,
            created_by_id=actor,
        )
        self._apply_order(workspace, order, {k: v for k, v in fields.items() if k != "items"})
        order.items = [self._item(workspace, order, f"items[{i}]", item, i) for i, item in enumerate(items)]
        workspace.purchase_orders[order.id] = order
        self._record(order, "created", "Purchase order created", actor)
        return order

    def update_order(
        self, workspace: Workspace, ref: str, changes: Mapping[str, object], *, actor: str | None
    ) -> PurchaseOrder:
        """Apply model-named ``changes`` to a draft or rejected order."""
        order = self.get_order(workspace, ref)
        require_status(order, EDITABLE, "an update")
        self._apply_order(workspace, order, changes)
        self._record(order, "details_updated", "Details updated", actor)
        return order

    def delete_order(self, workspace: Workspace, ref: str) -> None:
        """Delete a draft order (kept for ``includeDeleted``); its transactions are unlinked."""
        order = self.get_order(workspace, ref)
        require_status(order, DELETABLE, "a delete")
        for _, actual in list(self.order_transactions(workspace, order)):
            actual.purchase_order_id = None
        order.deleted = True
        order.updated_at = self.clock()

    def add_order_item(
        self, workspace: Workspace, ref: str, fields: Mapping[str, object], *, actor: str | None
    ) -> Item:
        """Append one item to a draft or rejected order."""
        order = self.get_order(workspace, ref)
        require_status(order, EDITABLE, "adding an item")
        item = self._item(workspace, order, "item", fields, len(order.items))
        order.items.append(item)
        self._record(order, "item_added", "Item added", actor)
        return item

    def update_order_item(
        self, workspace: Workspace, ref: str, item_id: str, changes: Mapping[str, object], *, actor: str | None
    ) -> Item:
        """Apply ``changes`` to one item of a draft or rejected order; the item is checked as a whole again."""
        order = self.get_order(workspace, ref)
        index = self._item_index(order, item_id)
        require_status(order, EDITABLE, "changing an item")
        current = order.items[index]
        merged = {name: getattr(current, name) for name in ITEM_FIELDS} | dict(changes)
        if "amount" not in changes and ({"qty", "rate"} & set(changes)):
            merged["amount"] = None  # a new qty or rate gives a new default amount
        updated = self._item(workspace, order, "item", merged, index, item_id=current.id)
        order.items[index] = updated
        self._record(order, "details_updated", "Item updated", actor)
        return updated

    def delete_order_item(self, workspace: Workspace, ref: str, item_id: str, *, actor: str | None) -> None:
        """Remove one item of a draft or rejected order."""
        order = self.get_order(workspace, ref)
        index = self._item_index(order, item_id)
        require_status(order, EDITABLE, "removing an item")
        del order.items[index]
        self._record(order, "details_updated", "Item removed", actor)

    # -- v1: the status machine ---------------------------------------------------------------------------

    def submit_order(self, workspace: Workspace, ref: str, *, actor: str | None) -> PurchaseOrder:
        """draft or rejected -> pending (into the approval flow)."""
        return self._move(workspace, ref, SUBMIT, actor)

    def cancel_submission(self, workspace: Workspace, ref: str, *, actor: str | None) -> PurchaseOrder:
        """pending -> draft."""
        return self._move(workspace, ref, CANCEL, actor)

    def void_order(self, workspace: Workspace, ref: str, *, actor: str | None) -> PurchaseOrder:
        """approved or actualizing -> void."""
        return self._move(workspace, ref, VOID, actor)

    def mark_order_paid(self, workspace: Workspace, ref: str, *, actor: str | None) -> PurchaseOrder:
        """approved or actualizing -> paid, once a transaction is linked (else 409: assumption, the description
        names the rule but not its refusal)."""
        order = self.get_order(workspace, ref)
        require_status(order, PAY.allowed, "mark-paid")
        if next(self.order_transactions(workspace, order), None) is None:
            raise InvalidStatus(f"purchase order {order.id!r} has no linked transaction; link its payment first")
        return self._move(workspace, ref, PAY, actor)

    def decide_order(self, workspace: Workspace, ref: str, status: str) -> PurchaseOrder:
        """The approval flow's own moves (pending -> approved or rejected, approved -> actualizing), which no
        published operation makes: the control API drives them for tests."""
        return self._move(workspace, ref, DECISIONS[validate.choice("status", status, tuple(DECISIONS))], None)

    def link_transaction(
        self, workspace: Workspace, ref: str, transaction_id: str, *, actor: str | None
    ) -> PurchaseOrder:
        """Link a transaction of the workspace; linking it again changes nothing, another order's is refused."""
        order = self.get_order(workspace, ref)
        project, actual = self.find_transaction(workspace, transaction_id)
        if actual.purchase_order_id == order.id:
            return order
        require_status(order, LINKABLE, "linking a transaction")
        if actual.purchase_order_id is not None:
            raise AlreadyLinked(
                f"transaction {actual.id!r} is linked to purchase order {actual.purchase_order_id!r}; unlink it there"
            )
        actual.purchase_order_id = order.id
        self.touch(project)
        self._record(order, "transaction_linked", "Transaction linked", actor, related=actual.id)
        return order

    def unlink_transaction(
        self, workspace: Workspace, ref: str, transaction_id: str, *, actor: str | None
    ) -> PurchaseOrder:
        """Unlink a transaction linked to this order (404 when it is not)."""
        order = self.get_order(workspace, ref)
        project, actual = self.find_transaction(workspace, transaction_id)
        if actual.purchase_order_id != order.id:
            raise NotFound("linked transaction", transaction_id)
        require_status(order, LINKABLE, "unlinking a transaction")
        actual.purchase_order_id = None
        self.touch(project)
        self._record(order, "transaction_unlinked", "Transaction unlinked", actor, related=actual.id)
        return order

    def find_transaction(self, workspace: Workspace, transaction_id: str) -> tuple[Project, Actual]:
        """A transaction by id in any live project of the workspace."""
        for project in self._live_projects(workspace):
            actual = project.actuals.get(transaction_id)
            if actual is not None:
                return project, actual
        raise NotFound("transaction", transaction_id)

    # -- v1: helpers --------------------------------------------------------------------------------------

    def _move(self, workspace: Workspace, ref: str, move: Move, actor: str | None) -> PurchaseOrder:
        order = self.get_order(workspace, ref)
        require_status(order, move.allowed, f"moving it to {move.target}")
        order.status = move.target
        self._record(order, move.event, move.label, actor)
        return order

    def _record(
        self, order: PurchaseOrder, kind: EventType, label: str, actor: str | None, *, related: str | None = None
    ) -> None:
        now = self.clock()
        order.updated_at = now
        order.history.append(Event(self.ids.new("poe"), kind, label, now, actor, related))

    def _order_project(self, workspace: Workspace, ref: object) -> Project | None:
        if ref is None:
            return None
        if not isinstance(ref, str):
            raise InvalidInput("projectId", "must be a project id or slug")
        project = next((p for p in self._live_projects(workspace) if ref in (p.id, p.alias)), None)
        if project is None:
            raise InvalidInput("projectId", f"project {ref!r} does not exist in this workspace")
        return project

    def _apply_order(self, workspace: Workspace, order: PurchaseOrder, fields: Mapping[str, object]) -> None:
        unknown = sorted(set(fields) - ORDER_FIELDS)
        if unknown:
            raise InvalidInput(unknown[0], "is not a field of a purchase order")
        for key, value in fields.items():
            if key == "project_id":
                project = self._order_project(workspace, value)
                order.project_id = project.id if project else None
            elif key == "contact_id":
                order.contact_id = self._contact_ref(workspace, value)
            elif key == "budget_line_id":
                order.budget_line_id = self._order_line(workspace, order, "budgetLineId", value)
            elif key in DATE_FIELDS:
                setattr(order, key, _day(key, value))
            elif key == "sort":
                order.sort = None if value is None else float(validate.required_number("sort", value))
            else:
                setattr(order, key, validate.text(key, value, max_len=2000))
        start, end = order.service_start_at, order.service_end_at
        if start is not None and end is not None and end < start:
            raise InvalidInput("serviceEndAt", "is before serviceStartAt")

    def _order_line(self, workspace: Workspace, order: PurchaseOrder, label: str, value: object) -> str | None:
        """A budget line of the order's project (of any live project while the order has none)."""
        if value is None:
            return None
        projects: Sequence[Project] = self._live_projects(workspace)
        if order.project_id is not None:
            projects = [p for p in projects if p.id == order.project_id]
        if not isinstance(value, str) or not any(value in p.nodes for p in projects):
            raise InvalidInput(label, f"budget line {value!r} does not exist in the order's project")
        return value

    def _item(
        self,
        workspace: Workspace,
        order: PurchaseOrder,
        label: str,
        fields: object,
        position: int,
        *,
        item_id: str | None = None,
    ) -> Item:
        """One checked item. Without an amount it is qty x rate when both are numbers, the rate read in minor
        units as the published example reads it (qty '5', rate '25000', amount 125000)."""
        if not isinstance(fields, Mapping):
            raise InvalidInput(label, "must be an object")
        unknown = sorted(set(fields) - ITEM_FIELDS)
        if unknown:
            raise InvalidInput(f"{label}.{unknown[0]}", "is not a field of a purchase order item")
        texts = {
            name: validate.text(f"{label}.{name}", fields.get(name), max_len=1000)
            for name in ("line_number", "description", "qty", "unit", "rate", "sort")
        }
        amount = validate.number(f"{label}.amount", fields.get("amount"))
        qty, rate = _numeric(texts["qty"]), _numeric(texts["rate"])
        if amount is None and qty is not None and rate is not None:
            amount = round_minor((qty * rate).scaleb(-minor_digits(order.currency)), order.currency)
        return Item(
            id=item_id or self.ids.new("poi"),
            sort=texts["sort"] or str((position + 1) * ITEM_SORT_STEP),
            amount=amount,
            line_number=texts["line_number"],
            description=texts["description"],
            budget_line_id=self._order_line(workspace, order, f"{label}.budgetLineId", fields.get("budget_line_id")),
            qty=texts["qty"],
            unit=texts["unit"],
            rate=texts["rate"],
        )

    @staticmethod
    def _item_index(order: PurchaseOrder, item_id: str) -> int:
        for index, item in enumerate(order.items):
            if item.id == item_id:
                return index
        raise NotFound("purchase order item", item_id)
