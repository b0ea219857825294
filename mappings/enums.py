"""Explicit tables between the two surfaces' enumerations, and the nearest-colour rule for tags.

Every table maps a legacy value to (v1 value, lossy?). A lossy entry is reported with the record, the old
value and the new one; a value missing from a table is a catalogue error, never a silent default.
"""

from __future__ import annotations

from typing import Final

# Legacy ActualType -> v1 manual TransactionType (A17): Saturation-branded rails collapse onto the plain rail.
ACTUAL_TYPES: Final[dict[str, tuple[str, bool]]] = {
    "ACH": ("ACH", False),
    "Cash": ("Cash", False),
    "Check": ("Check", False),
    "CreditCard": ("CreditCard", False),
    "Wire": ("Wire", False),
    "ETransfer": ("ETransfer", False),
    "Invoice": ("Invoice", False),
    "Projection": ("Projection", False),
    "TimeCard": ("TimeCard", False),
    "SaturationACH": ("ACH", True),
    "SaturationWire": ("Wire", True),
    "SaturationPCard": ("CreditCard", True),
}
DEFAULT_ACTUAL_TYPE: Final = "Invoice"
"""v1 requires a type; a legacy actual without one is sent as Invoice and reported as lossy (A31)."""

# Legacy ActualStatus -> v1 manual TransactionStatus (A17): manual transactions reach only posted|void|projected.
ACTUAL_STATUSES: Final[dict[str, tuple[str, bool]]] = {
    "Paid": ("posted", False),
    "Unpaid": ("posted", True),
    "Pending": ("posted", True),
    "NeedsReview": ("posted", True),
    "Refund": ("posted", True),
}
DEFAULT_ACTUAL_STATUS: Final = "posted"

# Legacy contact type -> v1 contact type (A07).
CONTACT_TYPES: Final[dict[str, str]] = {"Contractor": "contractor", "Employee": "employee", "Company": "company"}

# Legacy fringe units -> v1 calculationType (A12): same three meanings.
FRINGE_UNITS: Final[dict[str, str]] = {"percent": "percent", "flat": "flat", "total": "total"}

LINE_TYPES: Final = frozenset({"account", "line", "subtotal", "markup"})
PHASE_TYPES: Final = frozenset({"estimate", "actual", "committed", "rollup"})
MARKUP_TYPES: Final = frozenset({"percent", "flat"})
ROLLUP_OPERATIONS: Final = frozenset({"sum", "difference"})

# v1 TagColor names with their Tailwind 500 shade (A15), the reference point for the nearest-colour rule.
TAG_COLORS: Final[dict[str, tuple[int, int, int]]] = {
    "slate": (0x64, 0x74, 0x8B),
    "gray": (0x6B, 0x72, 0x80),
    "zinc": (0x71, 0x71, 0x7A),
    "red": (0xEF, 0x44, 0x44),
    "orange": (0xF9, 0x73, 0x16),
    "amber": (0xF5, 0x9E, 0x0B),
    "yellow": (0xEA, 0xB3, 0x08),
    "lime": (0x84, 0xCC, 0x16),
    "green": (0x22, 0xC5, 0x5E),
    "emerald": (0x10, 0xB9, 0x81),
    "teal": (0x14, 0xB8, 0xA6),
    "cyan": (0x06, 0xB6, 0xD4),
    "sky": (0x0E, 0xA5, 0xE9),
    "blue": (0x3B, 0x82, 0xF6),
    "indigo": (0x63, 0x66, 0xF1),
    "violet": (0x8B, 0x5C, 0xF6),
    "purple": (0xA8, 0x55, 0xF7),
    "pink": (0xEC, 0x48, 0x99),
    "rose": (0xF4, 0x3F, 0x5E),
}


def hex_rgb(color: str) -> tuple[int, int, int] | None:
    """``#RRGGBB`` as an RGB triple; None for anything else."""
    if len(color) != 7 or color[0] != "#":
        return None
    try:
        value = int(color[1:], 16)
    except ValueError:
        return None
    return (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF


def nearest_tag_color(rgb: tuple[int, int, int]) -> str:
    """The v1 TagColor nearest by squared RGB distance; ties go to the name first in TAG_COLORS (stable)."""

    def distance(name: str) -> int:
        ref = TAG_COLORS[name]
        return sum((a - b) ** 2 for a, b in zip(rgb, ref, strict=True))

    return min(TAG_COLORS, key=distance)


def exact_tag_color(rgb: tuple[int, int, int]) -> bool:
    """Whether the colour is exactly a v1 shade, so mapping it loses nothing."""
    return rgb in TAG_COLORS.values()
