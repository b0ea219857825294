"""What a run reads from the legacy surface before it writes: the workspace-wide records and each project's
library (phases, fringes, globals, tags).

Budget trees and actuals are not read here: each project's pipeline reads its own budget when it gets to it
and lets go of it when done, so memory holds one budget per project in flight, not the whole workspace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bridge.clients.legacy import LegacyClient
from bridge.engine import remarks_read
from bridge.engine.tasks import run_all, task_group
from bridge.errors import UsageError
from mappings.records import BudgetNote, Comment, Contact, Phase, Project, ProjectBudget, Rate, Space, Tag


@dataclass(frozen=True, slots=True)
class ProjectLibrary:
    """One project's phases, fringes, globals and tags (a budget without lines)."""

    project: Project
    phases: tuple[Phase, ...]
    budget: ProjectBudget
    tags: tuple[Tag, ...]
    comments: tuple[Comment, ...] = ()
    root_note: BudgetNote | None = None


@dataclass(frozen=True, slots=True)
class Listed:
    """The source's workspace-wide lists, read once: preflight recognises the workspace by them, and the run's
    source read takes them from there instead of asking again."""

    spaces: tuple[Space, ...]
    contacts: tuple[Contact, ...]
    projects: tuple[Project, ...]


async def read_lists(legacy: LegacyClient) -> Listed:
    """Spaces (archived too), contacts and projects (every status), side by side."""
    async with task_group() as reads:
        spaces = reads.create_task(legacy.spaces())
        contacts = reads.create_task(legacy.contacts())
        projects = reads.create_task(legacy.projects())
    return Listed(tuple(spaces.result()), tuple(contacts.result()), tuple(projects.result()))


@dataclass(frozen=True, slots=True)
class WorkspaceSource:
    """Everything a run needs before the per-project pipelines start."""

    spaces: tuple[Space, ...]
    contacts: tuple[Contact, ...]
    projects: tuple[ProjectLibrary, ...]
    rates: tuple[Rate, ...] = ()
    # ``--with contact-private``: the contacts' phone and address are carried (A101).
    contact_private: bool = False


async def _library(legacy: LegacyClient, project: Project) -> ProjectLibrary:
    if project.refusal is not None:
        # A project refused as read is quarantined with everything in it; its id may not even fit in a path.
        return ProjectLibrary(project, (), ProjectBudget(project_id=project.id), ())
    async with task_group() as reads:
        phases_read = reads.create_task(legacy.phases(project.id))
        fringes_read = reads.create_task(legacy.fringes(project.id))
        globals_read = reads.create_task(legacy.globals(project.id))
        tags_read = reads.create_task(legacy.tags(project.id))
        comments_read = reads.create_task(remarks_read.comments(legacy, project.id))
        note_read = reads.create_task(remarks_read.root_note(legacy, project.id))
    phases, fringes, globals_, tags = (
        phases_read.result(),
        fringes_read.result(),
        globals_read.result(),
        tags_read.result(),
    )
    budget = ProjectBudget(
        project_id=project.id, phases=tuple(phases), fringes=tuple(fringes), globals_=tuple(globals_)
    )
    return ProjectLibrary(project, tuple(phases), budget, tuple(tags), comments_read.result(), note_read.result())


async def read_workspace(
    legacy: LegacyClient, listed: Listed, only: Sequence[str] = (), *, contact_private: bool = False
) -> WorkspaceSource:
    """The listed spaces and contacts, the selected projects (all by default, in legacy id order) and their
    libraries; ``contact_private`` as the operator chose it."""
    chosen = sorted(listed.projects, key=lambda p: p.id)
    if only:
        known = {p.id for p in chosen}
        missing = sorted(set(only) - known)
        if missing:
            raise UsageError(f"--project {', '.join(missing)}: no such project in the legacy workspace")
        chosen = [p for p in chosen if p.id in set(only)]
    libraries = await run_all(_library(legacy, p) for p in chosen)
    return WorkspaceSource(
        tuple(sorted(listed.spaces, key=lambda s: s.id)),
        tuple(sorted(listed.contacts, key=lambda c: c.id)),
        tuple(libraries),
        await remarks_read.rates(legacy),
        contact_private,
    )
