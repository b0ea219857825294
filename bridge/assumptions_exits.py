"""Guesses behind how a command ends (issue 33, point 3): which answers are a refused credential."""

from __future__ import annotations

from bridge.assumption import Assumption

HOW_COMMANDS_END: tuple[Assumption, ...] = (
    Assumption(
        "A129",
        "a legacy 403 refuses the key",
        "A legacy 403 ('workspace access restricted') refuses the key's access to its workspace, not one "
        "record: a legacy key carries no per-record rights, so no other call with it would succeed. The command "
        "stops as on a 401: exit 5 naming BRIDGE_LEGACY_KEY, never 'resume'; the fix is a key with access, or an "
        "admin lifting the restriction. A v1 403 names an ability and stays a revoked permission (exit 3).",
        "L-SEED errors table: 403 'workspace access restricted'; legacy.yaml publishes no 403 on any operation "
        "and no permission model for keys.",
        ("clients.http", "cli"),
    ),
)
