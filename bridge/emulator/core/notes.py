"""Budget notes: a project's root note and its lines' notes, in text, HTML and TipTap JSON.

A line's note is one record both surfaces show: v1 reads and writes its plain text (``Node.notes``), the legacy
surface serves it in all three forms. The rich form (``Project.notes``, by node id) is kept from the HTML it
was written in and stands while the line's text is still its text; once a plain-text write replaces the text,
the note is that text alone, as one paragraph per line. Notes exist only on account-type lines (the model's
accounts and lines); a subtotal or a markup has none. The root note has no v1 counterpart.
"""

from __future__ import annotations

import json
from html import escape
from html.parser import HTMLParser

from bridge.emulator.core.model import Node, Project
from bridge.emulator.core.records import ROOT_NOTE, Note
from bridge.emulator.core.workspaces import StoreCore

NOTED_TYPES = ("account", "line")
Json = dict[str, object]
_MARKS = {"strong": "bold", "b": "bold", "em": "italic", "i": "italic", "u": "underline"}
_BLOCKS = {"p": "paragraph", "li": "listItem", "h1": "heading", "h2": "heading", "h3": "heading"}


class _TipTap(HTMLParser):
    """HTML as a TipTap document: paragraphs, headings and bullet lists holding text with bold/italic marks."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[Json] = []
        self.lines: list[str] = []
        self.marks: list[str] = []
        self.runs: list[Json] | None = None
        self.in_list = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _MARKS:
            self.marks.append(_MARKS[tag])
        elif tag == "ul":
            self.in_list = True
            self.blocks.append({"type": "bulletList", "content": []})
        elif tag in _BLOCKS:
            self.runs = []

    def handle_endtag(self, tag: str) -> None:
        if tag in _MARKS and _MARKS[tag] in self.marks:
            self.marks.remove(_MARKS[tag])
        elif tag == "ul":
            self.in_list = False
        elif tag in _BLOCKS and self.runs is not None:
            self._close_block(tag)

    def handle_data(self, data: str) -> None:
        if self.runs is None:  # text outside any block reads as its own paragraph
            if not data.strip():
                return
            self.runs = []
            self._run(data)
            self._close_block("p")
            return
        self._run(data)

    def _run(self, data: str) -> None:
        assert self.runs is not None
        run: Json = {"type": "text", "text": data}
        if self.marks:
            run["marks"] = [{"type": mark} for mark in self.marks]
        self.runs.append(run)

    def _close_block(self, tag: str) -> None:
        runs, self.runs = self.runs or [], None
        text = "".join(str(run["text"]) for run in runs)
        paragraph: Json = {"type": "paragraph", "content": runs} if runs else {"type": "paragraph"}
        if tag == "li" and self.in_list:
            items = self.blocks[-1]["content"]
            assert isinstance(items, list)
            items.append({"type": "listItem", "content": [paragraph]})
            self.lines.append(f"- {text}")
            return
        if tag.startswith("h"):
            heading: Json = {"type": "heading", "attrs": {"level": int(tag[1])}}
            self.blocks.append(heading | ({"content": runs} if runs else {}))
        else:
            self.blocks.append(paragraph)
        self.lines.append(text)


def note_from_html(note_id: str, html: str) -> Note:
    """A note written as ``html``: its plain text (one line per block) and its TipTap document."""
    parser = _TipTap()
    parser.feed(html)
    parser.close()
    document = {"type": "doc", "content": parser.blocks or [{"type": "paragraph"}]}
    return Note(note_id, "\n".join(parser.lines), html, json.dumps(document, separators=(",", ":")))


def note_from_text(note_id: str, text: str) -> Note:
    """A note written as plain text: one paragraph per line."""
    html = "".join(f"<p>{escape(line)}</p>" for line in text.split("\n"))
    return note_from_html(note_id, html)


class NotesStore(StoreCore):
    """Read the budget notes (the legacy surface publishes no note write; v1 writes a line's text)."""

    def root_note(self, project: Project) -> Note | None:
        return project.notes.get(ROOT_NOTE)

    def line_note(self, project: Project, node: Node) -> Note | None:
        """The line's note in its rich form while its text stands, else as its plain text; None on a line that
        takes no note or has none."""
        if node.type not in NOTED_TYPES or not node.notes:
            return None
        rich = project.notes.get(node.id)
        if rich is not None and rich.text == node.notes:
            return rich
        return note_from_text(f"note_{node.id.partition('_')[2] or node.id}", node.notes)
