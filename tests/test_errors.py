"""Every documented status and code maps to the exception class of its remedy, with an actionable message."""

from __future__ import annotations

import click
import httpx
import pytest

from bridge import errors
from bridge.clients.http import Failure, Surface, error_for_status, error_for_transport, read_failure
from bridge.clients.retry import Timing
from bridge.config import Secret

V1_TABLE: list[tuple[int, str | None, type[errors.BridgeError]]] = [
    (400, "validation", errors.ValidationFailed),
    (400, "cursor_invalid", errors.CursorInvalid),
    (400, "expand_invalid", errors.UnexpectedResponse),
    (401, "unauthenticated", errors.AuthenticationLost),
    (401, "missing_authorization", errors.AuthenticationLost),
    (401, "invalid_token", errors.AuthenticationLost),
    (401, "token_revoked", errors.AuthenticationLost),
    (402, "feature_not_available", errors.FeatureUnavailable),
    (402, None, errors.PermissionRevoked),
    (403, "permission_revoked", errors.PermissionRevoked),
    (404, "not_found", errors.NotFound),
    (409, "account_code_ambiguous", errors.AmbiguousAccount),
    (409, "account_path_ambiguous", errors.AmbiguousAccount),
    (409, "idempotency_conflict", errors.IdempotencyConflict),
    (409, "already_linked", errors.RecordConflict),
    (413, None, errors.PayloadTooLarge),
    (413, "bulk_too_large", errors.PayloadTooLarge),
    (422, None, errors.ValidationFailed),
    (422, "field_read_only", errors.ValidationFailed),
    (423, "resource_locked", errors.ServiceUnavailable),
    (429, None, errors.RateLimited),
    (429, "rate_limited", errors.RateLimited),
    (500, "internal_error", errors.ServerError),
    (502, None, errors.ServerError),
    (503, "temporarily_unavailable", errors.ServerError),
    (504, None, errors.ServerError),
    (504, "budget_compute_timeout", errors.ServerError),
    (418, None, errors.UnexpectedResponse),
]

LEGACY_TABLE: list[tuple[int, type[errors.BridgeError]]] = [
    (400, errors.ValidationFailed),
    (401, errors.AuthenticationLost),
    # A legacy key has no per-record rights: 403 "workspace access restricted" refuses the key itself (A129).
    (403, errors.AuthenticationLost),
    (404, errors.NotFound),
    (409, errors.RecordConflict),
    (413, errors.PayloadTooLarge),
    (429, errors.RateLimited),
    (500, errors.ServerError),
    (502, errors.ServerError),
    (503, errors.ServerError),
    (504, errors.ServerError),
]

REMEDY_EXIT = [
    # A record error is quarantined where it happens; one that reaches the CLI was not handled: a bug.
    (errors.RecordError, 4),
    (errors.UsageError, 2),
    (errors.ConfigError, 2),
    (errors.ResumableStop, 3),
    (errors.RetriableError, 3),
    (errors.FatalError, 4),
    (errors.BridgeError, 4),
]


@pytest.mark.parametrize(("status", "code", "expected"), V1_TABLE)
def test_v1_status_and_code_map_to_their_remedy(status: int, code: str | None, expected: type[Exception]) -> None:
    """Each v1 status + code the documents name becomes exactly the class of its remedy."""
    error = error_for_status("v1", "POST /projects/p/budget/lines", Failure(status, code, "msg", "req-1"))
    assert type(error) is expected
    assert error.request_id == "req-1"


@pytest.mark.parametrize(("status", "expected"), LEGACY_TABLE)
def test_legacy_status_maps_to_its_remedy(status: int, expected: type[Exception]) -> None:
    """Legacy errors carry no documented code, so the status alone decides the remedy (A01)."""
    assert type(error_for_status("legacy", "GET /projects", Failure(status))) is expected


@pytest.mark.parametrize(("cls", "exit_code"), REMEDY_EXIT)
def test_each_remedy_has_its_cli_exit_code(cls: type[errors.BridgeError], exit_code: int) -> None:
    """The CLI exit code says the remedy: 2 usage, 3 resumable stop, 4 fatal (1 is never an error's)."""
    from bridge.cli import exit_code as decided

    assert decided(cls("x")) == exit_code


