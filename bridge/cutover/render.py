"""The cutover certificate for people: Markdown beside the signed JSON, every value from it escaped.

The predicate's values (project names, ids, open items) are source text, so each one goes through the reports'
Markdown escape (``bridge.verify.report.markdown_text``); nested values are flattened to dotted paths, one
table row each, so nothing the source wrote can open a code block or a link.
"""

from __future__ import annotations

from securesystemslib.dsse import Envelope

from bridge.canonical import Json
from bridge.cutover.certificate import Verdict, payload_statement
from bridge.verify.report import markdown_text


def render_markdown(envelope: Envelope, verdict: Verdict | None = None) -> str:
    """The certificate as Markdown: its subjects, signers, predicate and (when checked) the verification."""
    found = payload_statement(envelope)
    if found is None:
        return "# Cutover certificate\n\nThe payload is not an in-toto Statement v1.\n"
    lines = ["# Cutover certificate", "", f"Predicate type: {markdown_text(str(found.get('predicateType')))}", ""]
    lines += ["## Subjects", "", "| file | SHA-256 |", "|---|---|"]
    for entry in found["subject"] if isinstance(found["subject"], list) else []:
        digest = entry.get("digest") if isinstance(entry, dict) else None
        name = entry.get("name") if isinstance(entry, dict) else None
        sha = digest.get("sha256") if isinstance(digest, dict) else None
        lines.append(f"| {markdown_text(str(name))} | {markdown_text(str(sha))} |")
    lines += ["", "## Signatures", ""]
    lines += [f"- key {markdown_text(keyid)}" for keyid in sorted(envelope.signatures)] or ["- none"]
    lines += ["", "## Predicate", "", "| field | value |", "|---|---|"]
    lines += [
        f"| {markdown_text(path)} | {markdown_text(value)} |" for path, value in _flat(found.get("predicate"), "")
    ]
    if verdict is not None:
        lines += ["", "## Verification", ""]
        said = [f"- {markdown_text(problem)}" for problem in verdict.problems]
        lines += said or ["Every subject's digest and every signature verified."]
    return "\n".join(lines) + "\n"


def _flat(value: Json, path: str) -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [row for key, item in value.items() for row in _flat(item, f"{path}.{key}" if path else key)]
    if isinstance(value, list):
        return [row for n, item in enumerate(value) for row in _flat(item, f"{path}[{n}]")]
    return [(path, "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value))]
