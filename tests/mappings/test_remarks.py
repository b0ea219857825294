"""Comments and root budget notes as v1 Markdown comments, workspace rates as rate pack items (mappings.remarks)."""

from __future__ import annotations

import pytest

from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.notes import NoteKind
from mappings.records import BudgetNote, Comment, Rate
from mappings.remarks import (
    RATE_PACK_NAME,
    escaped_markdown,
    has_note,
    map_comment,
    map_rate,
    map_root_note,
    markdown,
    rate_pack,
)

LINES = {"lin_legacy": "lin_v1", "acc_legacy": "acc_v1"}


def lookup(kind: Kind, scope: str, legacy_id: str) -> str | None:
    return LINES.get(legacy_id) if kind is Kind.LINE and scope == "p1" else None


def comment(**fields: object) -> Comment:
    row: dict[str, object] = {
        "id": "c-123",
        "content": "<p>Hi</p>",
        "author": {"id": "u1", "name": "Jane Producer", "email": "jane@example.com"},
        "createdAt": "2024-03-18T17:00:00+01:00",
        **fields,
    }
    return Comment.model_validate(row)


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<p>Confirm the <strong>Gaffer</strong> rate</p>", "Confirm the **Gaffer** rate"),
        ("Plain text, fine as is.", "Plain text, fine as is."),
        ("<p>a &amp; b</p>", "a & b"),
        ("<h2>Assumptions</h2><p>x</p>", "## Assumptions\n\nx"),
        ("<ul><li>prep<ul><li>day one</li></ul></li><li>wrap</li></ul>", "- prep\n  - day one\n- wrap"),
        ("<p>ok</p><script>steal()</script><style>p{}</style>", "ok"),
        ('<a href="https://example.com/q">quote</a>', "[quote](https://example.com/q)"),
        ('<a href="javascript:alert(1)">click</a>', "click"),
        ('<a href="mailto:a@b.test">mail</a>', "[mail](mailto:a@b.test)"),
        ('see <img src="https://t.test/pixel.gif" alt="the *plan*"> here', "see the \\*plan\\* here"),
    ],
)
def test_html_becomes_markdown_without_scripts_or_unsafe_links(html: str, expected: str) -> None:
    assert markdown(html) == expected


def test_a_comment_opens_with_its_provenance_header_and_goes_on_its_line() -> None:
    """The header names the author (not the email), the time in UTC and the legacy id; the target is the line."""
    mapped = map_comment("p1", "prj_1", comment(lineId="lin_legacy", accountId="acc_legacy"), lookup)
    assert mapped.body["content"] == "> Legacy comment by Jane Producer, 2024-03-18 16:00 UTC (legacy id c-123)\n\nHi"
    assert "jane@example.com" not in mapped.body["content"]
    assert mapped.body["target"] == {"kind": "budgetLine", "id": "lin_v1"}
    assert mapped.notes == ()


def test_a_comment_on_an_account_goes_on_the_account_and_one_on_nothing_on_the_project() -> None:
    on_account = map_comment("p1", "prj_1", comment(accountId="acc_legacy"), lookup)
    assert on_account.body["target"] == {"kind": "budgetLine", "id": "acc_v1"}
    assert map_comment("p1", "prj_1", comment(), lookup).body["target"] == {"kind": "project", "id": "prj_1"}


def test_a_comment_whose_line_is_quarantined_goes_on_the_project_with_a_note() -> None:
    mapped = map_comment("p1", "prj_1", comment(lineId="lin_refused", accountId="acc_legacy"), lookup)
    assert mapped.body["target"] == {"kind": "project", "id": "prj_1"}
    (note,) = mapped.notes
    assert (note.kind, note.field, note.old) == (NoteKind.UNASSIGNED, "lineId", "lin_refused")


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("Jane *Producer*", "Jane \\*Producer\\*"),
        ("[click](https://evil.test)", "\\[click\\]\\(https://evil.test\\)"),
        ("<img src=x onerror=y>", "\\<img src=x onerror=y\\>"),
        ("Jane\n# Heading", "Jane # Heading"),
        ("`code` | pipe _under_", "\\`code\\` \\| pipe \\_under\\_"),
    ],
)
def test_the_authors_name_is_escaped_for_markdown(name: str, shown: str) -> None:
    assert escaped_markdown(name) == shown
    content = map_comment("p1", "prj_1", comment(author={"name": name}), lookup).body["content"]
    assert content.startswith(f"> Legacy comment by {shown}, ")
    assert content.count("\n") == 2  # the header stays one line whatever the name holds


