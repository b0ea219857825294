"""Comments, a project's root budget note and the workspace rates: legacy remarks as v1 comments and rate items.

A legacy comment is HTML or plain text (L:6278) and v1 takes Markdown (V:11385): the text is converted by
markdownify (A83), with scripts and styles dropped, links kept only to web and mail addresses and images
reduced to their alt text (the source is untrusted; v1 renders what it is given). v1 sets a comment's author
to the token's user and its time to now (V:11381), so each body opens with a provenance header naming the
legacy author (the name, never the email), the time in UTC and the legacy id, the name escaped for Markdown.

A comment goes on its budget line (the crosswalk of ``lineId``), else its account (accounts are lines on
v1), else the project; when that line or account has no v1 id (quarantined), on the project with a note
(A84). The root budget note, which v1 has no field for, is a project comment with the same header (A85).

A workspace rate becomes an item of one workspace rate pack (A86): ``rate`` in the workspace currency, exactly
in minor units (A72), ``unit`` as sent (required by v1: a rate without one is refused, never invented);
``emoji``, ``note`` and ``contact`` have no field on a pack item and are reported as not carried.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Final, Required, TypedDict

from markdownify import MarkdownConverter

from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.money import Money, parse_decimal, to_money
from mappings.notes import Note, not_carried, unassigned
from mappings.records import BudgetNote, Comment, Rate
from mappings.refs import WORKSPACE, Lookup, RecordRef
from mappings.results import Mapped
from mappings.shapes import check_refusal
from mappings.text import NAME_LIMIT, check_text, required_text

# v1 publishes no length for a comment's content nor for a pack item's title; these bound what one record
# may put in a request (a legacy comment of a megabyte is refused, not sent).
CONTENT_LIMIT: Final = 100_000
# The crosswalk id of a project's root budget note, carried as a comment (one per project at most).
ROOT_NOTE: Final = "budget-note"
# The one workspace rate pack the rates go in (its crosswalk id and its name on v1).
RATE_PACK: Final = "workspace-rates"
RATE_PACK_NAME: Final = "Workspace rates (migrated)"
# The v1 comment target kinds the bridge writes (CommentTargetKind, V:11239).
ON_PROJECT: Final = "project"
ON_LINE: Final = "budgetLine"

_SAFE_LINK = re.compile(r"^(https?:|mailto:)", re.IGNORECASE)
# Characters that open or close Markdown syntax inside a line (the header's text never starts a line, so the
# block markers # + - . need no escape there).
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>!|~])")


class CommentTarget(TypedDict):
    kind: str
    id: str


class CommentCreate(TypedDict):
    content: str
    target: CommentTarget


class RatePackCreate(TypedDict):
    name: str


class RatePackItemCreate(TypedDict, total=False):
    title: Required[str]
    rate: Required[Money]
    unit: Required[str]
    description: str
    quantity: float | int


class _Converter(MarkdownConverter):
    """markdownify with the untrusted parts of legacy HTML left out: script and style bodies, links to anything
    but web and mail addresses (a ``javascript:`` link keeps its text only), images (their alt text)."""

    def convert_a(self, el: object, text: str, parent_tags: set[str]) -> str:
        href = getattr(el, "get", lambda _: None)("href")
        if not isinstance(href, str) or not _SAFE_LINK.match(href.strip()):
            return text
        # markdownify's published stub declares only the converter's entry points, not its per-tag methods.
        converted: str = super().convert_a(el, text, parent_tags)  # type: ignore[misc]
        return converted

    def convert_img(self, el: object, text: str, parent_tags: set[str]) -> str:
        alt = getattr(el, "get", lambda _: None)("alt")
        return escaped_markdown(alt) if isinstance(alt, str) else ""


def markdown(html: str) -> str:
    """Legacy comment HTML (or plain text) as Markdown: lists as ``-`` bullets, headings as ``#``."""
    # markdownify drops a script's and a style's body itself.
    converted: str = _Converter(heading_style="ATX", bullets="-").convert(html)
    return converted.strip()


def escaped_markdown(text: str) -> str:
    """Untrusted text shown literally in Markdown: syntax characters escaped, line breaks made spaces."""
    return _MARKDOWN.sub(r"\\\1", " ".join(text.split()))


