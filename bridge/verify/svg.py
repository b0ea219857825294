"""Difference charts as inline SVG: one bar per phase (and actuals currency), v1 minus legacy.

Bars are drawn on a symmetric log scale (log10 of 1 + |difference| in major units), so a difference of a few
cents stays visible beside one of billions: one outlier cannot flatten the rest. Every bar carries its exact
amount and its share of the legacy total as text, so the scale never hides a figure. What quarantine holds
back is drawn as an outline at minus that amount: a difference it explains ends on the outline.

Positions are floats (pixels); amounts stay integers in minor units and are printed exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from bridge.verify import amounts
from bridge.verify.compare import Verdict
from bridge.verify.safe import escape
from mappings.money import exponent

_ROW = 24
_LABEL = 150
_PLOT = 340
_TEXT = 440
_TOP = 22
_WIDTH = _LABEL + _PLOT + _TEXT
COLOURS = {
    Verdict.EXACT: "#1b7f3b",
    Verdict.NOT_CARRIED: "#52606d",
    Verdict.ROUNDING: "#b88700",
    Verdict.QUARANTINE: "#6941c6",
    Verdict.MISMATCH: "#b42318",
}


@dataclass(frozen=True, slots=True)
class Bar:
    """One row: a label, both totals in ``currency`` minor units, what quarantine holds back, the verdict."""

    label: str
    legacy_minor: int | None
    v1_minor: int | None
    held_back_minor: int
    currency: str
    verdict: Verdict

    @property
    def difference_minor(self) -> int:
        return (self.v1_minor or 0) - (self.legacy_minor or 0)


def scaled(minor: int, currency: str) -> float:
    """Symmetric log of an amount in major units: 0 at 0, about 1 per decade beyond one unit."""
    # In Decimal: an amount beyond a float's range (a hostile source has them) still has a logarithm.
    decades = (Decimal(abs(minor)).scaleb(-exponent(currency)) + 1).log10()
    return float(-decades if minor < 0 else decades)


def share(bar: Bar) -> str:
    """The difference as a share of the legacy total, exactly computed, shown to two significant places."""
    if not bar.legacy_minor:
        return "no legacy total" if bar.difference_minor else ""
    ratio = Decimal(bar.difference_minor) * 100 / abs(Decimal(bar.legacy_minor))
    return f"{ratio:+.2g}% of legacy" if abs(ratio) < 1 else f"{ratio:+.1f}% of legacy"


def difference_chart(bars: list[Bar], chart_id: str) -> str:
    """A diverging bar per row around a zero line: left when v1 holds less, right when it holds more."""
    reach = max([1.0, *(abs(scaled(b.difference_minor, b.currency)) for b in bars)])
    reach = max(reach, *(abs(scaled(b.held_back_minor, b.currency)) for b in bars)) if bars else reach
    half = _PLOT / 2 - 6
    zero = _LABEL + _PLOT / 2
    height = _TOP + _ROW * len(bars) + 8

    def x(minor: int, currency: str) -> float:
        return zero + scaled(minor, currency) / reach * half

    shapes = [
        f'<text x="{_LABEL}" y="13">&#8592; v1 holds less</text>',
        f'<text x="{_LABEL + _PLOT}" y="13" text-anchor="end">v1 holds more &#8594;</text>',
        f'<text x="{_LABEL + _PLOT + 8}" y="13">v1 &#8722; legacy (log scale; dashed: held back)</text>',
        f'<line x1="{zero:.1f}" x2="{zero:.1f}" y1="{_TOP - 4}" y2="{height - 4}" stroke="#52606d"/>',
    ]
    for i, bar in enumerate(bars):
        top = _TOP + i * _ROW
        mid = top + _ROW / 2
        colour = COLOURS[bar.verdict]
        shapes.append(f'<text x="0" y="{mid + 4:.1f}">{escape(_short(bar.label))}</text>')
        if bar.held_back_minor:
            end = x(-bar.held_back_minor, bar.currency)
            shapes.append(
                f'<rect class="held" x="{min(end, zero):.1f}" y="{top + 3}" width="{abs(end - zero):.1f}" '
                f'height="{_ROW - 6}" fill="none" stroke="{COLOURS[Verdict.QUARANTINE]}" stroke-dasharray="3 2">'
                f"<title>held back by quarantine: {_amount(bar.held_back_minor, bar.currency)}</title></rect>"
            )
        end = x(bar.difference_minor, bar.currency)
        width = abs(end - zero)
        shapes.append(
            f'<rect class="diff {bar.verdict}" x="{min(end, zero):.1f}" y="{top + 6}" width="{max(width, 1.5):.1f}" '
            f'height="{_ROW - 12}" fill="{colour}"><title>{escape(bar.label)}: legacy '
            f"{_amount(bar.legacy_minor, bar.currency)}, v1 {_amount(bar.v1_minor, bar.currency)}</title></rect>"
        )
        text = _amount(bar.difference_minor, bar.currency, signed=True)
        extra = "; ".join(t for t in (share(bar) if bar.difference_minor else "", str(bar.verdict)) if t)
        shapes.append(
            f'<text x="{_LABEL + _PLOT + 8}" y="{mid + 4:.1f}" fill="{colour}">{text} <tspan fill="#52606d">'
            f"{escape(extra)}</tspan></text>"
        )
    return (
        f'<svg class="chart" id="{escape(chart_id)}" xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" '
        f'height="{height}" viewBox="0 0 {_WIDTH} {height}" role="img" '
        f'aria-label="difference v1 minus legacy per phase, symmetric log scale">{"".join(shapes)}</svg>'
    )


def _amount(minor: int | None, currency: str, *, signed: bool = False) -> str:
    return escape(amounts.signed(minor, currency) if signed else amounts.amount(minor, currency))


def _short(label: str, limit: int = 22) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"
