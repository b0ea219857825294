"""Domain errors the emulator's store raises; each surface maps them to its own status and body.

EmulatorError                  any refusal by the service core
+-- NotFound                   no such record (or not visible)       (404)
+-- Conflict                   duplicate or state conflict           (409)
+-- InvalidInput               a field's value is refused            (400 legacy / 400-422 v1)
|   +-- FormulaError           a formula cannot be parsed or evaluated
+-- SpaceNotEmpty              soft delete of a space holding active projects (400)

The legacy surface adds its own (its key check, rate limit and batch limit: ``legacy.errors``).
"""

from __future__ import annotations


class EmulatorError(Exception):
    """Base of every store refusal. ``code`` is a stable machine word; the message says what to change."""

    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(EmulatorError):  # noqa: N818 - named for the outcome, as the surfaces' codes are
    code = "not_found"

    def __init__(self, kind: str, ref: str) -> None:
        super().__init__(f"{kind} {ref!r} does not exist; check the id (and idMode) and retry")
        self.kind = kind
        self.ref = ref


class Conflict(EmulatorError):  # noqa: N818 - named for the outcome, as the surfaces' codes are
    code = "conflict"


class InvalidInput(EmulatorError):  # noqa: N818 - named for the outcome, as the surfaces' codes are
    code = "validation"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class FormulaError(InvalidInput):
    code = "invalid_formula"


class SpaceNotEmpty(EmulatorError):  # noqa: N818 - named for the outcome, as the surfaces' codes are
    code = "space_not_empty"
