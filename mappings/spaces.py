"""Spaces and projects (A05, A06): create bodies plus the PATCH that restores an archived status.

v1 sets ``archived`` (spaces) and ``status`` (projects) only through PATCH, so an archived legacy record
becomes a create and then a patch; the alias travels as the slug, project labels as project tags.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Required, TypedDict

from mappings.kinds import Kind
from mappings.notes import Note, unassigned
from mappings.records import Project, Space
from mappings.refs import WORKSPACE, Lookup, RecordRef
from mappings.results import Mapped
from mappings.shapes import check_refusal
from mappings.text import NAME_LIMIT, check_text, required_text

UNTITLED_PROJECT = "Untitled Project"
"""The legacy surface's own default name for a project created without one (L-SPEC)."""


class SpaceCreate(TypedDict, total=False):
    name: Required[str]
    slug: str
    image: str | None


class SpacePatch(TypedDict):
    archived: bool


class ProjectCreate(TypedDict, total=False):
    name: Required[str]
    slug: str
    emoji: str
    image: str
    spaceId: str
    tagIds: list[str]


class ProjectPatch(TypedDict):
    status: str


def map_space(space: Space) -> Mapped[SpaceCreate]:
    check_refusal(space)
    ref = RecordRef(Kind.SPACE, space.id, WORKSPACE)
    body = SpaceCreate(name=required_text(space.name, ref, "name", limit=NAME_LIMIT))
    if space.alias:
        body["slug"] = check_text(space.alias, ref, "alias", limit=NAME_LIMIT) or space.alias
    if space.image is not None:
        body["image"] = space.image
    return Mapped(ref, body)


def space_patch(space: Space) -> SpacePatch | None:
    """The PATCH after creation that keeps an archived space archived; None for an active one."""
    return SpacePatch(archived=True) if space.archived else None


def map_project(
    project: Project, lookup: Lookup, label_aliases: Mapping[str, str] | None = None
) -> Mapped[ProjectCreate]:
    """A project's create body; its space and label tags resolve through the crosswalk.

    ``label_aliases`` is ``TagPlan.aliases``: labels that name an existing tag in another letter case.
    """
    check_refusal(project)
    ref = RecordRef(Kind.PROJECT, project.id, WORKSPACE)
    notes: list[Note] = []
    name = project.name if project.name is not None else UNTITLED_PROJECT
    body = ProjectCreate(name=required_text(name, ref, "name", limit=NAME_LIMIT))
    if project.alias:
        body["slug"] = check_text(project.alias, ref, "alias", limit=NAME_LIMIT) or project.alias
    if project.icon:
        body["emoji"] = project.icon
    if project.image_url:
        body["image"] = project.image_url
    space_id = project.space.id if project.space is not None else project.space_id
    if space_id is not None:
        v1_space = lookup(Kind.SPACE, WORKSPACE, space_id)
        if v1_space is None:
            notes.append(unassigned(ref, "spaceId", space_id, "space has no v1 id; the project stays ungrouped"))
        else:
            body["spaceId"] = v1_space
    tag_ids: list[str] = []
    for label in project.labels:
        tag_id = lookup(Kind.TAG, WORKSPACE, (label_aliases or {}).get(label, label))
        if tag_id is None:
            notes.append(unassigned(ref, "labels", label, "label tag has no v1 id", "A06"))
        elif tag_id not in tag_ids:
            tag_ids.append(tag_id)
    if tag_ids:
        body["tagIds"] = tag_ids
    return Mapped(ref, body, tuple(notes))


def project_patch(project: Project) -> ProjectPatch | None:
    """The PATCH after creation that keeps an archived project archived; None for an active one."""
    return ProjectPatch(status="archived") if project.status == "archived" else None
