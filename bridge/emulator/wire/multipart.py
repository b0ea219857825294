"""``multipart/form-data`` bodies (RFC 7578), read as both surfaces' uploads need them: each part's name,
file name, content type and exact bytes.

Written here rather than through Starlette's form parser, which needs a package the project does not carry, and
which would spool a part to disk; an upload the emulator takes is small enough to hold (a legacy file is at most
10 MB, and the body is read whole to fingerprint it for Idempotency-Key anyway).
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import Message


class MultipartError(ValueError):
    """The body is not the multipart form its Content-Type announces; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class Part:
    name: str
    data: bytes
    filename: str | None = None
    content_type: str | None = None

    def text(self) -> str:
        """The part's bytes as UTF-8 text (a form field such as ``metadata`` or ``projectId``)."""
        try:
            return self.data.decode()
        except UnicodeDecodeError as exc:
            raise MultipartError(f"part {self.name!r} is not UTF-8 text") from exc


def _header_params(value: str) -> tuple[str, dict[str, str]]:
    """A header's main value and its parameters (``form-data; name="file"; filename="a.pdf"``)."""
    message = Message()
    message["content-type"] = value  # the email package reads parameters, quoting included, the same way
    params = {key.lower(): str(param) for key, param in (message.get_params(header="content-type") or [])[1:]}
    return value.split(";", 1)[0].strip().lower(), params


def boundary_of(content_type: str | None) -> str:
    """The boundary a ``multipart/form-data`` Content-Type names."""
    kind, params = _header_params(content_type or "")
    if kind != "multipart/form-data" or not params.get("boundary"):
        raise MultipartError("send the body as multipart/form-data with a boundary")
    return params["boundary"]


def parse(body: bytes, content_type: str | None) -> dict[str, Part]:
    """The form's parts by name (a repeated name: the first part counts)."""
    delimiter = b"--" + boundary_of(content_type).encode("latin-1")
    sections = body.split(b"\r\n" + delimiter)
    head = sections[0]
    if not head.startswith(delimiter):
        raise MultipartError("the body does not start with its boundary")
    sections[0] = head[len(delimiter) :]
    if len(sections) < 2 or not sections[-1].startswith(b"--"):
        raise MultipartError("the body does not end with its closing boundary")
    parts: dict[str, Part] = {}
    for section in sections[:-1]:
        part = _part(section)
        parts.setdefault(part.name, part)
    return parts


def _part(section: bytes) -> Part:
    if not section.startswith(b"\r\n"):
        raise MultipartError("a boundary is not followed by a line break")
    raw_headers, found, data = section[2:].partition(b"\r\n\r\n")
    if not found:
        raw_headers, data = section[2:].removesuffix(b"\r\n"), b""
    headers: dict[str, str] = {}
    for line in raw_headers.decode("latin-1").split("\r\n"):
        if line:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
    kind, params = _header_params(headers.get("content-disposition", ""))
    if kind != "form-data" or "name" not in params:
        raise MultipartError("a part has no Content-Disposition: form-data with a name")
    return Part(
        name=params["name"], data=data, filename=params.get("filename"), content_type=headers.get("content-type")
    )
