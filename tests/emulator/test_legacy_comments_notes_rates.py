"""The legacy comments, budget notes and workspace rates, read as a client reads them (answers held to the
published shapes by the legacy contract hook), and the two details the official SDKs trip on."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from bridge.emulator.core.store import Service

pytestmark = pytest.mark.anyio


async def _first_project(client: httpx.AsyncClient) -> str:
    return str((await client.get("/projects")).json()["projects"][0]["id"])


async def _budget_lines(client: httpx.AsyncClient, project: str, *expands: str) -> list[dict[str, Any]]:
    """Every line of the project's budget (the top level and every sub-account's lines), by system id."""
    params = httpx.QueryParams({"expands[]": list(expands), "idMode": "system"})
    budget = (await client.get(f"/projects/{project}/budget", params=params)).json()
    found: list[dict[str, Any]] = list(budget["account"]["lines"])
    for account in budget["subAccounts"].values():
        found += account["lines"]
    return found


# -- comments -------------------------------------------------------------------------------------------------


async def test_comments_list_with_their_author_and_place(legacy_client: httpx.AsyncClient) -> None:
    """Every seeded project has comments, some HTML with formatting, each with its author's id, name and email;
    a project comment has no account or line, an account comment its code, a line comment the line's id."""
    project = await _first_project(legacy_client)
    comments = (await legacy_client.get(f"/projects/{project}/comments")).json()["comments"]
    assert len(comments) == 6
    assert any("<strong>" in c["content"] for c in comments)
    assert all(set(c["author"]) == {"id", "name", "email"} and "@" in c["author"]["email"] for c in comments)
    places = {(c["accountId"] is None, c["lineId"] is None) for c in comments}
    assert places == {(True, True), (False, True), (False, False)}


async def test_comments_filter_by_account_and_line(legacy_client: httpx.AsyncClient) -> None:
    """accountId takes the account's code (or id) and keeps its comments; lineId keeps one line's."""
    project = await _first_project(legacy_client)
    comments = (await legacy_client.get(f"/projects/{project}/comments")).json()["comments"]
    on_line = next(c for c in comments if c["lineId"])
    by_line = (await legacy_client.get(f"/projects/{project}/comments", params={"lineId": on_line["lineId"]})).json()
    assert {c["lineId"] for c in by_line["comments"]} == {on_line["lineId"]}
    code = on_line["accountId"]
    by_account = (await legacy_client.get(f"/projects/{project}/comments", params={"accountId": code})).json()
    assert on_line["id"] in {c["id"] for c in by_account["comments"]}
    assert {c["accountId"] for c in by_account["comments"]} == {code}
    missing = await legacy_client.get(f"/projects/{project}/comments", params={"lineId": "lin_none"})
    assert missing.status_code == 404


async def test_comments_show_account_ids_in_system_mode(legacy_client: httpx.AsyncClient) -> None:
    """With idMode=system an account comment names the account by its id, not its code."""
    project = await _first_project(legacy_client)
    user = (await legacy_client.get(f"/projects/{project}/comments")).json()["comments"]
    system = (await legacy_client.get(f"/projects/{project}/comments", params={"idMode": "system"})).json()
    pairs = {(u["accountId"], s["accountId"]) for u, s in zip(user, system["comments"], strict=True) if u["accountId"]}
    assert all(code != ident and ident.startswith("lin_") for code, ident in pairs)


# -- notes ----------------------------------------------------------------------------------------------------


async def test_the_root_note_comes_in_every_format(legacy_client: httpx.AsyncClient) -> None:
    """format=all gives text, HTML and the TipTap JSON; each single format gives the id and that form only."""
    project = await _first_project(legacy_client)
    whole = (await legacy_client.get(f"/projects/{project}/budget/note")).json()["note"]
    assert "<strong>union</strong>" in whole["html"]
    assert "union crew" in whole["text"]
    assert json.loads(whole["json"])["type"] == "doc"
    for form in ("json", "html", "text"):
        one = (await legacy_client.get(f"/projects/{project}/budget/note", params={"format": form})).json()["note"]
        assert one == {"id": whole["id"], form: whole[form]}
    bad = await legacy_client.get(f"/projects/{project}/budget/note", params={"format": "markdown"})
    assert bad.status_code == 400


