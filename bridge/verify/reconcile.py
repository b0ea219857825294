"""``verify()``: read both sides for every selected project, compare, close the ledger, build the report.

Every selected legacy project is read (all of them, or the ``--project`` ones), migrated or not, so the
ledger counts the whole source. A migrated one (the crosswalk names its v1 project) is compared with v1; one
that never reached v1 is reported with its legacy figures, held back by quarantine when a refused record
keeps it off v1 (``heldback.py``), missing otherwise. The workspace library items the runs wrote are compared
with what v1 holds now. Only the state file is trusted for identity (which v1 object a legacy record became);
every amount is read from the two surfaces as they compute it now. Nothing here writes to either surface.

Each project's comparison returns its findings (``findings.py``), and so does the library comparison;
``fold`` alone counts them. A project's actuals are compared a window at a time (``actuals.py``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import httpx
import structlog

from bridge.clients.http import RunControls
from bridge.clients.legacy import open_legacy
from bridge.clients.v1 import open_v1
from bridge.clients.wire import AiohttpTransport
from bridge.config import Settings
from bridge.engine.choices import Choices, Extra
from bridge.engine.preflight import check_workspaces
from bridge.engine.run import Transports
from bridge.errors import ConfigError
from bridge.verify.options import VerifyOptions
from bridge.verify.schema import Reconciliation
from bridge.verify.verifier import Verifier
from state import StateStore, open_state

# The entry point and its options (the options are the verifier's own, named here for callers).
__all__ = ["CountingTransport", "VerifyOptions", "migration_name", "verify"]

log = structlog.get_logger(__name__)


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts the requests one surface sends (retries included) for the report and the benchmark."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.count = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.count += 1
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def verify(
    settings: Settings,
    options: VerifyOptions,
    transports: Transports | None = None,
    controls: RunControls | None = None,
) -> Reconciliation:
    """Verify the migration the settings describe; raises a BridgeError when it cannot finish.

    ``transports`` and ``controls`` are the test seams (in-process emulator, a clock that never sleeps).
    """
    legacy_url, legacy_key = settings.require_legacy()
    v1_url, token = settings.require_v1()
    choices = Choices.of(settings.without, settings.extras)
    options = replace(
        options,
        left_out=options.left_out | choices.without,
        contact_private=options.contact_private or choices.wants(Extra.CONTACT_PRIVATE),
    )
    state = str(settings.state)
    if "://" not in state and not Path(state).exists():
        raise ConfigError(
            f"no state file at {settings.state}: verification follows the crosswalk of a run; "
            "pass --state (or BRIDGE_STATE) pointing at the state file `bridge run` wrote"
        )
    wires = transports or Transports()
    counters = {
        "legacy": CountingTransport(wires.legacy or AiohttpTransport()),
        "v1": CountingTransport(wires.v1 or AiohttpTransport()),
    }
    controls = controls or RunControls.of(settings)
    store = open_state(state, read_only=True, migration=settings.migration)
    try:
        async with (
            open_legacy(
                legacy_url, legacy_key, controls, transport=counters["legacy"], timeout=settings.request_timeout
            ) as legacy,
            open_v1(v1_url, token, controls, transport=counters["v1"], timeout=settings.request_timeout) as v1,
        ):
            # Credentials of another workspace would compare the wrong two sides: refused before any total is read.
            await check_workspaces(legacy, v1, store, legacy_url)
            verifier = Verifier(legacy, v1, store, options, spool=settings.spool())
            report = await verifier.run(migration_name(settings, store))
    finally:
        store.close()
    return report.model_copy(update={"requests": {name: c.count for name, c in counters.items()}})


def migration_name(settings: Settings, store: StateStore) -> str:
    """The --migration name, else the name the last run recorded (the engine derives one from both workspaces)."""
    if settings.migration != "default":
        return settings.migration
    last = store.runs.last_runs(1)
    return last[0].migration if last else settings.migration