def test_a_comment_without_author_or_with_a_bad_time() -> None:
    anonymous = map_comment("p1", "prj_1", comment(author=None), lookup).body["content"]
    assert anonymous.startswith("> Legacy comment by an unknown author, ")
    with pytest.raises(MappingError) as refused:
        map_comment("p1", "prj_1", comment(createdAt="yesterday"), lookup)
    assert (refused.value.code, refused.value.field) == (ErrorCode.DATE_INVALID, "createdAt")


def test_an_empty_comment_is_refused_not_invented() -> None:
    with pytest.raises(MappingError) as refused:
        map_comment("p1", "prj_1", comment(content="<p> </p>"), lookup)
    assert refused.value.code is ErrorCode.TEXT_EMPTY


def test_the_root_note_is_a_project_comment_from_its_html_else_its_text() -> None:
    rich = map_root_note("p1", "prj_1", BudgetNote.model_validate({"id": "n-1", "html": "<p><em>Five</em> days</p>"}))
    assert rich.body == {
        "content": "> Legacy budget note (legacy id n-1)\n\n*Five* days",
        "target": {"kind": "project", "id": "prj_1"},
    }
    plain = map_root_note("p1", "prj_1", BudgetNote.model_validate({"id": "n-1", "html": "", "text": "Five days"}))
    assert plain.body["content"].endswith("\n\nFive days")
    assert not has_note(BudgetNote.model_validate({"id": "n-1", "text": " ", "html": ""}))
    assert not has_note(None)


def test_a_rate_becomes_a_pack_item_in_exact_minor_units_with_what_is_not_carried_said() -> None:
    rate = Rate.model_validate(
        {
            "id": "r1",
            "identifier": "Gaffer",
            "description": "Gaffer (crew)",
            "rate": 650.5,
            "unit": "day",
            "quantity": 5,
            "emoji": "💡",
            "note": "Union minimum",
            "contact": {"id": "c1", "name": "Ana"},
        }
    )
    mapped = map_rate(rate, "USD")
    assert mapped.body == {
        "title": "Gaffer",
        "rate": {"amount": 65050, "currency": "USD"},
        "unit": "day",
        "description": "Gaffer (crew)",
        "quantity": 5,
    }
    assert {(n.kind, n.field, n.old) for n in mapped.notes} == {
        (NoteKind.NOT_CARRIED, "emoji", "💡"),
        (NoteKind.NOT_CARRIED, "note", "Union minimum"),
        (NoteKind.NOT_CARRIED, "contact", "Ana"),
    }
    assert rate_pack().body == {"name": RATE_PACK_NAME}


@pytest.mark.parametrize(
    ("fields", "code", "field"),
    [
        ({"rate": 150}, ErrorCode.RATE_UNIT_MISSING, "unit"),
        ({"rate": 150, "unit": ""}, ErrorCode.RATE_UNIT_MISSING, "unit"),
        ({"unit": "day"}, ErrorCode.NUMBER_MISSING, "rate"),
        ({"rate": 12.345, "unit": "day"}, ErrorCode.MONEY_TOO_PRECISE, "rate"),
    ],
)
def test_a_rate_without_unit_or_rate_is_refused_never_invented(
    fields: dict[str, object], code: ErrorCode, field: str
) -> None:
    with pytest.raises(MappingError) as refused:
        map_rate(Rate.model_validate({"id": "r1", "identifier": "Dirty", **fields}), "USD")
    assert (refused.value.code, refused.value.field) == (code, field)
    assert "re-run" in str(refused.value)
