"""Every failure the bridge can meet, classified by what the operator (or the engine) should do about it.

The tree, by remedy::

    BridgeError                      exit 4 unless a branch says otherwise
    ├── UsageError                   exit 2: fix the command line or the configuration, then run again
    │   └── ConfigError
    ├── RecordError                  exit 1: quarantine this record, carry on with the others
    │   ├── ValidationFailed         400 validation, 422, legacy 400
    │   ├── AmbiguousAccount         409 account_code_ambiguous / account_path_ambiguous
    │   ├── PayloadTooLarge          413 (a bulk or a budget too big for one request)
    │   ├── RecordConflict           legacy 409 (duplicate tag name and the like)
    │   └── NotFound                 404 (absent, or not visible to the credentials)
    ├── ResumableStop                exit 3: stop cleanly; a later `bridge run` resumes where this one stopped
    │   ├── AuthenticationLost       401 (token revoked/invalid/missing, legacy key rejected)
    │   ├── PermissionRevoked        403 (carries requiredAbility when the service names it)
    │   ├── ServiceUnavailable       423 locked, or retries ended without success (deadline or attempts)
    │   └── RetryBudgetExhausted     too many retries in this run: the service is struggling, stop hammering
    ├── RetriableError               exit 3: the retry policy handles these; one escapes only inside a stop
    │   ├── RateLimited              429 (carries Retry-After in seconds)
    │   ├── ServerError              500, 502, 503, 504
    │   └── NetworkError             timeouts, resets, dropped connections
    └── FatalError                   exit 4: a bug in the bridge or a contract break; never retried
        ├── IdempotencyConflict      409 idempotency_conflict: one key was reused for a different request
        ├── CursorInvalid            400 cursor_invalid, or a cursor the service handed out twice
        └── UnexpectedResponse       a status or body the wire contract does not allow

Messages never carry secrets: they are built from the method, the path (ids only), the status, the
service's code and requestId, never from headers or query strings.
"""

# Leaf names state the condition (NotFound, RateLimited); the tree, not a suffix, says they are errors.
# ruff: noqa: N818

from __future__ import annotations


class BridgeError(Exception):
    """Base of every bridge failure: a message saying what happened and what to do, plus the requestId."""

    exit_code: int = 4
    remedy: str = "this is a bug in the bridge; report it with the log file attached"

    def __init__(self, message: str, *, request_id: str | None = None) -> None:
        self.message = message
        self.request_id = request_id
        super().__init__(message)

    def __str__(self) -> str:
        suffix = f" (requestId {self.request_id})" if self.request_id else ""
        return f"{self.message}{suffix}. {self.remedy[0].upper()}{self.remedy[1:]}."


class UsageError(BridgeError):
    exit_code = 2
    remedy = "fix the command line or configuration and run again"


class ConfigError(UsageError):
    remedy = "fix the setting named above (option, environment variable or --config file) and run again"


class RecordError(BridgeError):
    exit_code = 1
    remedy = "the record is quarantined; fix it at the source or in the mapping, then rerun to retry it"


class ValidationFailed(RecordError):
    pass


class AmbiguousAccount(RecordError):
    remedy = "select the account by line id instead of its number or path; the record is quarantined"


class PayloadTooLarge(RecordError):
    remedy = "send it in smaller parts (lower the batch size); the record is quarantined until then"


class RecordConflict(RecordError):
    pass


class NotFound(RecordError):
    remedy = "check the id exists and is visible to these credentials; the record is quarantined"


class ResumableStop(BridgeError):
    exit_code = 3
    remedy = "the run stopped cleanly; fix the cause, then run the same command again to resume"


class AuthenticationLost(ResumableStop):
    remedy = "issue a new key or token, set it in the environment, then run the same command again to resume"


class PermissionRevoked(ResumableStop):
    remedy = "ask a workspace admin to restore the access named above, then run the same command again to resume"

    def __init__(self, message: str, *, request_id: str | None = None, required_ability: str | None = None) -> None:
        self.required_ability = required_ability
        super().__init__(message, request_id=request_id)


class ServiceUnavailable(ResumableStop):
    remedy = "the service did not recover in time; run the same command again later to resume"


class RetryBudgetExhausted(ResumableStop):
    remedy = "the service is failing too many requests; run the same command again later (or lower --concurrency)"


class RetriableError(BridgeError):
    exit_code = 3
    remedy = "this is transient; run the same command again to resume"


class RateLimited(RetriableError):
    def __init__(self, message: str, *, request_id: str | None = None, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message, request_id=request_id)


class ServerError(RetriableError):
    pass


class NetworkError(RetriableError):
    def __init__(self, message: str, *, request_id: str | None = None, reached_server: bool = True) -> None:
        # False only when the request provably never left (connect failures): then even a keyless POST may repeat.
        self.reached_server = reached_server
        super().__init__(message, request_id=request_id)


class FatalError(BridgeError):
    exit_code = 4


class IdempotencyConflict(FatalError):
    remedy = "an Idempotency-Key was reused for a different request: a bug in key derivation; report it, do not rerun"


class CursorInvalid(FatalError):
    remedy = "paging went wrong (filters changed or the service repeated a cursor); report it with the log file"


class UnexpectedResponse(FatalError):
    remedy = "the service answered outside the documented contract; report it with the log file and requestId"
