"""The remarks' comparison (``remark_checks``) as the reports and the terminal show it: differences first, then
what was compared. Ids and targets are source or service text: each renderer escapes them its own way."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from bridge.verify.amounts import amount
from bridge.verify.schema import RemarkCheck, RemarkDifference

HEADING = "Comments, budget notes and workspace rates"
# A hash is shown by its first characters: enough to tell two apart in a report, the JSON keeps it whole.
SHOWN_HASH = 12


def _short(value: str | None) -> str:
    if value is None:
        return "-"
    return value[:SHOWN_HASH] if len(value) == 64 else value


def compared(check: RemarkCheck) -> str:
    """What was compared, in one sentence."""
    sums = ", ".join(amount(minor, currency) for currency, minor in check.rate_sums.items())
    return (
        f"{check.comments:,} comments compared by body and target, {check.targets:,} comment targets by count, "
        f"{check.rates:,} rate items by title, rate, unit and quantity" + (f" (summing {sums})" if sums else "")
    )


def terminal_line(check: RemarkCheck) -> str:
    """The terminal's one line: the differences' count first."""
    found = len(check.differences)
    return f"remarks: {found} difference{'s' if found != 1 else ''}; {compared(check)}"


def _cells(d: RemarkDifference) -> tuple[str, ...]:
    return (d.kind, d.scope or "workspace", d.legacy_id, d.v1_id or "-", d.field, _short(d.legacy), _short(d.v1))


def _row(d: RemarkDifference, cell: Callable[[str], str]) -> str:
    return "| " + " | ".join(cell(value) for value in _cells(d)) + " |"


HEADERS = ("kind", "scope", "legacy id or target", "v1 id", "what", "legacy (mapped)", "v1")


def markdown(check: RemarkCheck, cell: Callable[[str], str]) -> list[str]:
    """The Markdown section; ``cell`` escapes a table cell (the report's own helper)."""
    lines = [f"## {HEADING} ({len(check.differences)} differences)", ""]
    if check.differences:
        lines += ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
        lines += [_row(d, cell) for d in check.differences]
        lines += [""]
    return [*lines, compared(check) + ".", ""]


def html(check: RemarkCheck) -> list[str]:
    """The HTML section, every value escaped."""
    parts = [f'<section id="remarks"><h2>{HEADING} ({len(check.differences)} differences)</h2>']
    if check.differences:
        head = "".join(f"<th>{escape(h)}</th>" for h in HEADERS)
        rows = "".join(
            "<tr>" + "".join(f"<td>{escape(value)}</td>" for value in _cells(d)) + "</tr>" for d in check.differences
        )
        parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
    parts += [f"<p>{escape(compared(check))}.</p>", "</section>"]
    return parts
