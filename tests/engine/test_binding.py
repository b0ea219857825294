"""A state file is bound to its legacy workspace, not only to the URL every workspace of the service shares:
another workspace's key is refused before anything is written, a rotated key of the same workspace resumes."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.clients.legacy import open_legacy
from bridge.clients.v1 import open_v1
from bridge.config import Secret
from bridge.engine.preflight import check_workspaces
from state import StateBindingError, open_state
from tests.support.world import SMALL_PROJECT, World, fast_controls

pytestmark = pytest.mark.wire


def _bridge(world: World, *args: str, **env: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=world.env(**env), catch_exceptions=False)
    return result.exit_code, result.output


def _control(world: World, method: str, path: str, body: object = None) -> httpx.Response:
    response = httpx.request(method, f"{world.base_url}/_emulator{path}", json=body)
    response.raise_for_status()
    return response


def _other_workspace(world: World) -> str:
    """A second workspace behind the same URL, with a space, a project and a contact made through the legacy
    surface with its own key; that key."""
    _control(world, "POST", "/workspaces", {"name": "other"})
    key = str(_control(world, "POST", "/legacy-keys", {"workspace": "other"}).json()["key"])
    for path, body in (("spaces", {"name": "Other"}), ("projects", {"name": "Other film"}), ("contacts", {})):
        made = httpx.post(
            f"{world.base_url}/api/v1/{path}", json={"name": "Pat Other", **body}, headers={"X-API-Key": key}
        )
        assert made.status_code == 201, made.text
    return key


def _writes(world: World) -> int:
    return int(_control(world, "GET", "/stats").json()["writes"])


def test_a_second_workspace_behind_the_same_url_is_refused_with_exit_2_and_nothing_written(
    served: World, tmp_path: Path
) -> None:
    """After the small project of `source` is migrated, `plan`, `run` and `verify` with the key of another
    workspace on the same URL exit 2 naming what to do, and write nothing to v1; the same key on a new state
    file plans."""
    code, output = _bridge(served, "run", "--project", SMALL_PROJECT)
    assert code in (0, 1), output
    other_key = _other_workspace(served)
    written = _writes(served)
    census = asyncio.run(served.census())
    for command in ("plan", "run", "verify"):
        code, output = _bridge(served, command, "--project", SMALL_PROJECT, BRIDGE_LEGACY_KEY=other_key)
        assert code == 2, output
        assert "another workspace" in output
        assert "1 space, 1 project, 1 contact" in output
        assert "--state" in output
        assert other_key not in output
    assert _writes(served) == written
    assert asyncio.run(served.census()) == census
    code, output = _bridge(served, "plan", BRIDGE_LEGACY_KEY=other_key, BRIDGE_STATE=str(tmp_path / "other.db"))
    assert code == 0, output


def test_verify_check_refuses_the_other_workspace_and_accepts_the_migrated_one(served: World) -> None:
    """The read-only check `bridge verify` makes: the other workspace's key is refused, the source's is not."""
    assert _bridge(served, "run", "--project", SMALL_PROJECT)[0] in (0, 1)
    other_key = _other_workspace(served)

    async def check(key: str) -> None:
        legacy_url, v1_url = f"{served.base_url}/api/v1", f"{served.base_url}/v1"
        controls = fast_controls()
        with open_state(served.state, read_only=True) as store:
            async with (
                open_legacy(legacy_url, Secret(key), controls) as legacy,
                open_v1(v1_url, Secret(served.token), controls) as v1,
            ):
                await check_workspaces(legacy, v1, store, legacy_url)

    asyncio.run(check(served.legacy_key))
    with pytest.raises(StateBindingError):
        asyncio.run(check(other_key))


def test_a_rotated_key_of_the_same_workspace_resumes_to_the_census_of_a_clean_run(
    served: World, reference: Counter[tuple[str, ...]]
) -> None:
    """A run stopped part way (its token revoked after the first line bulk) while the legacy key is rotated:
    the old key is refused (exit 5, credentials refused), the new key resumes to exactly what a clean run leaves."""
    route = "/v1/projects/*/budget/lines/bulk"
    _control(served, "POST", "/faults", {"rules": [{"kind": "revoke_token", "route": route, "after": 1}]})
    code, output = _bridge(served, "run", "--project", SMALL_PROJECT)
    assert code == 5, output
    _control(served, "POST", "/faults", {})
    served.token = str(_control(served, "POST", "/tokens", {"workspace": "target"}).json()["token"])
    rotated = str(_control(served, "POST", "/legacy-keys", {"workspace": "source"}).json()["key"])
    _control(served, "DELETE", f"/legacy-keys/{served.legacy_key}")
    written = _writes(served)
    code, output = _bridge(served, "run", "--project", SMALL_PROJECT)
    assert code == 5, output
    assert _writes(served) == written
    code, output = _bridge(served, "run", "--project", SMALL_PROJECT, BRIDGE_LEGACY_KEY=rotated)
    assert code == 0, output
    assert asyncio.run(served.census()) == reference
