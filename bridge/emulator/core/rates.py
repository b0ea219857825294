"""Workspace rates (the legacy ``/rates`` card) and the v1 plan feature that rate packs need.

Every field of a rate but its id may be empty; a unit, when given, is one of the published units. Search
reads the identifier, the description and the note, in any case. ``PLANS`` says which v1 plans carry rate
packs: on any other plan every rate-pack operation is refused as not available (v1 402).
"""

from __future__ import annotations

from collections.abc import Mapping

from bridge.emulator.core import validate
from bridge.emulator.core.errors import InvalidInput, NotFound
from bridge.emulator.core.model import Workspace
from bridge.emulator.core.records import RATE_UNITS, Rate
from bridge.emulator.core.workspaces import StoreCore

PLANS: Mapping[str, frozenset[str]] = {"studio": frozenset({"ratePacks"}), "starter": frozenset()}
TEXT_FIELDS = ("identifier", "emoji", "description", "note")


def has_feature(workspace: Workspace, feature: str) -> bool:
    return feature in PLANS.get(workspace.plan, frozenset())


class RatesStore(StoreCore):
    """List, create, change and delete a workspace's rates; switch its plan."""

    def list_rates(self, workspace: Workspace, *, search: str | None = None) -> list[Rate]:
        """The rates in creation order; ``search`` matches identifier, description or note (any case)."""
        needle = search.casefold() if search else None
        return [
            r
            for r in workspace.rates.values()
            if needle is None
            or any(needle in (text or "").casefold() for text in (r.identifier, r.description, r.note))
        ]

    def get_rate(self, workspace: Workspace, rate_id: str) -> Rate:
        found = workspace.rates.get(rate_id)
        if found is None:
            raise NotFound("rate", rate_id)
        return found

    def create_rate(self, workspace: Workspace, fields: Mapping[str, object]) -> Rate:
        rate = Rate(id=self.ids.new("rat"))
        self._apply_rate(workspace, rate, fields)
        workspace.rates[rate.id] = rate
        return rate

    def update_rate(self, workspace: Workspace, rate_id: str, changes: Mapping[str, object]) -> Rate:
        rate = self.get_rate(workspace, rate_id)
        self._apply_rate(workspace, rate, changes)
        return rate

    def delete_rate(self, workspace: Workspace, rate_id: str) -> None:
        del workspace.rates[self.get_rate(workspace, rate_id).id]

    def set_plan(self, workspace: Workspace, plan: str) -> None:
        if plan not in PLANS:
            raise InvalidInput("plan", f"{plan!r} is not one of {', '.join(PLANS)}")
        workspace.plan = plan

    def _apply_rate(self, workspace: Workspace, rate: Rate, fields: Mapping[str, object]) -> None:
        for key, value in fields.items():
            if key in TEXT_FIELDS:
                setattr(rate, key, validate.text(key, value, max_len=1000))
            elif key in ("quantity", "rate"):
                if isinstance(value, str):  # published as numbers: text is refused, not read as one
                    raise InvalidInput(key, f"{value!r} is text; send a number")
                setattr(rate, key, validate.number(key, value))
            elif key == "unit":
                rate.unit = None if value is None else validate.choice("unit", value, RATE_UNITS)
            elif key == "contact_id":
                if value is not None and value not in workspace.contacts:
                    raise NotFound("contact", str(value))
                rate.contact_id = None if value is None else str(value)
            else:
                raise InvalidInput(key, "is not a field of a rate")