def test_message_names_call_code_request_id_and_next_step() -> None:
    """A user reading the message learns the call, the service's code, the requestId and what to do next."""
    error = error_for_status("v1", "GET /me", Failure(401, "token_revoked", "Token was revoked", "req-42"))
    text = str(error)
    assert "GET /me" in text
    assert "token_revoked" in text
    assert "req-42" in text
    assert "run the same command again" in text


def test_permission_revoked_carries_required_ability() -> None:
    """The ability the caller lost is kept on the exception and shown in its message."""
    error = error_for_status(
        "v1", "POST /projects", Failure(403, "permission_revoked", required_ability="create:Project")
    )
    assert isinstance(error, errors.PermissionRevoked)
    assert error.required_ability == "create:Project"
    assert "create:Project" in str(error)


@pytest.mark.parametrize(
    ("surface", "body"),
    [
        ("v1", {"success": False, "code": "rate_limited", "message": "slow down", "requestId": "r9", "retryAfter": 7}),
        ("legacy", {"error": "Too many requests", "code": "rate_limited"}),
    ],
)
def test_read_failure_takes_code_request_id_and_longest_retry_after(surface: Surface, body: dict[str, object]) -> None:
    """The body's code and requestId are read; Retry-After header and body are merged, the longer wins."""
    response = httpx.Response(429, json=body, headers={"Retry-After": "3", "X-Request-Id": "hdr"})
    failure = read_failure(response, surface, Timing(), ())
    assert failure.code == "rate_limited"
    assert failure.request_id == ("r9" if surface == "v1" else "hdr")
    assert failure.retry_after == (7.0 if surface == "v1" else 3.0)


def test_service_message_echoing_a_secret_is_masked() -> None:
    """A service that echoes the credential in its message does not make the bridge repeat it."""
    secret = Secret("sk_live_canary_0123456789abcdef")
    response = httpx.Response(401, json={"code": "invalid_token", "message": f"bad token {secret.reveal()}"})
    failure = read_failure(response, "v1", Timing(), (secret,))
    assert secret.reveal() not in failure.message
    assert secret.masked in failure.message


@pytest.mark.parametrize(
    ("exc", "reached"),
    [
        (httpx.ConnectError("refused"), False),
        (httpx.ConnectTimeout("slow"), False),
        (httpx.PoolTimeout("busy"), False),
        (httpx.ReadTimeout("slow"), True),
        (httpx.RemoteProtocolError("dropped"), True),
        (httpx.ReadError("reset"), True),
    ],
)
def test_transport_errors_are_retriable_and_say_whether_sent(exc: httpx.TransportError, reached: bool) -> None:
    """Timeouts and dropped connections are retriable; only connect failures prove nothing was sent."""
    error = error_for_transport(exc, "v1 POST /transactions/bulk", "v1")
    assert isinstance(error, errors.NetworkError)
    assert error.reached_server is reached


@pytest.mark.parametrize(
    ("error", "exit_code", "label"),
    [
        (errors.ConfigError("no v1 token"), 2, "error: "),
        (errors.ValidationFailed("bad line"), 4, "fatal: "),
        (errors.RetryBudgetExhausted("too many retries"), 3, "stopped: "),
        (errors.IdempotencyConflict("key reused"), 4, "fatal: "),
        (ValueError("an unforeseen \x1b[2J bug"), 70, "bug: an unexpected error in the bridge"),
    ],
)
def test_cli_turns_an_error_into_message_and_exit_code(
    error: Exception, exit_code: int, label: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """`bridge` prints the message and remedy on stderr (a bug: where its traceback went) and exits with the
    remedy's code; never a traceback, never a raw escape sequence."""
    from bridge import cli

    def failing() -> None:
        raise error

    cli.cli.add_command(click.Command("boom", callback=failing))
    try:
        with pytest.raises(SystemExit) as exited:
            cli.cli.main(["boom"])
    finally:
        cli.cli.commands.pop("boom")
    assert exited.value.code == exit_code
    err = capfd.readouterr().err
    assert err.startswith(label)
    assert "Traceback" not in err
    assert "\x1b" not in err
