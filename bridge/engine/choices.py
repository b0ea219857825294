"""What the operator chose to carry: every faithful kind by default, ``--without`` to leave kinds behind, and
``--with`` for the extras that are sensitive or notify people.

A kind is named by its label with dashes (``budget-lines``, ``transaction-items``), derived from
``engine.kinds``, so a kind declared there can be left out without a line here. A kind left out takes with it
the kinds that cannot go without it (a purchase order's links to transactions go with the transactions), and
the plan names them. What is left out is counted and reported as "not carried: left out by the operator",
never dropped silently (``Fate.LEFT_OUT``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from bridge.engine.kinds import KINDS, KindSpec
from bridge.errors import ConfigError
from mappings.kinds import Kind

LEFT_OUT = "left out by the operator (--without)"


class Extra(StrEnum):
    """What is carried only when asked: it exposes private data or sets people to work."""

    # Contacts' tax documents (W-9s and the like) hold full tax ids.
    TAX_DOCUMENTS = "tax-documents"
    # Contacts' phone and address (legacy secureInfo): personal data.
    CONTACT_PRIVATE = "contact-private"
    # Submitting the draft purchase orders into v1's approval flow notifies the approvers.
    SUBMIT_PENDING = "submit-pending"


def option_name(spec: KindSpec) -> str:
    """How ``--without`` names a kind: its label with dashes."""
    return spec.label.replace(" ", "-")


_BY_NAME = {option_name(spec): spec for spec in KINDS}


@dataclass(frozen=True, slots=True)
class Choices:
    """The kinds left behind and the extras asked for."""

    without: frozenset[Kind] = frozenset()
    extras: frozenset[Extra] = frozenset()
    # The kinds the operator named; ``without`` also holds the kinds that cannot go without them.
    asked: frozenset[Kind] = frozenset()

    def carries(self, kind: Kind) -> bool:
        return kind not in self.without

    def wants(self, extra: Extra) -> bool:
        return extra in self.extras

    @classmethod
    def of(cls, without: Iterable[str], extras: Iterable[str]) -> Choices:
        """The choices the options name (a kind left out takes with it the kinds that cannot go without it);
        ConfigError for a name that is not a kind or an extra."""
        left = _names(without)
        unknown = sorted(name for name in left if name not in _BY_NAME)
        if unknown:
            raise ConfigError(f"--without {', '.join(unknown)}: not a kind; choose from {', '.join(sorted(_BY_NAME))}")
        asked = _names(extras)
        known = sorted(extra.value for extra in Extra)
        strange = sorted(name for name in asked if name not in known)
        if strange:
            raise ConfigError(f"--with {', '.join(strange)}: not an extra; choose from {', '.join(known)}")
        asked_out = frozenset(_BY_NAME[name].kind for name in left)
        return cls(_with_dependents(asked_out), frozenset(Extra(name) for name in asked), asked_out)


def _names(given: Iterable[str]) -> list[str]:
    """The names given, each option value possibly a comma-separated list, as lower case."""
    return [name.strip().lower() for value in given for name in value.split(",") if name.strip()]


def _with_dependents(out: frozenset[Kind]) -> frozenset[Kind]:
    """``out`` and every kind that cannot go without one of them: a kind that needs its v1 ids (a link needs
    its transaction), and a kind written with it or that it is written with (split parts and their
    transaction's bulk), until nothing more follows."""
    left = set(out)
    grown = True
    while grown:
        grown = False
        for spec in KINDS:
            if spec.kind in left:
                continue
            tied = {*spec.needs, *((spec.written_with,) if spec.written_with else ())}
            tied |= {s.kind for s in KINDS if s.written_with == spec.kind}
            if tied & left:
                left.add(spec.kind)
                grown = True
    return frozenset(left)
