"""The documented-codes list is complete: see tests/emulator/documented_codes.py."""

from __future__ import annotations

from tests.emulator.documented_codes import test_every_documented_code_is_produced

__all__ = ["test_every_documented_code_is_produced"]
