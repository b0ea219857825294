"""What the operator chose to carry: every faithful kind by default, ``--without`` to leave kinds behind, and
``--with`` for the extras that are sensitive or notify people.

A kind is named by its label with dashes (``budget-lines``, ``transaction-items``), derived from
``engine.kinds``, so a kind declared there can be left out without a line here. A kind another carried kind
needs cannot be left out alone (the other would have nothing to point at): the error names what to leave out
with it. What is left out is counted and reported as "not carried: left out by the operator", never dropped
silently (``Fate.LEFT_OUT``).
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

    def carries(self, kind: Kind) -> bool:
        return kind not in self.without

    def wants(self, extra: Extra) -> bool:
        return extra in self.extras

    @classmethod
    def of(cls, without: Iterable[str], extras: Iterable[str]) -> Choices:
        """The choices the options name; ConfigError for a name that is not a kind or an extra, or for a kind
        left out while a carried kind needs it."""
        left = _names(without)
        unknown = sorted(name for name in left if name not in _BY_NAME)
        if unknown:
            raise ConfigError(f"--without {', '.join(unknown)}: not a kind; choose from {', '.join(sorted(_BY_NAME))}")
        asked = _names(extras)
        known = sorted(extra.value for extra in Extra)
        strange = sorted(name for name in asked if name not in known)
        if strange:
            raise ConfigError(f"--with {', '.join(strange)}: not an extra; choose from {', '.join(known)}")
        out = frozenset(_BY_NAME[name].kind for name in left)
        _check_needs(out)
        return cls(out, frozenset(Extra(name) for name in asked))


def _names(given: Iterable[str]) -> list[str]:
    """The names given, each option value possibly a comma-separated list, as lower case."""
    return [name.strip().lower() for value in given for name in value.split(",") if name.strip()]


def _check_needs(out: frozenset[Kind]) -> None:
    """Refuse to leave a kind out while a kind that is still carried needs its v1 ids, and a kind written
    with another (split parts, with their transaction's bulk) apart from it."""
    for spec in KINDS:
        writer = next((s for s in KINDS if s.kind == spec.written_with), None)
        if writer is not None and (spec.kind in out) != (writer.kind in out):
            raise ConfigError(
                f"--without: {option_name(spec)} are written with {option_name(writer)}; leave both out or neither"
            )
        if spec.kind in out:
            continue
        missing = [need for need in spec.needs if need in out]
        if missing:
            names = ", ".join(option_name(s) for s in KINDS if s.kind in missing)
            raise ConfigError(
                f"--without {names}: {option_name(spec)} needs it; leave that out too "
                f"(--without {names},{option_name(spec)}) or carry both"
            )