async def test_line_notes_come_with_the_line_and_only_on_account_lines(legacy_client: httpx.AsyncClient) -> None:
    """A noted line answers its note and line metadata; a subtotal answers a null note; an unknown line 404."""
    project = await _first_project(legacy_client)
    lines = await _budget_lines(legacy_client, project, "lines.notes")
    noted = next(line for line in lines if line.get("note"))
    answer = (await legacy_client.get(f"/projects/{project}/budget/note/{noted['id']}")).json()
    assert answer["note"] == noted["note"]
    assert answer["line"]["id"] == noted["id"]
    assert answer["line"]["type"] == "account"
    subtotal = next(line for line in lines if line["type"] == "subtotal")
    empty = (await legacy_client.get(f"/projects/{project}/budget/note/{subtotal['id']}")).json()
    assert empty["note"] == {}
    assert empty["line"]["type"] == "subtotal"
    assert (await legacy_client.get(f"/projects/{project}/budget/note/lin_none")).status_code == 404


async def test_the_budget_carries_line_notes_only_when_asked(legacy_client: httpx.AsyncClient) -> None:
    """lines.notes adds a NoteData to every noted line (a line without one omits it); without it no line has
    a note key."""
    project = await _first_project(legacy_client)
    plain = await _budget_lines(legacy_client, project)
    assert all("note" not in line for line in plain)
    expanded = await _budget_lines(legacy_client, project, "lines.notes")
    notes = [line["note"] for line in expanded if "note" in line]
    assert notes
    assert all(set(note) == {"id", "text", "html", "json"} for note in notes)


async def test_a_v1_plain_text_note_reads_back_as_a_legacy_note(
    legacy_client: httpx.AsyncClient, emulator_service: Service
) -> None:
    """A line's plain-text notes (what v1 writes) read on the legacy surface as one paragraph per line."""
    alias = await _first_project(legacy_client)
    project = next(p for p in emulator_service.workspace("source").projects.values() if p.alias == alias)
    line = next(n for n in project.nodes.values() if n.type == "line" and not n.notes)
    emulator_service.update_node(project, line.id, {"notes": "Call the vendor\nBefore Friday"})
    note = (await legacy_client.get(f"/projects/{project.id}/budget/note/{line.id}")).json()["note"]
    assert note["text"] == "Call the vendor\nBefore Friday"
    assert note["html"] == "<p>Call the vendor</p><p>Before Friday</p>"


# -- rates ----------------------------------------------------------------------------------------------------


async def test_rates_page_by_limit_and_offset(legacy_client: httpx.AsyncClient) -> None:
    """The default page is 100 rates at most; limit and offset walk the list without gaps or repeats."""
    everything = (await legacy_client.get("/rates", params={"limit": 1000})).json()["rates"]
    assert len(everything) == 40
    assert len((await legacy_client.get("/rates")).json()["rates"]) == 40
    walked: list[str] = []
    for offset in range(0, 40, 15):
        page = (await legacy_client.get("/rates", params={"limit": 15, "offset": offset})).json()["rates"]
        walked += [r["id"] for r in page]
    assert walked == [r["id"] for r in everything]
    assert {r["unit"] for r in everything} <= {
        "hour",
        "day",
        "week",
        "month",
        "year",
        "each",
        "sqft",
        "sqm",
        "lnft",
        "lnm",
    }


@pytest.mark.parametrize(("name", "value"), [("limit", "0"), ("limit", "1001"), ("offset", "-1"), ("limit", "ten")])
async def test_rate_paging_outside_its_bounds_is_refused(
    legacy_client: httpx.AsyncClient, name: str, value: str
) -> None:
    """limit 1-1000 and offset from 0, as published; anything else is a 400 naming the parameter."""
    answer = await legacy_client.get("/rates", params={name: value})
    assert answer.status_code == 400
    assert answer.json()["details"]["field"] == name


