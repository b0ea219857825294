"""The v1 surface's errors: one class per code, each rendered as the documented envelope.

Every error body is ``{success: false, code, message, requestId}`` (plus ``requiredAbility`` on
``permission_revoked`` and ``retryAfter`` on ``rate_limited``). The request id is unique per request and is
also sent as the ``X-Request-Id`` header, so a client can quote it either way. Every code is one of the
published ErrorCode values; where the description names no code for a failure, the nearest one is used (A57).

Tree (status -> code):

    V1Error
    ├── 400 ValidationError (validation), CursorInvalidError (cursor_invalid), ExpandInvalidError (expand_invalid)
    ├── 401 UnauthenticatedError, MissingAuthorizationError, InvalidTokenError, TokenRevokedError
    ├── 402 FeatureNotAvailableError (feature_not_available)
    ├── 403 PermissionRevokedError (requiredAbility), ForbiddenError (forbidden)
    ├── 404 NotFoundError (absent and not visible alike; also a method no operation takes)
    ├── 409 AccountCodeAmbiguousError, AccountPathAmbiguousError, IdempotencyConflictError,
    │       SourceNotManualError (source_not_postable), PoInvalidStatusError (po_invalid_status),
    │       AlreadyLinkedError (already_linked)
    ├── 413 BulkTooLargeError, BudgetTooLargeError
    ├── 422 UnprocessableError (validation: well formed, but names something absent)
    ├── 429 RateLimitedError
    └── 5xx InternalError, BadGatewayError and GatewayTimeoutError (temporarily_unavailable),
            TemporarilyUnavailableError, BudgetComputeTimeoutError
"""

from __future__ import annotations

import random
import secrets

from bridge.emulator.wire.json_bodies import V1JSONResponse

REQUEST_ID_HEADER = "X-Request-Id"


# Request ids identify, they guard nothing: drawn from a generator seeded once from the system's randomness
# rather than read from it on each request (a system call every request for 12 bytes).
_REQUEST_IDS = random.Random(secrets.randbits(128))


def new_request_id() -> str:
    """A fresh, unique id for one request (quoted in every error body and header): 24 hex digits."""
    return f"req_{_REQUEST_IDS.getrandbits(96):024x}"


class V1Error(Exception):
    """An error the v1 surface answers with: a status, a documented code and an actionable message."""

    status = 500
    code = "internal_error"

    def __init__(self, message: str, **extra: object) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra

    def body(self, request_id: str) -> dict[str, object]:
        """The documented error envelope."""
        return {"success": False, "code": self.code, "message": self.message, "requestId": request_id, **self.extra}

    def headers(self) -> dict[str, str]:
        """Extra response headers this error carries (Retry-After on 429)."""
        return {}

    def response(self, request_id: str) -> V1JSONResponse:
        """The HTTP response for this error."""
        return V1JSONResponse(
            self.body(request_id), status_code=self.status, headers={REQUEST_ID_HEADER: request_id, **self.headers()}
        )


class ValidationError(V1Error):
    status = 400
    code = "validation"


class CursorInvalidError(V1Error):
    status = 400
    code = "cursor_invalid"


class ExpandInvalidError(V1Error):
    status = 400
    code = "expand_invalid"


class UnauthenticatedError(V1Error):
    status = 401
    code = "unauthenticated"


class MissingAuthorizationError(V1Error):
    status = 401
    code = "missing_authorization"


class InvalidTokenError(V1Error):
    status = 401
    code = "invalid_token"


class TokenRevokedError(V1Error):
    status = 401
    code = "token_revoked"


class PermissionRevokedError(V1Error):
    status = 403
    code = "permission_revoked"

    def __init__(self, message: str, *, required_ability: str) -> None:
        super().__init__(message, requiredAbility=required_ability)


class NotFoundError(V1Error):
    status = 404
    code = "not_found"


class AccountCodeAmbiguousError(V1Error):
    status = 409
    code = "account_code_ambiguous"


class AccountPathAmbiguousError(V1Error):
    status = 409
    code = "account_path_ambiguous"


class IdempotencyConflictError(V1Error):
    status = 409
    code = "idempotency_conflict"


class SourceNotManualError(V1Error):
    """A change only a manual transaction takes, asked of one from a feed (A58)."""

    status = 409
    code = "source_not_postable"


class PoInvalidStatusError(V1Error):
    """A purchase-order write its status does not allow."""

    status = 409
    code = "po_invalid_status"


class AlreadyLinkedError(V1Error):
    """A transaction linked to another purchase order."""

    status = 409
    code = "already_linked"


class BulkTooLargeError(V1Error):
    status = 413
    code = "bulk_too_large"


class BudgetTooLargeError(V1Error):
    status = 413
    code = "budget_too_large"


class UnprocessableError(V1Error):
    """A well-formed write naming something that does not exist in the project (A33)."""

    status = 422
    code = "validation"


class RateLimitedError(V1Error):
    status = 429
    code = "rate_limited"

    def __init__(self, message: str, *, retry_after_header: str, retry_after_s: int) -> None:
        super().__init__(message, retryAfter=retry_after_s)
        self.retry_after_header = retry_after_header

    def headers(self) -> dict[str, str]:
        return {"Retry-After": self.retry_after_header}


class InternalError(V1Error):
    status = 500
    code = "internal_error"


class BadGatewayError(V1Error):
    status = 502
    code = "temporarily_unavailable"


class TemporarilyUnavailableError(V1Error):
    status = 503
    code = "temporarily_unavailable"


class GatewayTimeoutError(V1Error):
    status = 504
    code = "temporarily_unavailable"


class BudgetComputeTimeoutError(V1Error):
    status = 504
    code = "budget_compute_timeout"


class ForbiddenError(V1Error):
    """The token may write here, but not this: another author's comment body."""

    status = 403
    code = "forbidden"


class FeatureNotAvailableError(V1Error):
    """The workspace's plan does not carry the feature (rate packs)."""

    status = 402
    code = "feature_not_available"
