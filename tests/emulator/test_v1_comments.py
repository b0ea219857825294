"""v1 comments as a client sees them: who wrote them and when, on which target, in which thread; who may change
what; the list's filters and pages. Answers are held to the published shapes by the v1 contract hook."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.emulator.documented_codes import produced
from tests.support.emulator import CONTRACT_HOOKS, in_process

pytestmark = pytest.mark.anyio
_keys = itertools.count()


def key() -> dict[str, str]:
    return {"Idempotency-Key": f"comment-test-key-{next(_keys):08d}"}


async def _created(client: httpx.AsyncClient, url: str, body: dict[str, object]) -> dict[str, Any]:
    response = await client.post(url, json=body, headers=key())
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


@pytest.fixture
async def project(v1_client: httpx.AsyncClient) -> dict[str, str]:
    """A project with an account and a line under it."""
    made = await _created(v1_client, "/projects", {"name": "Comments"})
    pid = str(made["id"])
    account = await _created(v1_client, f"/projects/{pid}/budget/lines", {"description": "A", "type": "account"})
    line = await _created(v1_client, f"/projects/{pid}/budget/lines", {"description": "L", "parentId": account["id"]})
    return {"pid": pid, "line": str(line["id"]), "account": str(account["id"])}


def _comment(target: str, kind: str = "budgetLine", **more: object) -> dict[str, object]:
    return {"content": "Can we confirm the **drone** rate?", "target": {"kind": kind, "id": target}, **more}


async def test_a_comment_is_the_token_users_at_server_time(
    v1_client: httpx.AsyncClient, project: dict[str, str]
) -> None:
    """The author is the token's user and createdAt the time of the request; the content is kept as sent."""
    me = (await v1_client.get("/me")).json()
    before = datetime.now(UTC) - timedelta(seconds=1)
    made = await _created(v1_client, f"/projects/{project['pid']}/comments", _comment(project["line"]))
    assert (made["author"]["id"], made["author"]["name"]) == (me["id"], me["name"])
    assert made["content"] == "Can we confirm the **drone** rate?"
    assert made["target"] == {"kind": "budgetLine", "id": project["line"]}
    assert (made["threadId"], made["resolved"], made["edited"], made["replyCount"]) == (None, False, False, 0)
    assert datetime.fromisoformat(made["createdAt"].replace("Z", "+00:00")) >= before


async def test_a_create_replays_under_its_key_and_conflicts_on_another_body(
    v1_client: httpx.AsyncClient, project: dict[str, str]
) -> None:
    """The same key and body replays the first comment; the same key with another body is 409."""
    url, headers = f"/projects/{project['pid']}/comments", key()
    first = await v1_client.post(url, json=_comment(project["line"]), headers=headers)
    again = await v1_client.post(url, json=_comment(project["line"]), headers=headers)
    assert (again.status_code, again.json()["id"], again.headers["Idempotency-Replayed"]) == (
        201,
        first.json()["id"],
        "true",
    )
    other = await v1_client.post(url, json=_comment(project["account"]), headers=headers)
    assert other.status_code == 409
    produced(409, "idempotency_conflict")
    listed = (await v1_client.get(url, params={"withCount": "true"})).json()
    assert listed["count"] == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"content": "", "target": {"kind": "project", "id": "x"}}, "content"),
        ({"content": "x"}, "target"),
        ({"content": "x", "target": {"kind": "invoice", "id": "x"}}, "target.kind"),
        ({"content": "x", "target": {"kind": "project", "id": "x", "extra": 1}}, "target.extra"),
        ({"content": "x", "target": {"kind": "project", "id": "x"}, "author": "me"}, "author"),
        (
            {"content": "x", "target": {"kind": "project", "id": "x"}, "tags": [{"targetType": "user"}]},
            "tags[0].targetId",
        ),
    ],
)
async def test_a_create_outside_the_closed_shape_is_400(
    v1_client: httpx.AsyncClient, project: dict[str, str], body: dict[str, object], field: str
) -> None:
    """CommentCreate is closed: a missing or empty content, a missing target, an unknown kind or field is 400."""
    answer = await v1_client.post(f"/projects/{project['pid']}/comments", json=body, headers=key())
    assert answer.status_code == 400
    assert field in answer.json()["fieldErrors"]
    produced(400, "validation")


async def test_a_create_needs_an_idempotency_key(v1_client: httpx.AsyncClient, project: dict[str, str]) -> None:
    """No key, or one shorter than 16 characters, is 400 validation, and nothing is made."""
    url = f"/projects/{project['pid']}/comments"
    assert (await v1_client.post(url, json=_comment(project["line"]))).status_code == 400
    short = await v1_client.post(url, json=_comment(project["line"]), headers={"Idempotency-Key": "short"})
    assert short.status_code == 400
    assert (await v1_client.get(url)).json()["data"] == []


