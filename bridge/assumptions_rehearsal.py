"""The guesses of an operator's day (issue 33): rehearsals on a kept emulator, and what `bridge status` reads
(A126-A128)."""

from __future__ import annotations

from bridge.assumption import Assumption

REHEARSAL: tuple[Assumption, ...] = (
    Assumption(
        "A126",
        "what a killed emulator loses",
        "`bridge emulate --state-dir DIR` writes one snapshot of what it serves (workspaces, tokens, stored "
        "idempotent answers, cursor secret, rate packs) when the folder is new, 5 s after a request that may have "
        "changed something (later changes in that window ride along), and at a clean stop; a SIGKILLed emulator "
        "loses at most the last 5 s of writes. Request counters, the fault plan and webhook subscriptions are "
        "not kept.",
        "the issue asks that key, token and data survive restarts; it names no durability for a killed emulator.",
        ("emulator.control.persist",),
    ),
    Assumption(
        "A127",
        "the last verify verdict `bridge status` shows",
        "`bridge verify` only reads the state, so `bridge status` finds the last verdict in the newest "
        "reconciliation.json under the report directory (--report-dir, else the settings' report_dir: where "
        "verify writes by default); a verify written elsewhere is not seen, and status says none was found.",
        "the issue asks for the last verify verdict in status' opening line; the state does not record verifies.",
        ("commands.state",),
    ),
)
