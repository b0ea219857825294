"""The legacy client over a broken service: bad rows become refused records, depth never becomes recursion."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import date

import httpx
import pytest
import respx

from bridge import errors
from bridge.clients.http import RunControls
from bridge.clients.legacy import open_legacy
from bridge.clients.legacy_actuals import ActualsReader, total_amount
from bridge.clients.legacy_budget import PiecewiseReader, flatten_budget
from bridge.config import Secret
from mappings.errors import ErrorCode
from mappings.records import BudgetLine, CompactLine

BASE = "https://old.test/api/v1"
KEY = Secret("lk_hostile_0123456789abcdefgh")
DEPTH = 5_000


def _chain(depth: int) -> dict[str, object]:
    """A root whose accounts nest ``depth`` deep, each holding the next in its ``lines`` (built bottom up)."""
    node: dict[str, object] = {"id": f"a{depth}", "type": "line", "description": "Leaf"}
    for level in range(depth - 1, 0, -1):
        node = {"id": f"a{level}", "type": "account", "description": f"Level {level}", "lines": [node]}
    return {"id": "root", "lines": [node]}


def test_a_budget_nested_five_thousand_deep_flattens_at_the_normal_recursion_limit() -> None:
    """The whole-document walk uses a stack: every node comes out, parents first, under its parent."""
    assert sys.getrecursionlimit() < DEPTH
    lines = flatten_budget("p1", {"account": _chain(DEPTH)}, None).lines
    assert len(lines) == DEPTH
    assert [line.parent_id for line in lines[:3]] == [None, "a1", "a2"]
    assert all(line.refusal is None for line in lines)


@pytest.mark.anyio
async def test_a_budget_nested_five_thousand_deep_is_read_in_pieces_at_the_normal_recursion_limit() -> None:
    """The account-by-account walk uses a stack too, and finds the same nodes as the whole read."""

    async def get_json(_path: str, params: Sequence[tuple[str, str]]) -> tuple[object, str | None]:
        assert "accountId" not in dict(params)  # every level came nested under the root's answer
        return {"account": _chain(DEPTH)}, None

    pieces = await PiecewiseReader(get_json, "p1", ()).read(())
    whole = flatten_budget("p1", {"account": _chain(DEPTH)}, None).lines
    assert pieces == tuple(CompactLine.of(line) for line in whole)


def test_a_line_under_two_accounts_is_refused_as_a_duplicate_once() -> None:
    """Listed under two accounts, a line is one refused node (record.duplicate_id), not silently dropped."""
    shared = {"id": "l1", "type": "line", "description": "Catering"}
    root = {
        "id": "root",
        "lines": [
            {"id": "a1", "type": "account", "lines": [shared]},
            {"id": "a2", "type": "account", "lines": [shared, {"id": "l2", "type": "line"}]},
        ],
    }
    lines = flatten_budget("p1", {"account": root}, None).lines
    assert [line.id for line in lines] == ["a1", "l1", "a2", "l2"]
    refused = lines[1]
    assert refused.refusal is not None
    assert (refused.refusal.code, refused.parent_id) == (ErrorCode.DUPLICATE_ID, "a1")
    assert [line.refusal for line in lines if line.id != "l1"] == [None, None, None]


@pytest.mark.parametrize(
    ("row", "code", "field"),
    [
        ({"description": 42}, ErrorCode.FIELD_TYPE, "description"),
        ({"description": "Crew \ud800"}, ErrorCode.TEXT_INVALID_UNICODE, "description"),
        ({"tags": ["vfx", 7]}, ErrorCode.FIELD_TYPE, "tags.1"),
        ({"phaseData": {"ph1": [1]}}, ErrorCode.FIELD_TYPE, "phaseData.ph1"),
        ({"id": "l\x00"}, ErrorCode.RECORD_ID_INVALID, "id"),
    ],
)
def test_a_line_row_of_the_wrong_shape_is_a_refused_node_naming_the_field(
    row: dict[str, object], code: ErrorCode, field: str
) -> None:
    """The bad line is kept in its place, refused with its code and field; its sibling is read as usual."""
    bad = {"id": "l1", "type": "line", **row}
    root = {"id": "root", "lines": [bad, {"id": "l2", "type": "line", "description": "Fuel"}]}
    first, second = flatten_budget("p1", {"account": root}, None).lines
    assert first.refusal is not None
    assert (first.refusal.code, first.refusal.field) == (code, field)
    assert first.refusal.message.isprintable()
    assert second == BudgetLine(id="l2", type="line", description="Fuel", position=1)


@pytest.mark.anyio
async def test_a_list_row_of_the_wrong_shape_or_a_repeated_id_is_refused_and_the_rest_read(
    controls: RunControls,
) -> None:
    """A contact whose rate is an array reads (the mappings refuse the number); one of the wrong type, or an
    id listed twice, is a refused contact; the good contact is read whole."""
    contacts = [
        {"id": "c1", "name": "Ana"},
        {"id": "c2", "name": "Bo", "rate": [250]},
        {"id": "c3", "name": ["Cy"]},
        {"id": "c4", "name": "Di"},
        {"id": "c4", "name": "Di again"},
    ]
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/contacts").mock(return_value=httpx.Response(200, json={"contacts": contacts}))
        async with open_legacy(BASE, KEY, controls) as client:
            read = await client.contacts()
    assert [c.id for c in read] == ["c1", "c2", "c3", "c4"]
    assert [c.refusal.code if c.refusal else None for c in read] == [
        None,
        None,
        ErrorCode.FIELD_TYPE,
        ErrorCode.DUPLICATE_ID,
    ]
    assert read[1].rate == [250]


@pytest.mark.anyio
async def test_an_actual_listed_twice_in_one_answer_is_refused_once() -> None:
    """Two rows with one id in one window are two records in the source: one refused actual, not a silent pick."""
    rows = [
        {"id": "t1", "amount": 10, "date": "2026-01-05T00:00:00Z"},
        {"id": "t1", "amount": 12, "date": "2026-01-05T00:00:00Z"},
        {"id": "t2", "amount": True, "date": "2026-01-05T00:00:00Z"},
    ]

    async def fetch(_path: str, params: Sequence[tuple[str, str]]) -> tuple[object, str | None]:
        inside = "startDate" in dict(params) and "endDate" in dict(params)
        return {"actuals": rows if inside else [], "totalAmount": True}, None

    reader = ActualsReader(fetch, "p1")
    read = [actual async for actual in reader.read(date(2026, 1, 1), date(2026, 1, 31))]
    assert [(a.id, a.refusal.code if a.refusal else None) for a in read] == [
        ("t1", ErrorCode.DUPLICATE_ID),
        ("t2", None),
    ]
    assert read[1].amount is True  # kept as sent: the mappings refuse it as number.not_numeric
    assert reader.summary.total_amount == 0  # `true` is no total


@pytest.mark.parametrize(("total", "expected"), [(12.5, "12.5"), (True, "0"), (float("nan"), "0"), ("5", "0")])
def test_an_actuals_total_amount_is_read_only_as_a_finite_number(total: object, expected: str) -> None:
    """``totalAmount`` of true, NaN or text reads as no total (0), never as a number guessed from it."""
    assert str(total_amount({"totalAmount": total})) == expected


@pytest.mark.anyio
async def test_a_body_nested_past_the_recursion_limit_is_an_unexpected_response(controls: RunControls) -> None:
    """A JSON body nested deeper than the decoder can go stops the read with a named error, not a traceback."""
    body = '{"contacts": ' + "[" * 100_000 + "]" * 100_000 + "}"
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/contacts").mock(return_value=httpx.Response(200, text=body))
        async with open_legacy(BASE, KEY, controls) as client:
            with pytest.raises(errors.UnexpectedResponse, match="nested too deep"):
                await client.contacts()
