"""Files through the conformance check: a multipart upload is captured as its parts (never the file's bytes) and
checked against the form's schema, a file answered is checked by its status and content type, and a file id's
%2F stays one path segment."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from bridge.emulator.app import create_app
from bridge.emulator.core.seed import seeded_service
from conformance.check import V1, Contract, Exchange, check, read_capture

DESCRIPTION = """
openapi: 3.1.0
info: {title: t, version: 1.0.0}
servers: [{url: https://example.invalid/v1}]
components:
  securitySchemes:
    bearerAuth: {type: http, scheme: bearer}
security: [{bearerAuth: []}]
paths:
  /documents:
    post:
      operationId: upload
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              required: [file]
              additionalProperties: false
              properties:
                file: {type: string, format: binary}
                metadata: {type: string}
            encoding:
              metadata: {contentType: text/plain}
      responses:
        '201':
          description: created
          content:
            application/json:
              schema: {type: object, required: [id], properties: {id: {type: string}}}
  /documents/{id}/content:
    get:
      operationId: content
      parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: the file
          content:
            application/octet-stream:
              schema: {type: string, format: binary}
"""


@pytest.fixture(scope="module")
def contract(tmp_path_factory: pytest.TempPathFactory) -> Contract:
    path = tmp_path_factory.mktemp("contract") / "v1.yaml"
    path.write_text(DESCRIPTION, encoding="utf-8")
    return Contract(V1, path)


def _upload(parts: dict[str, object]) -> Exchange:
    return Exchange(
        method="POST",
        path="/v1/documents",
        query="",
        auth=("authorization:bearer",),
        headers={"content-type": "multipart/form-data; boundary=b"},
        body={"$multipart": parts},
        status=201,
        response_headers={"content-type": "application/json"},
        response={"id": "doc_1"},
    )


FILE = {"contentType": "application/pdf", "filename": "a.pdf", "bytes": 9, "text": None}
METADATA = {"contentType": "text/plain", "filename": None, "bytes": 16, "text": '{"name":"a.pdf"}'}


def test_a_form_is_checked_by_its_parts(contract: Contract) -> None:
    """The file and metadata parts conform (the binary part is said to be uncheckable by openapi-core, not a
    violation); a part the form does not declare, or a missing required one, is a violation."""
    report = check({V1: contract}, [_upload({"file": FILE, "metadata": METADATA})])
    assert (report.requests.conform, report.requests.checked) == (1, 1)
    bad = check({V1: contract}, [_upload({"metadata": METADATA, "links": METADATA})])
    assert bad.requests.conform == 0
    assert any("links" in problem for problem in bad.requests.violations)
    assert any("file" in problem for problem in bad.requests.violations)


def test_a_file_answer_is_checked_by_its_status_and_type(contract: Contract) -> None:
    """Bytes answered under the declared status conform whatever their type (octet-stream declared); an
    undeclared status does not."""
    answer = Exchange("GET", "/v1/documents/doc_1/content", "", ("authorization:bearer",), {}, None, 200,
                      {"content-type": "application/pdf"}, {"$bytes": 9})  # fmt: skip
    assert check({V1: contract}, [answer]).responses.conform == 1
    missing = Exchange("GET", "/v1/documents/doc_1/content", "", ("authorization:bearer",), {}, None, 206,
                       {"content-type": "application/pdf"}, {"$bytes": 9})  # fmt: skip
    assert check({V1: contract}, [missing]).responses.conform == 0


def test_the_capture_keeps_a_form_as_its_parts_and_a_file_id_encoded(tmp_path: Path) -> None:
    """A legacy download of a file id holding '/' is captured on its encoded path with the byte count of the
    answer; a v1 upload with its parts' types, names and sizes, the metadata's text, and none of the file."""
    capture = tmp_path / "capture.jsonl"
    app = create_app(seeded_service(42, "small"), legacy_key="lk_secret_key_0123456789", capture=capture)
    token = "tok_secret_token_0123456789"
    app.state.emulator.tokens.issue(app.state.emulator.service.workspace("target").id, "admin", token=token)
    secret = b"%PDF-1.4 secret-bytes"

    async def calls() -> None:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://emulator") as client:
            legacy = {"X-API-Key": "lk_secret_key_0123456789"}
            contacts = (
                await client.get("/api/v1/contacts", params=[("expands", "taxDocuments")], headers=legacy)
            ).json()
            file_id = next(f["id"] for c in contacts["contacts"] for f in c.get("taxDocuments") or [])
            quoted = httpx.URL(f"/api/v1/files/{file_id.replace('/', '%2F')}/download")
            assert (await client.get(quoted, headers=legacy)).status_code == 200
            files: dict[str, tuple[str | None, bytes, str]] = {
                "file": ("w9.pdf", secret, "application/pdf"),
                "metadata": (None, b'{"name":"w9.pdf"}', "text/plain"),
            }
            headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "key-0123456789abcdef"}
            assert (await client.post("/v1/documents", files=files, headers=headers)).status_code == 201

    asyncio.run(calls())
    text = capture.read_text(encoding="utf-8")
    assert secret.decode() not in text
    download, upload = [e for e in read_capture([capture]) if "/files/" in e.path or e.path == "/v1/documents"]
    assert "%2F" in download.path
    assert isinstance(download.response, dict)
    assert download.response["$bytes"] > 0
    assert upload.body == {
        "$multipart": {
            "file": {"contentType": "application/pdf", "filename": "w9.pdf", "bytes": len(secret), "text": None},
            "metadata": {"contentType": "text/plain", "filename": None, "bytes": 17, "text": '{"name":"w9.pdf"}'},
        }
    }
    assert json.loads(text.splitlines()[-1])["status"] == 201
