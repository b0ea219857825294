"""Emulator fixtures shared by every test area (owned by the emulator engineers)."""