async def test_rates_search_and_expand_their_contact(legacy_client: httpx.AsyncClient) -> None:
    """search matches identifier, description or note in any case; expands[]=contact inlines the contact."""
    found = (await legacy_client.get("/rates", params={"search": "GAFFER"})).json()["rates"]
    assert found
    assert all("gaffer" in (r["identifier"] + r["description"]).lower() for r in found)
    plain = (await legacy_client.get("/rates")).json()["rates"]
    assert all("contact" not in r for r in plain)
    expanded = (await legacy_client.get("/rates", params={"expands[]": "contact"})).json()["rates"]
    assert any(r.get("contact", {}).get("email") for r in expanded)


async def test_rates_are_created_changed_and_deleted(legacy_client: httpx.AsyncClient) -> None:
    """POST answers 201 with the rate, PUT changes what it sends, DELETE 204 and the rate is gone."""
    made = await legacy_client.post("/rates", json={"identifier": "DoP", "rate": 175.5, "unit": "day", "quantity": 3})
    assert made.status_code == 201
    rate = made.json()
    assert (rate["identifier"], rate["rate"], rate["unit"], rate["quantity"]) == ("DoP", 175.5, "day", 3)
    changed = await legacy_client.put(f"/rates/{rate['id']}", json={"rate": 200, "note": "Flat"})
    assert (changed.json()["rate"], changed.json()["note"], changed.json()["identifier"]) == (200, "Flat", "DoP")
    assert (await legacy_client.delete(f"/rates/{rate['id']}")).status_code == 204
    assert (await legacy_client.delete(f"/rates/{rate['id']}")).status_code == 404
    assert rate["id"] not in {
        r["id"] for r in (await legacy_client.get("/rates", params={"limit": 1000})).json()["rates"]
    }


@pytest.mark.parametrize(("body", "field"), [({"unit": "days"}, "unit"), ({"rate": "175"}, "rate")])
async def test_a_rate_outside_its_published_types_is_refused(
    legacy_client: httpx.AsyncClient, body: dict[str, object], field: str
) -> None:
    """A unit outside the published enum, or a rate sent as text, is a 400 naming the field."""
    answer = await legacy_client.post("/rates", json=body)
    assert answer.status_code == 400
    assert answer.json()["details"]["field"] == field


# -- what the SDKs send ---------------------------------------------------------------------------------------


async def test_a_bare_date_window_takes_in_whole_days(legacy_client: httpx.AsyncClient) -> None:
    """startDate/endDate as bare dates are accepted; the window runs from the first day's midnight through
    the last day's end, as the same window in date-times does."""
    project = await _first_project(legacy_client)
    everything = (await legacy_client.get(f"/projects/{project}/actuals")).json()["actuals"]
    day = sorted(a["date"] for a in everything)[len(everything) // 2][:10]
    bare = await legacy_client.get(f"/projects/{project}/actuals", params={"startDate": day, "endDate": day})
    assert bare.status_code == 200
    timed = {"startDate": f"{day}T00:00:00Z", "endDate": f"{day}T23:59:59.999999Z"}
    same = (await legacy_client.get(f"/projects/{project}/actuals", params=timed)).json()["actuals"]
    assert [a["id"] for a in bare.json()["actuals"]] == [a["id"] for a in same]
    assert bare.json()["actuals"]


@pytest.mark.parametrize("param", ["expands[]", "expand"])
async def test_an_expanded_line_without_a_contact_carries_a_null_contact(
    legacy_client: httpx.AsyncClient, param: str
) -> None:
    """expands[]=contact (or expand=contact) on a line read: its contact when it has one, else contact null."""
    project = await _first_project(legacy_client)
    lines = [line for line in await _budget_lines(legacy_client, project) if line["type"] == "line"]
    bare = next(line for line in lines if line["contactId"] is None)
    staffed = next(line for line in lines if line["contactId"] is not None)
    url = f"/projects/{project}/budget/line"
    without = (await legacy_client.get(f"{url}/{bare['id']}", params={param: "contact"})).json()
    assert "contact" in without
    assert without["contact"] is None
    with_one = (await legacy_client.get(f"{url}/{staffed['id']}", params={param: "contact"})).json()
    assert with_one["contact"]["id"] == staffed["contactId"]
    unexpanded = (await legacy_client.get(f"{url}/{bare['id']}")).json()
    assert "contact" not in unexpanded