def _utc(value: str | None, ref: RecordRef) -> str:
    """A legacy timestamp as ``YYYY-MM-DD HH:MM`` UTC (a time without an offset is taken as UTC)."""
    try:
        moment = datetime.fromisoformat(value or "")
    except ValueError as exc:
        raise MappingError(ErrorCode.DATE_INVALID, ref, "createdAt", value) from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def _body(header: str, text: str, ref: RecordRef, field: str) -> str:
    converted = markdown(text)
    content = check_text(f"> {header}\n\n{converted}", ref, field, limit=CONTENT_LIMIT)
    if not converted or content is None:
        raise MappingError(ErrorCode.TEXT_EMPTY, ref, field, text)
    return content


def comment_header(comment: Comment, ref: RecordRef) -> str:
    """``Legacy comment by <name>, <time> UTC (legacy id <id>)``; the name escaped, the email never shown."""
    name = comment.author.name if comment.author is not None else None
    who = escaped_markdown(name) if name and name.strip() else "an unknown author"
    return f"Legacy comment by {who}, {_utc(comment.created_at, ref)} UTC (legacy id {escaped_markdown(comment.id)})"


def map_comment(project_id: str, v1_project: str, comment: Comment, lookup: Lookup) -> Mapped[CommentCreate]:
    """A legacy comment as a v1 comment on its line, else its account, else the project (A84)."""
    check_refusal(comment)
    ref = RecordRef(Kind.COMMENT, comment.id, project_id)
    content = _body(comment_header(comment, ref), comment.content or "", ref, "content")
    notes: list[Note] = []
    target = CommentTarget(kind=ON_PROJECT, id=v1_project)
    placed = next(
        ((field, value) for field, value in (("lineId", comment.line_id), ("accountId", comment.account_id)) if value),
        None,
    )
    if placed is not None:
        field, legacy_line = placed
        line = lookup(Kind.LINE, project_id, legacy_line)
        if line is None:
            why = "its budget line has no v1 id (quarantined): posted on the project"
            notes.append(unassigned(ref, field, legacy_line, why))
        else:
            target = CommentTarget(kind=ON_LINE, id=line)
    return Mapped(ref, CommentCreate(content=content, target=target), tuple(notes))


def map_root_note(project_id: str, v1_project: str, note: BudgetNote) -> Mapped[CommentCreate]:
    """A project's root budget note as a project comment (A85): its HTML converted, else its text."""
    ref = RecordRef(Kind.COMMENT, ROOT_NOTE, project_id)
    marker = f" (legacy id {escaped_markdown(note.id)})" if note.id else ""
    text = note.html if note.html and note.html.strip() else note.text or ""
    content = _body(f"Legacy budget note{marker}", text, ref, "note")
    return Mapped(ref, CommentCreate(content=content, target=CommentTarget(kind=ON_PROJECT, id=v1_project)))


def has_note(note: BudgetNote | None) -> bool:
    """Whether a root note holds anything to carry (A70: an empty NoteData is no note)."""
    return note is not None and any(form and form.strip() for form in (note.html, note.text))


def rate_pack() -> Mapped[RatePackCreate]:
    """The one workspace rate pack the legacy rates go in (A86)."""
    return Mapped(RecordRef(Kind.RATE_PACK, RATE_PACK, WORKSPACE), RatePackCreate(name=RATE_PACK_NAME))


def map_rate(rate: Rate, currency: str) -> Mapped[RatePackItemCreate]:
    """A legacy workspace rate as a pack item; ``currency`` is the workspace currency its rate is in (A72)."""
    check_refusal(rate)
    ref = RecordRef(Kind.RATE, rate.id, WORKSPACE)
    title = required_text(rate.identifier or rate.description, ref, "identifier", limit=NAME_LIMIT)
    money = to_money(rate.rate, currency, ref, "rate", exact=True).money
    unit = check_text(rate.unit, ref, "unit", limit=NAME_LIMIT)
    if not unit:
        raise MappingError(ErrorCode.RATE_UNIT_MISSING, ref, "unit", rate.unit)
    body = RatePackItemCreate(title=title, rate=money, unit=unit)
    description = check_text(rate.description, ref, "description", limit=CONTENT_LIMIT)
    if description and description != title:
        body["description"] = description
    if rate.quantity is not None:
        quantity = parse_decimal(rate.quantity, ref, "quantity")
        body["quantity"] = int(quantity) if quantity == quantity.to_integral_value() else float(quantity)
    notes = [
        not_carried(ref, field, value)
        for field, value in (("emoji", rate.emoji), ("note", rate.note), ("contact", _contact(rate)))
        if value
    ]
    return Mapped(ref, body, tuple(notes))


def _contact(rate: Rate) -> str | None:
    if not rate.contact:
        return None
    name = rate.contact.get("name")
    return name if isinstance(name, str) and name else str(rate.contact.get("id") or "a contact")