@pytest.mark.parametrize("kind", ["budgetLine", "transaction", "contact", "purchaseOrder", "document"])
async def test_a_comment_on_a_target_that_does_not_exist_is_422(
    v1_client: httpx.AsyncClient, project: dict[str, str], kind: str
) -> None:
    """The target must exist: a well-formed comment on nothing is refused and nothing is made."""
    url = f"/projects/{project['pid']}/comments"
    answer = await v1_client.post(url, json=_comment("xyz_missing", kind), headers=key())
    assert answer.status_code == 422
    produced(422, None)
    assert (await v1_client.get(url)).json()["data"] == []


async def test_comments_list_by_target_and_thread_in_pages(
    v1_client: httpx.AsyncClient, project: dict[str, str]
) -> None:
    """targetKind with targetId keeps one target's comments; threadId a thread's replies; pages walk them all."""
    url = f"/projects/{project['pid']}/comments"
    root = await _created(v1_client, url, _comment(project["line"]))
    for _ in range(3):
        await _created(v1_client, url, _comment(project["line"], threadId=root["id"]))
    await _created(v1_client, url, _comment(project["pid"], "project"))
    on_line = (await v1_client.get(url, params={"targetKind": "budgetLine", "targetId": project["line"]})).json()
    assert len(on_line["data"]) == 4
    replies = (await v1_client.get(url, params={"threadId": root["id"], "withCount": "true"})).json()
    assert replies["count"] == 3
    listed_root = next(c for c in on_line["data"] if c["id"] == root["id"])
    assert listed_root["replyCount"] == 3
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params = {"limit": "2", **({"cursor": cursor} if cursor else {})}
        page = (await v1_client.get(url, params=params)).json()
        seen += [c["id"] for c in page["data"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 5
    half = await v1_client.get(url, params={"targetKind": "budgetLine"})
    assert half.status_code == 400


async def test_a_reply_to_a_reply_is_refused(v1_client: httpx.AsyncClient, project: dict[str, str]) -> None:
    """threadId names a root comment: a reply's id is refused."""
    url = f"/projects/{project['pid']}/comments"
    root = await _created(v1_client, url, _comment(project["line"]))
    reply = await _created(v1_client, url, _comment(project["line"], threadId=root["id"]))
    answer = await v1_client.post(url, json=_comment(project["line"], threadId=reply["id"]), headers=key())
    assert answer.status_code == 400


async def test_only_the_author_changes_the_content_but_anyone_resolves(
    v1_app: FastAPI, v1_client: httpx.AsyncClient, project: dict[str, str], issue_token: Callable[..., str]
) -> None:
    """The author edits the body (edited true); another user's edit is 403 forbidden, their resolve is kept
    and the list's resolved filter finds it."""
    url = f"/projects/{project['pid']}/comments"
    made = await _created(v1_client, url, _comment(project["line"]))
    edited = await v1_client.patch(f"{url}/{made['id']}", json={"content": "Confirmed."})
    assert (edited.json()["content"], edited.json()["edited"]) == ("Confirmed.", True)
    headers = {"Authorization": f"Bearer {issue_token()}"}
    async with in_process(v1_app, "/v1", headers, CONTRACT_HOOKS) as other:
        refused = await other.patch(f"{url}/{made['id']}", json={"content": "Mine now"})
        assert refused.status_code == 403
        assert refused.json()["code"] == "forbidden"
        resolved = await other.patch(f"{url}/{made['id']}", json={"resolved": True})
        assert (resolved.json()["resolved"], resolved.json()["content"]) == (True, "Confirmed.")
    assert (await v1_client.patch(f"{url}/{made['id']}", json={})).status_code == 400
    done = (await v1_client.get(url, params={"resolved": "true"})).json()["data"]
    open_ones = (await v1_client.get(url, params={"resolved": "false"})).json()["data"]
    assert ([c["id"] for c in done], open_ones) == ([made["id"]], [])


async def test_a_viewer_cannot_comment(
    v1_app: FastAPI, project: dict[str, str], issue_token: Callable[..., str]
) -> None:
    """A read-only token is refused the create with 403 permission_revoked."""
    headers = {"Authorization": f"Bearer {issue_token(role='viewer')}"}
    async with in_process(v1_app, "/v1", headers, CONTRACT_HOOKS) as viewer:
        answer = await viewer.post(
            f"/projects/{project['pid']}/comments", json=_comment(project["line"]), headers=key()
        )
        assert answer.status_code == 403


async def test_deleting_a_comment_deletes_its_replies(v1_client: httpx.AsyncClient, project: dict[str, str]) -> None:
    """DELETE answers 204 and takes the thread with it; a second delete finds nothing (404)."""
    url = f"/projects/{project['pid']}/comments"
    root = await _created(v1_client, url, _comment(project["line"]))
    await _created(v1_client, url, _comment(project["line"], threadId=root["id"]))
    assert (await v1_client.delete(f"{url}/{root['id']}")).status_code == 204
    assert (await v1_client.get(url)).json()["data"] == []
    assert (await v1_client.delete(f"{url}/{root['id']}")).status_code == 404
    assert (await v1_client.patch(f"{url}/{root['id']}", json={"resolved": True})).status_code == 404


async def test_comments_on_a_missing_project_are_404(v1_client: httpx.AsyncClient) -> None:
    """The project in the path must exist."""
    assert (await v1_client.get("/projects/prj_missing/comments")).status_code == 404
