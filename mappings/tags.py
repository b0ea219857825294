"""Tags (A14, A15): legacy per-project tags (id = name) become workspace tags, one per name.

Winner rule: the first project (legacy project id order) that defines a tag sets its colour and
description; every later project whose tag differs is reported with both values. A name that differs from
another only in letter case is a catalogue case (TAG_CASE_DUPLICATE): v1 holds one tag per name, and
merging "VFX" into "vfx" silently would move money between categories. Names used on lines or as project
labels without a tag record are created bare. Legacy #RRGGBB colours map to the nearest v1 TagColor; an
inexact match is reported as lossy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Required, TypedDict

from mappings.enums import exact_tag_color, hex_rgb, nearest_tag_color
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.notes import Note, conflict, lossy, unassigned
from mappings.records import Project, ProjectBudget, Tag
from mappings.refs import WORKSPACE, Lookup, RecordRef
from mappings.shapes import check_refusal
from mappings.text import DESCRIPTION_LIMIT, TAG_NAME_LIMIT, check_text, required_text

WINNER_RULE = "the first project (by legacy id) that defines the tag sets it (A15)"


class TagWrite(TypedDict, total=False):
    """POST /library/tags (A18)."""

    name: Required[str]
    color: str | None
    description: str  # a string on v1, never null: left out when the legacy tag has none


@dataclass(frozen=True, slots=True)
class TagPlan:
    """Workspace tags to create (crosswalk: tag, workspace, name), with quarantine and notes."""

    tags: tuple[tuple[RecordRef, TagWrite], ...]
    quarantined: tuple[MappingError, ...]
    notes: tuple[Note, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)
    """Project label -> tag name, for labels that differ from an existing tag only in case (pass them to
    ``map_project``): a label carries no colour or description, so using the tag loses nothing."""


def tag_body(project_id: str, tag: Tag, notes: list[Note]) -> TagWrite:
    """One legacy tag as a workspace tag body; a lossy colour is noted."""
    check_refusal(tag)
    ref = RecordRef(Kind.TAG, tag.id, project_id)
    name = required_text(tag.name, ref, "name", limit=TAG_NAME_LIMIT)
    check_text(tag.description, ref, "description", limit=DESCRIPTION_LIMIT)
    body = TagWrite(name=name)
    if tag.description is not None:
        body["description"] = tag.description
    if tag.color is not None:
        rgb = hex_rgb(tag.color)
        if rgb is None:
            raise MappingError(ErrorCode.TAG_COLOR_INVALID, ref, "color", tag.color)
        color = nearest_tag_color(rgb)
        body["color"] = color
        if not exact_tag_color(rgb):
            notes.append(lossy(ref, "color", tag.color, color, "A15"))
    return body


def plan_tags(
    tags: Mapping[str, Sequence[Tag]], budgets: Sequence[ProjectBudget] = (), projects: Sequence[Project] = ()
) -> TagPlan:
    """Deduplicate tags across projects; ``tags`` maps legacy project id -> its tag records."""
    notes: list[Note] = []
    errors: list[MappingError] = []
    chosen: dict[str, tuple[RecordRef, TagWrite]] = {}
    by_fold: dict[str, str] = {}
    candidates: list[tuple[str, Tag]] = [(p, t) for p in sorted(tags) for t in tags[p]]
    candidates += [
        (b.project_id, Tag(id=name, name=name))
        for b in sorted(budgets, key=lambda b: b.project_id)
        for line in b.lines
        for name in line.tags
    ]
    declared = {(p, t.name) for p in tags for t in tags[p]}
    aliases: dict[str, str] = {}
    # Earlier projects overwrite later ones here, so each folded name maps to the winner's spelling.
    folded = {t.name.casefold(): t.name for p in sorted(tags, reverse=True) for t in reversed(tags[p])}
    for project in sorted(projects, key=lambda p: p.id):
        for label in project.labels:
            match = folded.get(label.casefold())
            if match is not None and match != label:
                aliases[label] = match
                notes.append(lossy(RecordRef(Kind.TAG, label, project.id), "labels", label, match, "A06"))
            else:
                candidates.append((project.id, Tag(id=label, name=label)))
    for project_id, tag in candidates:
        ref = RecordRef(Kind.TAG, tag.id, project_id)
        bare = (project_id, tag.name) not in declared or (tag.color is None and tag.description is None)
        try:
            body = tag_body(project_id, tag, notes)
            winner_name = by_fold.setdefault(body["name"].casefold(), body["name"])
            if winner_name != body["name"]:
                raise MappingError(
                    ErrorCode.TAG_CASE_DUPLICATE, ref, "name", tag.name, f"{winner_name!r} exists in another project"
                )
        except MappingError as error:
            if not any(e.ref == error.ref and e.code == error.code for e in errors):
                errors.append(error)
            continue
        first = chosen.get(body["name"])
        if first is None:
            chosen[body["name"]] = (RecordRef(Kind.TAG, body["name"], WORKSPACE), body)
        elif not bare:
            notes.extend(
                conflict(ref, field, str(body.get(field)), str(first[1].get(field)), WINNER_RULE)
                for field in ("color", "description")
                if body.get(field) != first[1].get(field)
            )
    return TagPlan(tuple(chosen.values()), tuple(errors), tuple(notes), aliases)


def tag_ids(ref: RecordRef, names: Sequence[str], lookup: Lookup, notes: list[Note]) -> list[str]:
    """The workspace tag ids of a record's tag names, each once; a name with no v1 tag is noted (A14)."""
    ids: list[str] = []
    for name in names:
        tag_id = lookup(Kind.TAG, WORKSPACE, name)
        if tag_id is None:
            notes.append(unassigned(ref, "tags", name, "tag has no v1 id", assumption="A14"))
        elif tag_id not in ids:
            ids.append(tag_id)
    return ids
