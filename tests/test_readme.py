"""The README and docs/ cannot drift from the code: the assumptions table, commands, variables and config keys
are real, the README stays a front page, and what moved from it to docs/ is still there.

The assumptions section of docs/assumptions.md (between ``<!-- assumptions:start -->`` and
``<!-- assumptions:end -->``) is exactly ``bridge.assumptions.as_markdown()``, and docs/exit-codes.md's tables
are ``bridge.commands.exits.as_markdown()``. Regenerate both with ``REGENERATE`` below (``bridge assumptions``
prints the first table).
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from bridge import config
from bridge.assumptions import as_markdown
from bridge.cli import cli
from bridge.commands.exits import as_markdown as exit_codes_markdown
from bridge.config import load_settings

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"
SETTINGS = DOCS / "settings.md"
# The generated pages: the section between a page's markers is its renderer's output.
GENERATED = {"assumptions": as_markdown, "exit-codes": exit_codes_markdown}
REGENERATE = (
    ".venv/bin/python -c 'import pathlib; from bridge.assumptions import as_markdown as a; "
    "from bridge.commands.exits import as_markdown as x\n"
    'for n, f in (("assumptions", a), ("exit-codes", x)): p = pathlib.Path(f"docs/{n}.md"); t = p.read_text(); '
    's, e = f"<!-- {n}:start -->\\n", f"<!-- {n}:end -->"; '
    "p.write_text(t[: t.index(s) + len(s)] + f() + t[t.index(e) :])'"
)


# The front page's limit (issue 33): what it does, install, a rehearsal, a real migration; the rest is in docs/.
FRONT_PAGE_LINES = 150
# The headings of the README before it was split (issue 33, point 7): each is a heading of the README or of a
# page in docs/ still, so no section was lost in the move.
HEADINGS_BEFORE_THE_SPLIT = (
    "Two commands",
    "Running a migration",
    "A state file restored from a backup, or lost",
    "What is carried, and what is not",
    "A fleet: many workspaces, many machines",
    "Configuration",
    "Exit codes",
    "Where things go",
    "Pointing it at the real service",
    "The emulator's control API",
    "Checking against the published contract",
    "Layout",
    "Assumptions about what the documents do not show",
)


def _pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def _text() -> str:
    """The README and every page of docs/, which together hold what the README held before the split."""
    return "\n".join(page.read_text(encoding="utf-8") for page in _pages())


def _command(name: str) -> click.Command:
    """A `bridge` subcommand, loaded as the CLI loads it (subcommands are imported on first use)."""
    command = cli.get_command(click.Context(cli), name)
    assert command is not None, f"`bridge {name}` is not a command"
    return command


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_sections_equal_their_source(name: str) -> None:
    """docs/assumptions.md's table is the registry's, docs/exit-codes.md's the exit-code table's: a new guess or
    code cannot go undocumented."""
    page = DOCS / f"{name}.md"
    text = page.read_text(encoding="utf-8")
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
    assert text.count(start) == 1, f"docs/{page.name} needs exactly one {start.strip()} marker"
    assert text.count(end) == 1, f"docs/{page.name} needs exactly one {end} marker"
    section = text[text.index(start) + len(start) : text.index(end)]
    assert section == GENERATED[name](), f"docs/{page.name} is stale; regenerate it with:\n{REGENERATE}"


def test_every_bridge_command_the_readme_names_exists() -> None:
    """Each `bridge <command>` in the README and docs/ is a registered subcommand of the CLI."""
    named = set(re.findall(r"`bridge ([a-z]+)", _text()))
    assert named, "the README names no bridge command"
    missing = sorted(named - set(cli.list_commands(click.Context(cli))))
    assert not missing, f"the README or docs/ name bridge commands the CLI does not have: {missing}"


def test_every_make_target_the_readme_names_exists() -> None:
    """`make demo`, `make test` and the others the README names are Makefile targets."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z]+):", makefile, flags=re.MULTILINE))
    assert {"make demo", "make test"} <= set(re.findall(r"^make [a-z]+", README.read_text(), flags=re.MULTILINE))
    named = set(re.findall(r"`make ([a-z]+)`", _text()))
    assert named <= targets, f"the README or docs/ name make targets the Makefile lacks: {sorted(named - targets)}"


