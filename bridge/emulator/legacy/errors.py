"""The legacy surface's own refusals, and the status every refusal is answered with (A01).

The core's refusals (``core.errors``) and these all become the A01 body ``{error, code, details?}``
(``legacy.routing.legacy_error``) with the status the legacy document names:

    EmulatorError (core)
    +-- Unauthenticated     no or unknown X-API-Key                    401
    +-- AccessRestricted    key valid, workspace access restricted     403
    +-- RateLimited         the key's request budget is spent (A02)    429 with Retry-After
    +-- TooLarge            a batch over its limit                     413
    (core) NotFound 404, Conflict 409, InvalidInput 400, SpaceNotEmpty 400
"""

from __future__ import annotations

from bridge.emulator.core.errors import Conflict, EmulatorError, InvalidInput, NotFound, SpaceNotEmpty


class Unauthenticated(EmulatorError):  # noqa: N818 - named for the outcome, as the surfaces' codes are
    code = "unauthorized"


class AccessRestricted(EmulatorError):  # noqa: N818 - named for the outcome, as the surfaces' codes are
    code = "forbidden"


class RateLimited(EmulatorError):  # noqa: N818 - named for the outcome, as the surfaces' codes are
    code = "rate_limited"

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many requests; retry after {retry_after} s")
        self.retry_after = retry_after


class TooLarge(EmulatorError):  # noqa: N818 - named for the outcome, as the surfaces' codes are
    code = "payload_too_large"


STATUS_OF: tuple[tuple[type[EmulatorError], int], ...] = (
    (Unauthenticated, 401),
    (AccessRestricted, 403),
    (NotFound, 404),
    (Conflict, 409),
    (RateLimited, 429),
    (TooLarge, 413),
    (InvalidInput, 400),
    (SpaceNotEmpty, 400),
)


def status_of(exc: EmulatorError) -> int:
    """The status the legacy document names for a refusal of this class (500 for one it does not know)."""
    return next((code for cls, code in STATUS_OF if isinstance(exc, cls)), 500)
