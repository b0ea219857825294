"""A budget note as the legacy surface writes it (``NoteData``), in the forms a read's ``format`` asks for."""

from __future__ import annotations

from bridge.emulator.core.records import Note

FORMATS = ("json", "html", "text", "all")


def note_data(note: Note | None, form: str = "all") -> dict[str, object] | None:
    """``None`` for no note; else its id and the asked form (``all``: text, HTML and the TipTap JSON)."""
    if note is None:
        return None
    forms = {"text": note.text, "html": note.html, "json": note.json}
    return {"id": note.id, **(forms if form == "all" else {form: forms[form]})}
