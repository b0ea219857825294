"""Logging, configured once: structlog events with stable dotted names, JSON lines to a file, a readable console.

Every record, structlog's and the standard library's (httpx, httpcore, uvicorn), passes one redaction step
before it is rendered: the run's secrets (raw, base64, hex and URL-encoded), values of credential-named keys
and any ``Bearer ...`` / ``X-API-Key: ...`` text are masked. ``SecretFilter`` applies the same rule to
third-party records, so the legacy key and the bearer token never print, even at DEBUG.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO
from urllib.parse import quote, quote_plus

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

from bridge.config import Secret
from bridge.files import create_private

MASK = "****"
ELLIPSIS = "\u2026"
# The shortest head of a secret form masked before a cut: shorter ones are too common in ordinary text.
MIN_CUT_HEAD = 4
_CREDENTIAL_KEYS = frozenset(
    {"authorization", "x-api-key", "api_key", "apikey", "token", "secret", "password", "legacy_key", "idempotency-key"}
)
_CREDENTIAL_TEXT = re.compile(r"(?i)(bearer\s+|x-api-key[\"']?\s*[:=]\s*[\"']?)[^\s'\",)]+")
_THIRD_PARTY = ("httpx", "httpcore", "aiohttp", "uvicorn", "hpack")
_known: set[str] = set()
_installed: list[logging.Handler] = []


def _forms(value: str) -> set[str]:
    raw = value.encode()
    return {
        value,
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
        base64.b64encode(raw).decode().rstrip("="),
        raw.hex(),
        quote(value, safe=""),
        quote_plus(value),
    } - {""}


def register_secret(secret: Secret) -> None:
    """Mask this secret (and its encoded forms) in every log record from now on."""
    _known.update(_forms(secret.reveal()))


def redact_text(text: str) -> str:
    """``text`` with every known secret form and every credential-looking header value masked."""
    # Longest first, so a secret's base64 form is not half-masked by a shorter secret inside it.
    for form in sorted(_known, key=len, reverse=True):
        if form in text:
            text = text.replace(form, MASK)
    if ELLIPSIS in text:
        text = _mask_cut_forms(text)
    return _CREDENTIAL_TEXT.sub(lambda match: match.group(1) + MASK, text)


def _mask_cut_forms(text: str) -> str:
    """Mask the start of a secret form that a cut ("…") left behind: the mappings shorten a long source value
    before anything knows the run's secrets, so a form straddling the cut survives only as its head."""
    for form in sorted(_known, key=len, reverse=True):
        for length in range(len(form) - 1, MIN_CUT_HEAD - 1, -1):
            head = form[:length] + ELLIPSIS
            if head in text:
                text = text.replace(head, MASK + ELLIPSIS)
                break
    return text


def _redact_value(key: str, value: object) -> object:
    if key.lower() in _CREDENTIAL_KEYS and value is not None:
        return MASK
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: _redact_value(str(k), v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_value(key, item) for item in value]
    if isinstance(value, bytes):
        return redact_text(value.decode("utf-8", "replace"))
    if isinstance(value, int | float | bool) or value is None:
        return value
    return redact_text(str(value))


def redact(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
    """The structlog processor: every value of the event, nested ones too, passed through the redaction rule."""
    return {key: _redact_value(key, value) for key, value in event_dict.items()}


class SecretFilter(logging.Filter):
    """Rewrites a standard-library record's message (with its arguments merged in) through the redaction rule."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, dict):
            # A structlog event on its way to ProcessorFormatter: the redact processor handles it there.
            return True
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            message = str(record.msg)
        record.msg = redact_text(message)
        record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


def _drop_color_message(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
    # uvicorn duplicates its message with ANSI colour codes under this key.
    event_dict.pop("color_message", None)
    return event_dict


_SHARED: list[Processor] = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
    structlog.processors.format_exc_info,
]
_FOREIGN: list[Processor] = [*_SHARED, structlog.stdlib.ExtraAdder(), _drop_color_message, redact]


def _handler(stream: logging.Handler, renderer: Processor, *before: Processor) -> logging.Handler:
    stream.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=_FOREIGN,
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, redact, *before, renderer],
        )
    )
    stream.addFilter(SecretFilter())
    return stream


def _no_traceback(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
    """A traceback never reaches the terminal: the log file has it, and the CLI says where."""
    event_dict.pop("exception", None)
    return event_dict


def log_file() -> Path | None:
    """The JSON-lines log file events go to now, if one was configured."""
    files = [h for h in _installed if isinstance(h, logging.FileHandler)]
    return Path(files[-1].baseFilename) if files else None


def configure_logging(
    level: str = "INFO",
    *,
    log_file: Path | None = None,
    secrets: Iterable[Secret] = (),
    console: TextIO | None = None,
    console_level: str | None = None,
) -> None:
    """Route every logger through redaction to a console (stderr) and, if given, a JSON-lines file (created 0600).

    Calling it again replaces the handlers it installed before, so tests and the CLI may reconfigure; secrets
    accumulate.
    """
    for secret in secrets:
        register_secret(secret)
    root = logging.getLogger()
    # Only the handlers installed here are replaced: a host's own (pytest's capture, say) stay in place.
    while _installed:
        old = _installed.pop()
        root.removeHandler(old)
        old.close()
    terminal = _handler(
        logging.StreamHandler(console or sys.stderr), structlog.dev.ConsoleRenderer(colors=False), _no_traceback
    )
    # The terminal may show less than the file (warnings only, say, so progress bars stay readable).
    terminal.setLevel((console_level or level).upper())
    _installed.append(terminal)
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        # A new log file is the bridge's own, 0600; an existing one (a log kept across runs, /dev/null, a FIFO
        # a shipper reads) is appended to as it is: the bridge chmods only files it creates.
        with contextlib.suppress(FileExistsError):
            create_private(log_file, b"")
        _installed.append(
            _handler(logging.FileHandler(log_file, encoding="utf-8"), structlog.processors.JSONRenderer())
        )
    for handler in _installed:
        root.addHandler(handler)
    root.setLevel(level.upper())
    # httpx says every request at INFO, which `bridge.http.response` already says at DEBUG (with the request
    # id): at INFO a fleet worker's log held one such line per request, each redacted and rendered for nothing.
    logging.getLogger("httpx").setLevel(logging.DEBUG if root.level <= logging.DEBUG else logging.WARNING)
    for name in _THIRD_PARTY:
        third_party = logging.getLogger(name)
        if not any(isinstance(f, SecretFilter) for f in third_party.filters):
            third_party.addFilter(SecretFilter())
    structlog.configure(
        # An event below the level is dropped before the processors stamp and format it (a debug event per
        # request otherwise cost 17 us for nothing).
        processors=[structlog.stdlib.filter_by_level, *_SHARED, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
