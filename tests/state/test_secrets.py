"""No secret reaches the state file, its -wal or -shm, or a backup: a canary scan of the raw bytes."""

from __future__ import annotations

import base64
import signal
import urllib.parse
from pathlib import Path

import pytest

from state import SecretInStateError, open_state
from tests.state import writer
from tests.state.conftest import writer_process

CANARIES = {
    "BRIDGE_LEGACY_KEY": "canary-legacy-key-7f3a91c2d4",
    "BRIDGE_V1_TOKEN": "canary-v1-token-b81e0f55aa",
    "BRIDGE_WEBHOOK_SECRET": "canary-webhook-secret-42c0de",
}


def _forms(secret: str) -> list[bytes]:
    raw = secret.encode()
    return [
        raw,
        base64.b64encode(raw),
        base64.urlsafe_b64encode(raw),
        raw.hex().encode(),
        urllib.parse.quote(secret, safe="").encode(),
        secret.encode("utf-16-le"),
    ]


def _scan(directory: Path) -> list[str]:
    hits = []
    for path in sorted(directory.iterdir()):
        data = path.read_bytes()
        hits += [f"{path.name}: {name}" for name, secret in CANARIES.items() for form in _forms(secret) if form in data]
    return hits


@pytest.mark.slow
def test_state_files_hold_no_canary_secret(
    tmp_path: Path, expected_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With canary credentials in the environment and offered as options, no form of them is in any file."""
    for name, value in CANARIES.items():
        monkeypatch.setenv(name, value)
    path = tmp_path / "bridge-state.db"
    with open_state(path) as store:
        for option, value in (("legacy_key", CANARIES["BRIDGE_LEGACY_KEY"]), ("token", CANARIES["BRIDGE_V1_TOKEN"])):
            with pytest.raises(SecretInStateError) as caught:
                store.runs.start("acme", writer.SOURCE, writer.TARGET, {option: value})
            assert value not in str(caught.value)
    # A writer killed mid-run leaves its -wal and -shm behind: those are scanned too, as they are on disk.
    process = writer_process(expected_file, str(path), "kill-after", str(len(writer.TRANSITIONS) - 1))
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    assert Path(f"{path}-wal").stat().st_size > 0
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["bridge-state.db", "bridge-state.db-lock", "bridge-state.db-shm", "bridge-state.db-wal"]
    assert _scan(tmp_path) == []
    with open_state(path) as store:
        writer.drive(store, writer.load_snapshots(expected_file))
    assert _scan(tmp_path) == []
