"""Imports point down (STYLE rule 14): a layer imports itself, the layers below it and the shared leaves.

::

    bridge.cli > bridge.commands > bridge.fleet > bridge.verify > bridge.engine > bridge.clients > state > mappings

Every import statement counts, wherever it stands (module level, inside a function, under ``TYPE_CHECKING``)
and in every form (``import a.b``, ``from a import b``, ``from a.b import c``, relative). The leaves (errors,
settings, logging, the assumptions, terminal text, private files, the throw-away PostgreSQL) may be imported
by any layer but import only each other; ``mappings`` is pure and imports nothing of the project but itself.
The emulator is left to its own test, which also holds that product code does not import it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bridge", "state", "mappings")
LAYERS = (
    "bridge.cli",
    "bridge.commands",
    "bridge.fleet",
    "bridge.cutover",
    "bridge.sync",
    "bridge.verify",
    "bridge.engine",
    "bridge.clients",
    "state",
    "mappings",
)
"""Top to bottom."""
LEAF = "leaf"
LEAVES = frozenset(
    {
        "bridge",
        "bridge.assumption",
        "bridge.assumptions",
        "bridge.assumptions_contract",
        "bridge.assumptions_cutover",
        "bridge.assumptions_documents",
        "bridge.assumptions_exits",
        "bridge.assumptions_operator",
        "bridge.assumptions_rehearsal",
        "bridge.assumptions_workspace",
        "bridge.canonical",
        "bridge.config",
        "bridge.errors",
        "bridge.files",
        "bridge.localpg",
        "bridge.logging",
        "bridge.terminal",
    }
)
PURE = "mappings"
"""The bottom layer: not even a leaf (an error class, a setting) reaches into it."""
EMULATOR = "bridge.emulator"


@dataclass(frozen=True, slots=True)
class Import:
    """One module an import statement loads, where the statement stands."""

    path: Path
    line: int
    importer: str
    imported: str


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(f"{package}.")


def place(module: str) -> str | None:
    """The layer of a module of the project, ``LEAF`` for a shared leaf, None for the emulator's (another test's)."""
    if _within(module, EMULATOR):
        return None
    if module in LEAVES:
        return LEAF
    found = next((layer for layer in LAYERS if _within(module, layer)), None)
    if found is None:
        raise LookupError(f"{module} is in no layer and is not a leaf: add it to LAYERS' packages or to LEAVES")
    return found


def project_modules() -> dict[str, Path]:
    """Every module of the product (the emulator's included), by dotted name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports_of(module: str, path: Path, source: str, known: frozenset[str]) -> Iterator[Import]:
    """The project modules each import statement of ``source`` loads (``known`` tells a submodule named in
    ``from package import name`` from an attribute of the package)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for name in dict.fromkeys(names):
            if name.partition(".")[0] in PACKAGES:
                yield Import(path, node.lineno, module, name)


def violation(found: Import) -> str | None:
    """Why an import breaks the layering, or None when it points down (or is the emulator test's to judge)."""
    importer, imported = place(found.importer), place(found.imported)
    if importer is None or imported is None or importer == imported:
        return None
    where = f"{found.path.relative_to(ROOT)}:{found.line}: {found.importer} imports {found.imported}"
    if importer == LEAF:
        return f"{where}: a leaf imports the layer {imported} (a leaf imports only leaves)"
    if imported == LEAF:
        return f"{where}: {PURE} imports a leaf (it imports nothing of the project)" if importer == PURE else None
    if LAYERS.index(imported) < LAYERS.index(importer):
        return f"{where}: {importer} imports {imported}, a layer above it"
    return None


def violations(modules: dict[str, Path]) -> list[str]:
    known = frozenset(modules)
    return [
        problem
        for module, path in modules.items()
        for found in imports_of(module, path, path.read_text(encoding="utf-8"), known)
        if (problem := violation(found)) is not None
    ]


def test_every_module_of_the_product_has_a_layer_or_is_a_leaf() -> None:
    """A new top-level module is placed on purpose: in a layer's package, or named a leaf here."""
    unplaced = []
    for module in project_modules():
        try:
            place(module)
        except LookupError as exc:
            unplaced.append(str(exc))
    assert unplaced == []


def test_every_import_points_down() -> None:
    """No module imports a layer above its own; leaves import only leaves; mappings imports only mappings."""
    assert violations(project_modules()) == []


KNOWN = frozenset({"bridge", "bridge.commands", "bridge.commands.state", "bridge.engine", "bridge.engine.run"})


@pytest.mark.parametrize(
    ("source", "imported"),
    [
        ("import bridge.commands.state", "bridge.commands.state"),
        ("from bridge.commands.state import status_of", "bridge.commands.state"),
        ("from bridge.commands import state", "bridge.commands.state"),
        ("from bridge.commands import Ending", "bridge.commands"),
        ("def f() -> None:\n    from bridge.commands.state import status_of", "bridge.commands.state"),
        ("if TYPE_CHECKING:\n    import bridge.commands", "bridge.commands"),
        ("from ..commands import state", "bridge.commands.state"),
        ("from . import run", "bridge.engine.run"),
    ],
)
def test_the_reader_sees_every_form_of_import(source: str, imported: str) -> None:
    """Module-level, function-local and guarded imports, of a module or of a name in it, absolute or relative."""
    path = ROOT / "bridge" / "engine" / "plan.py"
    found = list(imports_of("bridge.engine.plan", path, source, KNOWN))
    assert [(f.line, f.imported) for f in found] == [(source.count("\n") + 1, imported)]


@pytest.mark.parametrize(
    ("importer", "imported", "says"),
    [
        ("bridge.fleet.control", "bridge.commands.state", "bridge.fleet imports bridge.commands, a layer above it"),
        ("bridge.engine.plan", "bridge.verify.report", "bridge.engine imports bridge.verify, a layer above it"),
        ("bridge.clients.http", "bridge.engine.run", "bridge.clients imports bridge.engine, a layer above it"),
        ("state.db", "bridge.clients.http", "state imports bridge.clients, a layer above it"),
        ("mappings.money", "state.models", "mappings imports state, a layer above it"),
        ("mappings.money", "bridge.errors", "mappings imports a leaf"),
        ("bridge.logging", "state.errors", "a leaf imports the layer state"),
        ("bridge.terminal", "bridge.cli", "a leaf imports the layer bridge.cli"),
    ],
)
def test_an_upward_import_is_named_with_its_file_line_and_layers(importer: str, imported: str, says: str) -> None:
    """Each kind of breach is caught and said with the file, the line and the two layers."""
    path = ROOT / Path(*importer.split(".")).with_suffix(".py")
    problem = violation(Import(path, 7, importer, imported))
    assert problem is not None
    assert problem.startswith(f"{path.relative_to(ROOT)}:7: {importer} imports {imported}: ")
    assert says in problem


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("bridge.cli", "bridge.commands"),
        ("bridge.commands.state", "state.status"),
        ("bridge.fleet.workflow", "bridge.verify.summary"),
        ("bridge.verify.report", "bridge.engine.plan"),
        ("state.errors", "bridge.errors"),
        ("bridge.terminal", "bridge.logging"),
        ("bridge.commands.demo", "bridge.emulator.app"),
        ("mappings.money", "mappings.errors"),
    ],
)
def test_an_import_down_or_to_a_leaf_passes(importer: str, imported: str) -> None:
    """A layer below, one's own layer, a leaf from a layer, a leaf from a leaf; the emulator is not judged here."""
    path = ROOT / Path(*importer.split(".")).with_suffix(".py")
    assert violation(Import(path, 1, importer, imported)) is None
