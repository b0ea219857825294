"""Actuals (the v1 surface calls them transactions): coded spend, with optional split parts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal

from bridge.emulator.core import validate
from bridge.emulator.core.errors import Conflict, EmulatorError, InvalidInput, NotFound
from bridge.emulator.core.model import Actual, Project, SubActual, Workspace
from bridge.emulator.core.workspaces import StoreCore

ACTUAL_FIELDS = frozenset(
    {"description", "amount", "date", "type", "status", "line_id", "contact_id", "tags", "ref", "pay_id", "notes"}
    | {"number", "mode", "subactuals", "currency", "source", "actualized", "purchase_order_id"}
)
TEXT_FIELDS = ("type", "status", "ref", "pay_id", "notes", "number", "source", "purchase_order_id")


@dataclass(frozen=True, slots=True)
class BatchSummary:
    """What an actuals batch did, in the legacy ``summary`` counts."""

    inserted: int
    deleted: int
    errors: int
    processed: int
    received: int


def parse_date(field: str, value: object) -> datetime:
    """An ISO 8601 date or date-time; a date alone means midnight UTC, a naive time is taken as UTC."""
    if not isinstance(value, str):
        raise InvalidInput(field, "must be an ISO 8601 date or date-time string")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInput(field, f"{value!r} is not an ISO 8601 date") from exc
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


class ActualsStore(StoreCore):
    """Create, read, change and batch-load a project's actuals."""

    def list_actuals(
        self, project: Project, *, start: datetime | None = None, end: datetime | None = None
    ) -> list[Actual]:
        """The project's actuals in creation order; with ``start`` or ``end``, only those dated in that window
        (both ends inclusive), found without reading the others (``core.ledger``)."""
        if start is None and end is None:
            return list(project.actuals.values())
        return project.actuals.dated_between(start, end)

    def actuals_newest_first(self, project: Project) -> Sequence[Actual]:
        """The project's actuals newest first (equal moments by id), read a page at a time by position."""
        return project.actuals.newest_first()

    def get_actual(self, project: Project, actual_id: str) -> Actual:
        """An actual by id."""
        actual = project.actuals.get(actual_id)
        if actual is None:
            raise NotFound("actual", actual_id)
        return actual

    def actual_currency(self, workspace: Workspace, project: Project) -> str:
        """Actuals are in the first phase's currency (HELP currency article), else the workspace's."""
        phases = sorted(project.phases.values(), key=lambda p: p.sort)
        currency = project.currencies.get(phases[0].currency_id or "") if phases else None
        return currency.code if currency else workspace.currency

    def create_actual(
        self, workspace: Workspace, project: Project, fields: Mapping[str, object], *, actual_id: str | None = None
    ) -> Actual:
        """A new actual from model-named ``fields``; ``actual_id`` chooses its id (409 if taken)."""
        if actual_id is not None:
            validate.required_text("id", actual_id, max_len=128)
            if actual_id in project.actuals:
                raise Conflict(f"actual {actual_id!r} already exists; update it or choose another id")
        actual = self._build_actual(workspace, project, fields, actual_id or self.ids.new("txn"))
        project.actuals[actual.id] = actual
        self.touch(project)
        return actual

    def update_actual(
        self, workspace: Workspace, project: Project, actual_id: str, changes: Mapping[str, object]
    ) -> Actual:
        """Apply model-named ``changes``; the result is checked as a whole before it replaces the actual."""
        current = self.get_actual(project, actual_id)
        merged = self._fields_of(current) | dict(changes)
        updated = self._build_actual(workspace, project, merged, current.id, created_at=current.created_at)
        project.actuals[current.id] = updated
        self.touch(project)
        return updated

    def add_part(self, project: Project, actual_id: str, part: Mapping[str, object]) -> Actual:
        """Append one split part to the actual as it is now; the first moves the coding from the actual to its
        parts (V-SPEC: the first item of a transaction).

        Only the new part is checked: the actual and its other parts were checked when they were written, and
        rebuilding them all for every item made a transaction's items cost the square of their number.
        """
        current = self.get_actual(project, actual_id)
        added = self._part(project, f"subActuals[{len(current.subactuals)}]", part)
        parts = [*current.subactuals, added]
        updated = replace(current, subactuals=parts, line_id=None, mode="split", updated_at=self.clock())
        project.actuals[current.id] = updated
        self.touch(project)
        return updated

    def update_part(
        self, workspace: Workspace, project: Project, actual_id: str, part_id: str, changes: Mapping[str, object]
    ) -> Actual:
        """Apply model-named ``changes`` to one split part; the actual is rebuilt and checked as a whole."""
        parts = self._parts_of(project, actual_id, part_id)
        parts = [{**p, **changes} if p["id"] == part_id else p for p in parts]
        return self.update_actual(workspace, project, actual_id, {"subactuals": parts})

    def delete_part(self, workspace: Workspace, project: Project, actual_id: str, part_id: str) -> Actual:
        """Remove one split part; removing the last makes the actual unsplit again (V-SPEC: not itemized)."""
        parts = [p for p in self._parts_of(project, actual_id, part_id) if p["id"] != part_id]
        changes: dict[str, object] = {"subactuals": parts}
        if not parts:
            changes["mode"] = "default"
        return self.update_actual(workspace, project, actual_id, changes)

    def _parts_of(self, project: Project, actual_id: str, part_id: str) -> list[dict[str, object]]:
        parts = self._parts_of_actual(self.get_actual(project, actual_id))
        if not any(p["id"] == part_id for p in parts):
            raise NotFound("item", part_id)
        return parts

    def delete_actual(self, project: Project, actual_id: str) -> None:
        """Remove an actual."""
        self.get_actual(project, actual_id)
        del project.actuals[actual_id]
        self.touch(project)

    def batch_actuals(
        self, workspace: Workspace, project: Project, items: list[Mapping[str, object]], *, replace: bool
    ) -> BatchSummary:
        """Insert many actuals; ``replace`` deletes the project's actuals first. Bad items are counted, not fatal."""
        deleted = 0
        if replace:
            deleted = len(project.actuals)
            project.actuals.clear()
        inserted = errors = 0
        for item in items:
            try:
                chosen = item.get("id")
                self.create_actual(
                    workspace,
                    project,
                    {k: v for k, v in item.items() if k != "id"},
                    actual_id=str(chosen) if chosen is not None else None,
                )
                inserted += 1
            except EmulatorError:
                errors += 1
        self.touch(project)
        return BatchSummary(
            inserted=inserted, deleted=deleted, errors=errors, processed=inserted + errors, received=len(items)
        )

    def _fields_of(self, actual: Actual) -> dict[str, object]:
        fields: dict[str, object] = {name: getattr(actual, name) for name in ACTUAL_FIELDS if name != "subactuals"}
        fields["date"] = actual.date.isoformat()
        fields["subactuals"] = self._parts_of_actual(actual)
        return fields

    def _parts_of_actual(self, actual: Actual) -> list[dict[str, object]]:
        """The actual's split parts as the model-named fields ``_build_actual`` takes back."""
        return [
            {
                "id": p.id,
                "amount": p.amount,
                "line_id": p.line_id,
                "description": p.description,
                "notes": p.notes,
                "tags": p.tags,
                "line_number": p.line_number,
                "quantity": p.quantity,
                "unit": p.unit,
                "rate": p.rate,
            }
            for p in actual.subactuals
        ]

    def _build_actual(
        self,
        workspace: Workspace,
        project: Project,
        fields: Mapping[str, object],
        actual_id: str,
        *,
        created_at: datetime | None = None,
    ) -> Actual:
        unknown = sorted(set(fields) - ACTUAL_FIELDS)
        if unknown:
            raise InvalidInput(unknown[0], "is not a field of an actual")
        now = self.clock()
        amount = validate.number("amount", fields.get("amount"))
        actual = Actual(
            id=actual_id,
            description=validate.required_text("description", fields.get("description"), max_len=1000),
            amount=amount if amount is not None else Decimal(0),
            currency=validate.text("currency", fields.get("currency"), max_len=3)
            or self.actual_currency(workspace, project),
            date=parse_date("date", fields["date"]) if fields.get("date") is not None else now,
            created_at=created_at or now,
            updated_at=now,
            mode="split" if fields.get("mode") == "split" else "default",
            line_id=self._line_ref(project, "accountId", fields.get("line_id")),
            contact_id=self._contact_ref(workspace, fields.get("contact_id")),
            tags=validate.string_list("tags", fields.get("tags"), max_len=100),
            actualized=validate.flag("actualized", fields.get("actualized", True)),
        )
        for name in TEXT_FIELDS:
            if fields.get(name) is not None:
                setattr(actual, name, validate.text(name, fields.get(name), max_len=1000))
        parts = fields.get("subactuals") or []
        if not isinstance(parts, list):
            raise InvalidInput("subActuals", "must be an array")
        actual.subactuals = [self._part(project, f"subActuals[{i}]", p) for i, p in enumerate(parts)]
        if actual.subactuals:
            actual.mode = "split"
        return actual

    def _part(self, project: Project, label: str, part: object) -> SubActual:
        if not isinstance(part, Mapping):
            raise InvalidInput(label, "must be an object")
        return SubActual(
            id=validate.text(f"{label}.id", part.get("id")) or self.ids.new("sub"),
            amount=validate.required_number(f"{label}.amount", part.get("amount")),
            line_id=self._line_ref(project, f"{label}.accountId", part.get("line_id")),
            description=validate.text(f"{label}.description", part.get("description"), max_len=1000),
            notes=validate.text(f"{label}.notes", part.get("notes"), max_len=1000),
            tags=validate.string_list(f"{label}.tags", part.get("tags"), max_len=100),
            line_number=validate.text(f"{label}.number", part.get("line_number"), max_len=255),
            quantity=validate.cell(f"{label}.quantity", part.get("quantity")),
            unit=validate.text(f"{label}.unit", part.get("unit"), max_len=255),
            rate=validate.cell(f"{label}.rate", part.get("rate")),
        )

    def _line_ref(self, project: Project, label: str, value: object) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str) or value not in project.nodes:
            raise InvalidInput(label, f"budget line {value!r} does not exist in this project")
        return value

    def _contact_ref(self, workspace: Workspace, value: object) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str) or value not in workspace.contacts:
            raise InvalidInput("contactId", f"contact {value!r} does not exist in this workspace")
        return value
