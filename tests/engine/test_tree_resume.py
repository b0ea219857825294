"""A run stopped in the middle of a budget tree resumes it without sending any line the target already has."""

from __future__ import annotations

from collections import Counter

import pytest

from bridge.errors import AuthenticationLost
from mappings.kinds import Kind
from tests.support.world import World


def _lines(census: Counter[tuple[str, ...]]) -> int:
    return sum(count for key, count in census.items() if key[0] == "line")


@pytest.mark.anyio
async def test_resumed_tree_sends_only_the_lines_the_target_lacks(
    world: World, reference: Counter[tuple[str, ...]]
) -> None:
    """Stopped after its first line bulk, the resumed run creates only the rest: each line once, none re-sent."""
    route = "/v1/projects/*/budget/lines/bulk"
    await world.control("POST", "/faults", {"rules": [{"kind": "revoke_token", "route": route, "after": 1}]})
    with pytest.raises(AuthenticationLost):
        await world.run()
    await world.control("POST", "/faults", {})
    fresh = await world.control("POST", "/tokens", {"workspace": "target", "role": "admin"})
    assert isinstance(fresh, dict)
    world.token = str(fresh["token"])
    created_before = _lines(await world.census())
    assert 0 < created_before < _lines(reference)
    resumed = await world.run()
    # Every line a create carries counts here (the replayed bulk and the fresh ones): a re-sent line would too,
    # and the lines the stopped run finished are unchanged: each line of the source counted once.
    lines = resumed.ledger.of(Kind.LINE)
    assert lines.to_create + lines.replayed == _lines(reference) - created_before
    assert lines.unchanged == created_before
    assert lines.records == _lines(reference)
    assert await world.census() == reference
