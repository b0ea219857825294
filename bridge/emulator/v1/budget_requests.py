"""The v1 budget write shapes (phases, lines, phase data) as closed pydantic models (our own encoding) (A50-A53).

The field types, the base models and ``parse`` are in ``v1.requests``; the same rules hold: closed where the
description closes the shape, strict about JSON types, the published nullability, lengths, bounds and counts.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, PlainValidator

from bridge.emulator.v1.requests import (
    Closed,
    CurrencyCode,
    DateText,
    Number,
    Patch,
    Text255,
    number,
)


def _phase_value(value: object) -> int | float | str | None:
    """A phase value: a number, a formula or variable string, or null."""
    if value is None or isinstance(value, str):
        return value
    return number(value)


PhaseValue = Annotated[int | float | str | None, PlainValidator(_phase_value)]
ROLLUP = r"^(?:@\{[\w-]+\}|@[\w-]+|[\d\s+\-*/().,%])*$"
RollupFormula = Annotated[str, Field(max_length=2000, pattern=ROLLUP)]

LineType = Literal["account", "line", "subtotal", "fringe", "markup", "credit", "banner"]
PhaseType = Literal["estimate", "actual", "rollup", "committed"]
PoStatus = Literal["approved", "paymentRequested", "paymentRejected", "paymentProcessing"]
RollupDisplay = Literal["value", "percent", "bars", "margin"]


class Overtime(Closed):
    mode: str | None = None
    flat_amount: Number | None = None
    hours: Number | None = None
    base_hours: Number | None = None
    multipliers: object = None
    detail: object = None


class PhaseDataWrite(Closed):
    rate: PhaseValue = None
    quantity: PhaseValue = None
    multiplier: PhaseValue = None
    qty_auto_derived: bool | None = None
    unit: str | None = None
    custom_unit_id: str | None = None
    start_date: str | None = None
    end_date: str | None = None
    fringe_ids: list[str] | None = None
    fringe_group_ids: list[str] | None = None
    currency_id: str | None = None
    overtime: Overtime | None = None


class LineCreate(Closed):
    description: Text255
    type: LineType = "line"
    account_id: str = ""
    parent_id: str = ""
    contact_id: str = ""
    line_color: str = ""
    emoji: str = ""
    notes: str = ""
    subtotal_sum_all_above: bool = False
    subtotal_is_bold: bool = False
    markup_account_filter: str = ""
    phase_data: dict[str, PhaseDataWrite] = Field(default_factory=dict)


class LineBulkCreate(Closed):
    lines: Annotated[list[LineCreate], Field(min_length=1, max_length=100)]


class LineUpdate(Patch):
    description: Text255 = ""
    type: LineType = "line"
    account_id: str = ""
    parent_id: str = ""
    contact_id: str | None = None
    line_color: str | None = None
    emoji: str | None = None
    notes: str | None = None
    subtotal_sum_all_above: bool = False
    subtotal_is_bold: bool = False
    markup_account_filter: str | None = None
    phase_data: dict[str, PhaseDataWrite] = Field(default_factory=dict)


class PhaseDataEntry(Closed):
    line_id: str
    phase_id: str
    phase_data: PhaseDataWrite


class PhaseDataBulk(Closed):
    items: Annotated[list[PhaseDataEntry], Field(min_length=1, max_length=500)]


class _PhaseFields(Closed):
    """What a phase create and a phase update share."""

    name: Annotated[str, Field(max_length=255)] = ""
    alias: Annotated[str, Field(max_length=64)] = ""
    is_hidden: bool = False
    display_decimals: Annotated[int, Field(ge=0, le=4)] | None = None
    base_currency_id: str | None = None
    actual_date_start: DateText | None = None
    actual_date_end: DateText | None = None
    actual_statuses: list[str] | None = None
    actual_source_types: list[str] | None = None
    actual_currencies: list[CurrencyCode] | None = None
    actual_contact_id: str | None = None
    actual_tag_ids: list[str] | None = None
    actual_budget_line_ids: list[str] | None = None
    estimate_tag_ids: list[str] = Field(default_factory=list)
    overtime_factors: list[Literal["qty", "x"]] = Field(default_factory=list)
    committed_date_start: DateText | None = None
    committed_date_end: DateText | None = None
    committed_contact_id: str | None = None
    committed_phase_ids: list[str] = Field(default_factory=list)
    committed_po_statuses: list[PoStatus] = Field(default_factory=list)
    rollup_display_mode: RollupDisplay | None = None


class PhaseCreate(_PhaseFields):
    type: PhaseType
    name: Annotated[str, Field(max_length=255)]
    color: Annotated[str, Field(max_length=32)] = ""
    derived_from_phase_id: str = ""
    copy_values: bool = True
    rollup_formula: RollupFormula = ""


class PhaseUpdate(_PhaseFields, Patch):
    color: Annotated[str, Field(max_length=32)] | None = None
    rollup_formula: RollupFormula | None = None
