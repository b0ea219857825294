"""v1 documents: a billable upload under an Idempotency-Key (replayed, or refused for other bytes), the content
as uploaded, lists by link, and the link rules (one per kind, replace, targets that must exist)."""

from __future__ import annotations

import hashlib
import itertools
import json
from typing import Any

import httpx
import pytest

from tests.emulator.documented_codes import produced

pytestmark = pytest.mark.anyio
_keys = itertools.count()
PDF = b"%PDF-1.4\n1 0 obj << >> endobj\n%%EOF\n"


def key() -> str:
    return f"document-key-{next(_keys):08d}"


async def upload(
    client: httpx.AsyncClient,
    data: bytes = PDF,
    metadata: dict[str, object] | None = None,
    idempotency_key: str | None = None,
    boundary: str = "fixed-boundary-0001",
) -> httpx.Response:
    """A multipart upload with a boundary of our choosing, so that a retry sends the same bytes."""
    files = {"file": ("invoice.pdf", data, "application/pdf")}
    form = {"metadata": json.dumps(metadata)} if metadata is not None else {}
    request = httpx.Request(
        "POST",
        "http://e/",
        files=files,
        data=form,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    headers = {"Content-Type": request.headers["Content-Type"], "Idempotency-Key": idempotency_key or key()}
    return await client.post("/documents", content=request.read(), headers=headers)


async def created(client: httpx.AsyncClient, url: str, body: dict[str, object]) -> dict[str, Any]:
    answer = await client.post(url, json=body, headers={"Idempotency-Key": key()})
    assert answer.status_code == 201, answer.text
    result: dict[str, Any] = answer.json()
    return result


@pytest.fixture
async def world(v1_client: httpx.AsyncClient) -> dict[str, str]:
    """A project with a line, two transactions and a contact to link documents to."""
    project = await created(v1_client, "/projects", {"name": "Docs"})
    pid = project["id"]
    line = await created(v1_client, f"/projects/{pid}/budget/lines", {"description": "Camera"})
    txn = {"projectId": pid, "type": "Invoice", "amount": {"amount": 100, "currency": "USD"}, "timestamp": "2026-01-02"}
    first, second = await created(v1_client, "/transactions", txn), await created(v1_client, "/transactions", txn)
    contact = await created(v1_client, "/contacts", {"name": "Ada"})
    return {"pid": pid, "line": line["id"], "txn": first["id"], "txn2": second["id"], "contact": contact["id"]}


async def test_an_upload_is_stored_as_sent_and_counted_as_billable(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """201 with name, MIME type, size and a SHA-256 content hash; the content is the bytes sent, with the
    stored MIME type; the control stats count one upload and its bytes."""
    answer = await upload(v1_client, metadata={"name": "vendor-invoice.pdf", "description": "April"})
    assert answer.status_code == 201, answer.text
    produced(201, None)
    doc = answer.json()
    assert (doc["name"], doc["mimeType"], doc["size"], doc["links"]) == (
        "vendor-invoice.pdf",
        "application/pdf",
        len(PDF),
        [],
    )
    content = await v1_client.get(f"/documents/{doc['id']}/content")
    assert content.content == PDF
    assert content.headers["content-type"] == "application/pdf"
    assert doc["contentHash"] == hashlib.sha256(PDF).hexdigest()
    assert (await v1_client.get(f"/documents/{doc['id']}")).json() == doc
    stats = (await control_client.get("/stats")).json()
    assert stats["documentUploads"] == {"count": 1, "bytes": len(PDF)}


async def test_a_replay_answers_the_same_document_and_other_bytes_conflict(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """The same key and bytes replay the first document (Idempotency-Replayed: true, nothing billed again);
    the same key with other file bytes, or the same file under another boundary, is 409 idempotency_conflict."""
    reused = key()
    first = await upload(v1_client, idempotency_key=reused)
    again = await upload(v1_client, idempotency_key=reused)
    assert (again.status_code, again.json()["id"]) == (201, first.json()["id"])
    assert again.headers["Idempotency-Replayed"] == "true"
    for changed in (
        await upload(v1_client, data=PDF + b" ", idempotency_key=reused),
        await upload(v1_client, idempotency_key=reused, boundary="another-boundary-02"),
    ):
        assert (changed.status_code, changed.json()["code"]) == (409, "idempotency_conflict")
    produced(409, "idempotency_conflict")
    assert (await control_client.get("/stats")).json()["documentUploads"]["count"] == 1


@pytest.mark.parametrize(
    ("metadata", "field"),
    [
        ({"name": "x", "folder": "fld_1"}, "metadata.folder"),
        ({"links": {"kind": "paymentRequest", "id": "x"}}, "metadata.links"),
        ({"name": ""}, "metadata.name"),
    ],
)
async def test_metadata_outside_its_shape_is_400(
    v1_client: httpx.AsyncClient, metadata: dict[str, object], field: str
) -> None:
    answer = await upload(v1_client, metadata=metadata)
    assert (answer.status_code, answer.json()["code"]) == (400, "validation"), answer.text
    assert any(name.startswith(field) for name in answer.json()["fieldErrors"])


async def test_an_upload_without_a_key_or_a_file_is_400(v1_client: httpx.AsyncClient) -> None:
    request = httpx.Request("POST", "http://e/", files={"file": ("a.pdf", PDF, "application/pdf")})
    no_key = await v1_client.post("/documents", content=request.read(), headers=dict(request.headers))
    assert "Idempotency-Key" in no_key.json()["fieldErrors"]
    not_form = await v1_client.post("/documents", json={"file": "x"}, headers={"Idempotency-Key": key()})
    assert (not_form.status_code, not_form.json()["code"]) == (400, "validation")


async def test_metadata_links_are_made_with_the_upload_or_nothing_is_made(
    v1_client: httpx.AsyncClient, world: dict[str, str]
) -> None:
    """One link object (as the published example) or a list; a missing target makes no document at all."""
    one = await upload(v1_client, metadata={"links": {"kind": "transaction", "id": world["txn"]}})
    assert one.json()["links"] == [{"kind": "transaction", "id": world["txn"]}]
    assert one.json()["projectId"] == world["pid"]
    both = [{"kind": "contact", "id": world["contact"]}, {"kind": "transaction", "id": world["txn2"]}]
    assert (await upload(v1_client, metadata={"links": both})).json()["links"] == both
    failed = await upload(v1_client, metadata={"links": [both[0], {"kind": "project", "id": "prj_none"}]})
    assert (failed.status_code, failed.json()["code"]) == (404, "document_target_not_found")
    twice = await upload(v1_client, metadata={"links": [both[0], both[0]]})
    assert twice.status_code == 400
    listed = (await v1_client.get("/documents", params={"linkedTo": f"contact:{world['contact']}"})).json()["data"]
    assert len(listed) == 1


async def test_lists_filter_by_link_project_and_unassigned(v1_client: httpx.AsyncClient, world: dict[str, str]) -> None:
    linked = (await upload(v1_client, metadata={"links": {"kind": "transaction", "id": world["txn"]}})).json()
    loose = (await upload(v1_client)).json()

    async def ids(**params: str) -> list[str]:
        answer = await v1_client.get("/documents", params=params)
        assert answer.status_code == 200, answer.text
        return [d["id"] for d in answer.json()["data"]]

    assert await ids(linkedTo=f"transaction:{world['txn']}") == [linked["id"]]
    assert await ids(linkedTo=f"transaction:{world['txn2']}") == []
    assert await ids(unassigned="true") == [loose["id"]]
    assert await ids(project=world["pid"]) == [linked["id"]]
    assert await ids() == [linked["id"], loose["id"]]
    assert await ids(sort="createdAt", order="desc") == [loose["id"], linked["id"]]
    page = (await v1_client.get("/documents", params={"limit": "1", "withCount": "true"})).json()
    assert (len(page["data"]), page["count"]) == (1, 2)
    rest = (await v1_client.get("/documents", params={"limit": "1", "cursor": page["nextCursor"]})).json()
    assert [d["id"] for d in rest["data"]] == [loose["id"]]
    for bad in ({"linkedTo": "invoice:1"}, {"linkedTo": "transaction:"}, {"status": "done"}, {"sort": "colour"}):
        answer = await v1_client.get("/documents", params=bad)
        assert (answer.status_code, answer.json()["code"]) == (400, "validation")


async def test_link_rules(v1_client: httpx.AsyncClient, world: dict[str, str]) -> None:
    """Same target again: no effect; another target of that kind: 409 already_linked unless replace; a missing
    target (or a purchase order, which the emulator does not keep yet): 404 document_target_not_found; unlink
    is safe to repeat."""
    doc = (await upload(v1_client)).json()
    url = f"/documents/{doc['id']}/links/transaction"
    first = await v1_client.put(url, json={"targetId": world["txn"]})
    assert first.json()["links"] == [{"kind": "transaction", "id": world["txn"]}]
    same = await v1_client.put(url, json={"targetId": world["txn"]})
    assert same.json() == first.json()
    other = await v1_client.put(url, json={"targetId": world["txn2"]})
    assert (other.status_code, other.json()["code"]) == (409, "already_linked")
    produced(409, "already_linked")
    replaced = await v1_client.put(url, json={"targetId": world["txn2"], "replace": True})
    assert replaced.json()["links"] == [{"kind": "transaction", "id": world["txn2"]}]
    line = await v1_client.put(
        f"/documents/{doc['id']}/links/budgetLine", json={"targetId": world["line"], "phaseId": None}
    )
    assert [link["kind"] for link in line.json()["links"]] == ["transaction", "budgetLine"]
    for kind, target in (("contact", "con_missing"), ("purchaseOrder", "po_1"), ("project", "prj_missing")):
        missing = await v1_client.put(f"/documents/{doc['id']}/links/{kind}", json={"targetId": target})
        assert (missing.status_code, missing.json()["code"]) == (404, "document_target_not_found")
    produced(404, "document_target_not_found")
    bad_kind = await v1_client.put(f"/documents/{doc['id']}/links/paymentRequest", json={"targetId": "x"})
    assert bad_kind.status_code == 400
    no_target = await v1_client.put(url, json={"replace": True})
    assert "targetId" in no_target.json()["fieldErrors"]
    for _ in range(2):
        unlinked = await v1_client.delete(url)
        assert [link["kind"] for link in unlinked.json()["links"]] == ["budgetLine"]
    assert (
        await v1_client.put("/documents/doc_none/links/transaction", json={"targetId": world["txn"]})
    ).status_code == 404


async def test_transactions_and_contacts_expand_their_documents(
    v1_client: httpx.AsyncClient, world: dict[str, str]
) -> None:
    doc = (
        await upload(v1_client, metadata={"name": "w9.pdf", "links": {"kind": "contact", "id": world["contact"]}})
    ).json()
    await v1_client.put(f"/documents/{doc['id']}/links/transaction", json={"targetId": world["txn"]})
    txn = (await v1_client.get(f"/transactions/{world['txn']}", params={"expand": "documents"})).json()
    assert txn["documents"] == [{"id": doc["id"], "name": "w9.pdf"}]
    contact = (await v1_client.get(f"/contacts/{world['contact']}", params={"expand": "documents"})).json()
    assert [(d["id"], d["size"]) for d in contact["documents"]] == [(doc["id"], len(PDF))]


async def test_update_delete_and_extraction(v1_client: httpx.AsyncClient) -> None:
    """PATCH renames and describes; an empty PATCH is 400; delete is 204 twice, then the document is 404; the
    extraction of a document the emulator never extracts is 404."""
    doc = (await upload(v1_client)).json()
    url = f"/documents/{doc['id']}"
    changed = await v1_client.patch(url, json={"name": "renamed.pdf", "description": "Tax document", "folderId": None})
    assert (changed.json()["name"], changed.json()["description"]) == ("renamed.pdf", "Tax document")
    assert (await v1_client.patch(url, json={})).status_code == 400
    assert (await v1_client.patch(url, json={"links": []})).status_code == 400
    assert (await v1_client.get(f"{url}/extraction")).status_code == 404
    for _ in range(2):
        assert (await v1_client.delete(url)).status_code == 204
    assert (await v1_client.get(url)).status_code == 404
    assert (await v1_client.get(f"{url}/content")).status_code == 404