def test_every_environment_variable_the_readme_names_is_read_by_the_settings() -> None:
    """docs/settings.md tabulates every BRIDGE_* variable bridge.config reads, and no page names another."""
    read = {value for name, value in vars(config).items() if name.startswith("ENV_") and isinstance(value, str)}
    assert set(re.findall(r"\bBRIDGE_[A-Z0-9_]+", SETTINGS.read_text(encoding="utf-8"))) == read
    assert set(re.findall(r"\bBRIDGE_[A-Z0-9_]+", _text())) == read


def test_the_readme_config_example_loads_with_no_unknown_key(tmp_path: Path) -> None:
    """The TOML example is a working --config file: every key is a setting the bridge knows."""
    example = re.search(r"```toml\n(.*?)```", SETTINGS.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert example is not None, "docs/settings.md has no ```toml example"
    body = example.group(1)
    for secret_file in re.findall(r'_file = "([^"]+)"', body):
        body = body.replace(secret_file, str(tmp_path / Path(secret_file).name))
        (tmp_path / Path(secret_file).name).write_text("a-secret-of-sixteen-chars\n", encoding="utf-8")
    path = tmp_path / "bridge.toml"
    path.write_text(body, encoding="utf-8")
    settings = load_settings(path, env={})  # an unknown key would be refused here
    assert settings.legacy_key is not None
    assert settings.token is not None
    assert settings.concurrency == 8


def test_every_option_the_readme_tabulates_exists_on_the_migration_commands() -> None:
    """The configuration table's --options are options of `bridge run` or `bridge verify`."""
    named = set(re.findall(r"`(--[a-z0-9-]+)`", SETTINGS.read_text(encoding="utf-8"))) - {"--config"}
    known = {opt for name in ("run", "verify") for param in _command(name).params for opt in param.opts}
    assert named <= known, f"docs/settings.md tabulates options the commands lack: {sorted(named - known)}"


def test_the_readme_is_a_front_page() -> None:
    """Under 150 lines: what it does, install, a rehearsal, a real migration, then links to the reference."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < FRONT_PAGE_LINES, f"README.md has {len(lines)} lines; move reference material to docs/"
    headings = [line for line in lines if line.startswith("## ")]
    assert [h.split(":")[0] for h in headings] == [
        "## Install",
        "## A five-minute rehearsal",
        "## A real migration",
        "## Reference",
    ]


def test_no_section_was_lost_when_the_readme_was_split() -> None:
    """Every heading the README had before the split heads a section of the README or of a page in docs/."""
    headings = [line.lstrip("#").strip().lower() for line in _text().splitlines() if re.match(r"#{1,4} ", line)]
    lost = [old for old in HEADINGS_BEFORE_THE_SPLIT if not any(old.lower() in heading for heading in headings)]
    assert not lost, f"sections of the old README found nowhere in README.md or docs/: {lost}"


def test_every_relative_link_of_the_readme_and_docs_points_at_a_file() -> None:
    """A link into the repository (runbooks/, docs/, another page) names a file that exists."""
    broken = [
        f"{page.relative_to(REPO)}: {target}"
        for page in _pages()
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8"))
        if "://" not in target and not (page.parent / target).exists()
    ]
    assert not broken, f"links to nothing: {broken}"


def test_every_page_of_docs_is_linked_from_the_readme() -> None:
    """The front page is the way in: each reference page is one link away."""
    readme = README.read_text(encoding="utf-8")
    unlinked = [page.name for page in sorted(DOCS.glob("*.md")) if f"](docs/{page.name})" not in readme]
    assert not unlinked, f"docs/ pages the README does not link: {unlinked}"
