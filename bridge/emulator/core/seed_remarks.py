"""The seeded comments, budget notes and workspace rates, and their ``--dirty`` additions.

They are drawn after every other seeded record, from a ``random.Random`` of their own derived from the seed, so
the records seeded before them (and their ids and stamps) are exactly what they were without them: only the
lines given a note change, in their ``notes`` (the project's version and stamp stay). Every size holds
comments on each project (on the project, on accounts and on lines; HTML with some formatting, some plain), a
root note per project, notes on some account lines, and workspace rates: more than one legacy page of 100 on
medium and large, fewer on small.

``--dirty`` adds a comment on a line the bridge quarantines (the malformed rate) and a rate without a unit; they
are named in ``Service.dirty_remarks`` (not in ``dirty_catalogue``, whose every entry the bridge quarantines).
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import TYPE_CHECKING

from bridge.emulator.core.model import DirtyRecord, Node, Project, Workspace
from bridge.emulator.core.notes import note_from_html
from bridge.emulator.core.records import RATE_UNITS, ROOT_NOTE, Author, Comment, Rate
from bridge.emulator.core.store import Service

if TYPE_CHECKING:  # ``seed`` imports this module to draw the remarks last
    from bridge.emulator.core.seed import Size

COMMENTS_PER_PROJECT: dict[Size, int] = {"small": 6, "medium": 30, "large": 120}
RATES: dict[Size, int] = {"small": 40, "medium": 160, "large": 450}
AUTHORS = (
    Author("usr_legacy_jane", "Jane Producer", "jane.producer@example.com"),
    Author("usr_legacy_omar", "Omar Line", "omar.line@example.com"),
    Author("usr_legacy_ines", "Ines Accountant", "ines.accountant@example.com"),
)
REMARKS = (
    "<p>Can we confirm the <strong>{name}</strong> rate before Friday?</p>",
    "<p>Per the director: hold <em>{name}</em> until the schedule locks.</p>",
    "<p>Quote attached for {name}:</p><ul><li>two days <strong>prep</strong></li><li>one day wrap</li></ul>",
    "Checked {name} against the union card; fine as is.",
    "<p>{name} is <u>over</u> the estimate &amp; needs sign-off.</p>",
)
ROLES = ("Director of Photography", "Gaffer", "Key Grip", "Editor", "Sound Mixer", "Camera Operator", "PA")
ITEMS = ("Camera package", "Lighting kit", "Truck", "Office space", "Set dressing", "Stage", "Drone")
EMOJI = ("🎥", "💡", "🚚", "🎬", None)


def add_remarks(service: Service, workspace: Workspace, seed: int, size: Size) -> None:
    """Comments, notes and rates for ``workspace`` (a seeded source), drawn from their own Random."""
    rng = random.Random(f"remarks:{seed}")
    for project in (p for p in workspace.projects.values() if not p.deleted):
        _notes(service, project, rng)
        _comments(service, workspace, project, rng, COMMENTS_PER_PROJECT[size])
    contacts = list(workspace.contacts)
    for i in range(RATES[size]):
        labour = i % 2 == 0
        name = rng.choice(ROLES if labour else ITEMS)
        rate = Rate(
            id=service.ids.new("rat"),
            identifier=f"{name} {i + 1}",
            emoji=rng.choice(EMOJI),
            description=f"{name} ({'crew' if labour else 'equipment'})",
            note=rng.choice((None, "Includes setup", "Union minimum", None)),
            quantity=Decimal(rng.choice((1, 5, 10, 40))),
            rate=Decimal(rng.randint(2_500, 250_000)) / 100,
            unit=RATE_UNITS[i % len(RATE_UNITS)],
            contact_id=rng.choice(contacts) if labour and contacts and rng.random() < 0.3 else None,
        )
        workspace.rates[rate.id] = rate


def add_dirty_remarks(service: Service, workspace: Workspace, dirty_line: str) -> dict[str, DirtyRecord]:
    """A comment on ``dirty_line`` (one the bridge quarantines) and a rate without a unit."""
    project = next(p for p in workspace.projects.values() if dirty_line in p.nodes)
    stamp = service.clock()
    comment = Comment(
        id=service.ids.new("cmt"),
        content="<p>Dirty: this line's rate reads <strong>1,000.00</strong>.</p>",
        target_kind="budgetLine",
        target_id=dirty_line,
        author=AUTHORS[0],
        created_at=stamp,
        updated_at=stamp,
    )
    project.comments[comment.id] = comment
    rate = Rate(id=service.ids.new("rat"), identifier="Dirty: no unit", rate=Decimal("150"), unit=None)
    workspace.rates[rate.id] = rate
    found = {
        "comment_on_quarantined_line": DirtyRecord("comment", comment.id, "target"),
        "rate_without_unit": DirtyRecord("rate", rate.id, "unit"),
    }
    service.dirty_remarks.update(found)
    return found


def _notes(service: Service, project: Project, rng: random.Random) -> None:
    # Written past ``write_note`` so the project's version and stamp stay what they were without notes.
    project.notes[ROOT_NOTE] = note_from_html(
        service.ids.new("note"),
        f"<h2>{project.name}</h2><p>Budget assumptions: <strong>union</strong> crew, <em>five-day</em> weeks.</p>"
        "<ul><li>Rates as of the last card</li><li>Contingency held at 10%</li></ul>",
    )
    noted = [n for n in project.nodes.values() if n.type in ("account", "line")]
    for node in noted:
        if rng.random() < 0.08:
            note = project.notes[node.id] = note_from_html(service.ids.new("note"), _note_html(node, rng))
            node.notes = note.text


def _note_html(node: Node, rng: random.Random) -> str:
    return rng.choice(
        (
            f"<p>{node.description}: see the <strong>signed</strong> quote.</p>",
            f"<p>Hold {node.description} flat; <em>no</em> overtime.</p>",
            f"<p>{node.description}</p><ul><li>vendor A</li><li>vendor B</li></ul>",
        )
    )


def _comments(service: Service, workspace: Workspace, project: Project, rng: random.Random, count: int) -> None:
    accounts = [n for n in project.nodes.values() if n.type == "account"]
    lines = [n for n in project.nodes.values() if n.type == "line"]
    for i in range(count):
        pick = i % 5
        node = None if pick == 0 else rng.choice(accounts if pick == 1 else lines)
        name = project.name if node is None else node.description
        stamp = service.clock()
        comment = Comment(
            id=service.ids.new("cmt"),
            content=rng.choice(REMARKS).format(name=name),
            target_kind="project" if node is None else "budgetLine",
            target_id=project.id if node is None else node.id,
            author=rng.choice(AUTHORS),
            created_at=stamp,
            updated_at=stamp,
        )
        project.comments[comment.id] = comment
