"""Every failure the bridge can meet, classified by what the operator (or the engine) should do about it.

The tree, by remedy (``bridge.cli`` alone turns a branch into an exit code)::

    BridgeError                      exit 4 unless a branch says otherwise
    ├── UsageError                   exit 2: fix the command line or the configuration, then run again
    │   └── ConfigError
    ├── RecordError                  the engine quarantines this record and carries on with the others; one
    │   │                            that escapes to the CLI was not handled where it should be (exit 4)
    │   ├── ValidationFailed         400 validation, 422, legacy 400
    │   ├── AmbiguousAccount         409 account_code_ambiguous / account_path_ambiguous
    │   ├── PayloadTooLarge          413 (a bulk or a budget too big for one request)
    │   ├── RecordConflict           legacy 409 (duplicate tag name and the like)
    │   └── NotFound                 404 (absent, or not visible to the credentials)
    ├── ResumableStop                exit 3: stop cleanly; the same command again (a `bridge run` resumes where
    │   │                            this one stopped, the reading commands start again)
    │   ├── Interrupted              exit 130: SIGINT/SIGTERM (Ctrl-C); nothing lost, run again
    │   ├── AuthenticationLost       exit 5: 401 (token revoked/invalid/missing, legacy key rejected), legacy 403
    │   │                            (workspace access restricted, A129); names the variable to fix
    │   ├── SourceUnreadable         a legacy read refused (400, 404, 409, 413): no record to quarantine
    │   ├── PermissionRevoked        v1 403 (carries requiredAbility when the service names it)
    │   ├── ServiceUnavailable       423 locked, or retries ended without success (deadline or attempts)
    │   └── RetryBudgetExhausted     too many retries in this run: the service is struggling, stop hammering
    ├── RetriableError               exit 3: the retry policy handles these; one escapes only inside a stop
    │   ├── RateLimited              429 (carries Retry-After in seconds)
    │   ├── ServerError              500, 502, 503, 504
    │   └── NetworkError             timeouts, resets, dropped connections
    └── FatalError                   exit 4: a contract break; never retried (an exception outside this tree
                                     is a bug: exit 70)
        ├── IdempotencyConflict      409 idempotency_conflict: one key was reused for a different request
        ├── CursorInvalid            400 cursor_invalid, a cursor handed out twice, or an empty page with a cursor
        └── UnexpectedResponse       a status or body the wire contract does not allow

The state store's errors (``state.errors.StateError``) hang under the same root, so every command meets one
tree. An error from an HTTP answer carries the surface, the status and the service's ``code`` beside its
message, for the log and for scripts; the message already names them for people.

Messages never carry secrets: they are built from the method, the path (ids only), the status, the
service's code and requestId, never from headers or query strings.
"""

# Leaf names state the condition (NotFound, RateLimited); the tree, not a suffix, says they are errors.
# ruff: noqa: N818

from __future__ import annotations

from typing import TypedDict, Unpack


class Origin(TypedDict, total=False):
    """Where an error came from, when a service said it: its requestId, surface, HTTP status and ``code``."""

    request_id: str | None
    surface: str | None
    status: int | None
    code: str | None


class BridgeError(Exception):
    """Base of every bridge failure: what happened and what to do, plus where it came from when a service said it.

    ``surface`` (``legacy`` or ``v1``), ``status`` and ``code`` are the HTTP answer's, when there was one.
    """

    remedy: str = "this is a bug in the bridge; report it with the log file attached"

    def __init__(self, message: str, **origin: Unpack[Origin]) -> None:
        self.message = message
        self.request_id = origin.get("request_id")
        self.surface = origin.get("surface")
        self.status = origin.get("status")
        self.code = origin.get("code")
        super().__init__(message)

    def __str__(self) -> str:
        suffix = f" (requestId {self.request_id})" if self.request_id else ""
        if not self.remedy:
            return f"{self.message}{suffix}"
        return f"{self.message}{suffix}. {self.remedy[0].upper()}{self.remedy[1:]}."


def origin_of(error: BridgeError) -> Origin:
    """The origin ``error`` carries, to pass on to an error that replaces it."""
    return Origin(request_id=error.request_id, surface=error.surface, status=error.status, code=error.code)


class UsageError(BridgeError):
    remedy = "fix the command line or configuration and run again"


class ConfigError(UsageError):
    remedy = "fix the setting named above (option, environment variable or --config file) and run again"


class RecordError(BridgeError):
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


class FeatureUnavailable(RecordError):
    """v1's 402 ``feature_not_available``: the workspace plan lacks what the record needs (rate packs, A87)."""

    remedy = "the record is not carried on this workspace plan; upgrade the plan, then rerun to carry it"


class ResumableStop(BridgeError):
    remedy = "fix the cause, then run the same command again"


class Interrupted(ResumableStop):
    """SIGINT or SIGTERM: the run stopped between two journal transitions and resumes from the journal."""

    remedy = "nothing is lost; run the same command again"


# Where each surface's credential is set (bridge.config reads these; tests/test_cli_errors.py holds them equal).
CREDENTIAL_VARIABLES = {"legacy": "BRIDGE_LEGACY_KEY", "v1": "BRIDGE_V1_TOKEN"}


class AuthenticationLost(ResumableStop):
    """The service refused the credential: a setting to fix, named by surface; the journal keeps what was done."""

    remedy = "issue a new key or token, set it in the environment, then run the same command again"

    def __init__(self, message: str, **origin: Unpack[Origin]) -> None:
        super().__init__(message, **origin)
        variable = CREDENTIAL_VARIABLES.get(self.surface or "")
        if variable is not None:
            credential = "key" if self.surface == "legacy" else "token"
            self.remedy = (
                f"set a valid {credential} in {variable} (or its --config file), then run the same command again"
            )


class SourceUnreadable(ResumableStop):
    remedy = (
        "no record was written for what could not be read; check the legacy URL and that the record still "
        "exists, then run the same command again"
    )


class PermissionRevoked(ResumableStop):
    remedy = "ask a workspace admin to restore the access named above, then run the same command again"

    def __init__(self, message: str, *, required_ability: str | None = None, **origin: Unpack[Origin]) -> None:
        self.required_ability = required_ability
        super().__init__(message, **origin)


class ServiceUnavailable(ResumableStop):
    remedy = "the service did not recover in time; run the same command again later"


class RetryBudgetExhausted(ResumableStop):
    remedy = "the service is failing too many requests; run the same command again later (or lower --concurrency)"


class RetriableError(BridgeError):
    remedy = "this is transient; run the same command again"


class RateLimited(RetriableError):
    def __init__(self, message: str, *, retry_after: float | None = None, **origin: Unpack[Origin]) -> None:
        self.retry_after = retry_after
        super().__init__(message, **origin)


class ServerError(RetriableError):
    pass


class NetworkError(RetriableError):
    def __init__(self, message: str, *, reached_server: bool = True, **origin: Unpack[Origin]) -> None:
        # False only when the request provably never left (connect failures): then even a keyless POST may repeat.
        self.reached_server = reached_server
        super().__init__(message, **origin)


class FatalError(BridgeError):
    pass


class IdempotencyConflict(FatalError):
    remedy = "an Idempotency-Key was reused for a different request: a bug in key derivation; report it, do not rerun"


class CursorInvalid(FatalError):
    remedy = "paging went wrong (filters changed or the service repeated a cursor); report it with the log file"


class UnexpectedResponse(FatalError):
    remedy = "the service answered outside the documented contract; report it with the log file and requestId"
