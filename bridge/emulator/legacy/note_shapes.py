"""A budget note as the legacy surface writes it (``NoteData``), in the forms a read's ``format`` asks for."""

from __future__ import annotations

from bridge.emulator.core.records import Note

FORMATS = ("json", "html", "text", "all")


def note_data(note: Note | None, form: str = "all") -> dict[str, object]:
    """Its id and the asked form (``all``: text, HTML and the TipTap JSON); no note is an empty ``NoteData``
    (every field optional): the published `nullable` beside `allOf` admits no null (OAS 3.0.3)."""
    if note is None:
        return {}
    forms = {"text": note.text, "html": note.html, "json": note.json}
    return {"id": note.id, **(forms if form == "all" else {form: forms[form]})}
