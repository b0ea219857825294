"""The emulator's layout holds: imports point down, the product never reaches the emulator, modules stay small.

Imports are read with ``ast`` from every module's source, function-local ones included, so a lazy import
counts like any other. The packages: ``core`` (the store), the two surfaces ``legacy`` and ``v1``, ``wire``
(what the surfaces write alike), ``control`` (``/_emulator``, faults, serving) and ``app`` over them all.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from fastapi import FastAPI

from bridge.cli import SUBCOMMANDS
from bridge.emulator.control.state import EmulatorState
from bridge.emulator.legacy.routing import LegacyContext
from bridge.emulator.v1.context import V1Context

REPO = Path(__file__).resolve().parents[2]
EMULATOR = REPO / "bridge" / "emulator"
PRODUCT = (REPO / "bridge", REPO / "mappings", REPO / "state")
# The commands that serve the emulator: the only product modules that may import it.
SERVING_COMMANDS = frozenset({"bridge.commands.demo"})
MAX_LINES = 500
# package -> the emulator packages it must never import. ``control`` sits over both surfaces (and its serving
# module over the app it serves), so it may import them all.
FORBIDDEN = {
    "core": ("legacy", "v1", "control", "wire", "app"),
    "wire": ("core", "legacy", "v1", "control", "app"),
    "legacy": ("v1", "control", "app"),
    "v1": ("legacy", "control", "app"),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports, anywhere in it: ``from a import b`` names both ``a`` and ``a.b`` (``b``
    may be a module)."""
    package = _module_name(path).rpartition(".")[0] if path.name != "__init__.py" else _module_name(path)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def _modules(*roots: Path) -> list[Path]:
    return sorted(path for root in roots for path in root.rglob("*.py"))


def _package(module: str) -> str:
    """The emulator package a module is in (``core``, ``v1``...), or ``app`` for the top modules."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 else "app"


def _within(module: str, package: str) -> bool:
    prefix = f"bridge.emulator.{package}"
    return module == prefix or module.startswith(prefix + ".")


@pytest.mark.parametrize("path", _modules(EMULATOR), ids=lambda p: str(p.relative_to(EMULATOR)))
def test_emulator_imports_point_down(path: Path) -> None:
    """The core imports no surface, no wire format and no control; the surfaces never import each other (nor
    the control API over them, nor the app); the wire formats import nothing of the emulator."""
    package = _package(_module_name(path))
    wrong = sorted({m for m in _imports(path) for other in FORBIDDEN.get(package, ()) if _within(m, other)})
    assert not wrong, f"{package} must not import {wrong}"


@pytest.mark.parametrize("path", _modules(EMULATOR), ids=lambda p: str(p.relative_to(EMULATOR)))
def test_the_emulator_shares_no_code_with_the_bridge(path: Path) -> None:
    """The emulator is the oracle: it imports nothing of the bridge outside ``bridge.emulator`` (nor its
    mappings or state), so one bug cannot hide on both sides."""
    foreign = sorted(
        m
        for m in _imports(path)
        if m.split(".")[0] in ("bridge", "mappings", "state")
        and not m.startswith("bridge.emulator")
        and m not in ("bridge", "bridge.emulator")
    )
    assert not foreign, f"{path.relative_to(REPO)} imports {foreign}"


def test_product_code_never_imports_the_emulator() -> None:
    """Outside ``bridge/emulator`` only the commands that serve it import it; the CLI names ``bridge emulate``
    in its lazy table, as a string, and that string names the command."""
    offenders = {
        _module_name(path): sorted(
            m for m in _imports(path) if m == "bridge.emulator" or m.startswith("bridge.emulator.")
        )
        for path in _modules(*PRODUCT)
        if EMULATOR not in path.parents
    }
    reached = {module: found for module, found in offenders.items() if found and module not in SERVING_COMMANDS}
    assert not reached, f"product modules import the emulator: {reached}"
    module, _, attribute = SUBCOMMANDS["emulate"].target.partition(":")
    assert module.startswith("bridge.emulator.")
    assert isinstance(getattr(importlib.import_module(module), attribute), click.Command)


@pytest.mark.parametrize("path", _modules(EMULATOR), ids=lambda p: str(p.relative_to(EMULATOR)))
def test_no_emulator_module_is_over_500_lines(path: Path) -> None:
    """Modules stay readable: split one before it passes 500 lines."""
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(REPO)} has {lines} lines"


def test_one_state_holder_serves_both_surfaces_and_the_control_api(emulator_app: FastAPI) -> None:
    """The app keeps its state in one holder, which each surface reads through its own protocol: a reset that
    swaps the service is seen by both at once."""
    state: EmulatorState = emulator_app.state.emulator
    legacy: LegacyContext = state  # mypy checks the holder is what each surface reads
    v1: V1Context = state
    before = state.service
    state.reset()
    assert legacy.service is v1.service is state.service is not before
    assert set(emulator_app.state._state) == {"emulator", "credentials"}  # the credentials: fixed at creation
