"""``python -m conformance.drive --out DIR [--size small --size medium]``: capture the runs the contract covers.

For each size it serves the emulator (seed 42) on a loopback port with a capture file and drives the real
``bridge`` commands as subprocesses, as an operator would:

- ``clean``: ``plan``, ``run``, ``verify`` on a fresh emulator;
- ``dirty``: the same with the catalogue of bad source records (``--dirty``);
- ``sync``: after the delta, ``sync --once`` twice, an actual deleted at the source in between;
- ``cutover``: after the sync, the first project's ``cutover check``, ``freeze`` and ``finalize`` (signed with a
  key made here), then a ``sync --once`` that keeps the others in step and only watches it;
- ``delta``: after the clean run, the source changes (a line's rate, a new actual, a project renamed, a split
  part's description, two purchase orders edited: made in the emulator's store, so the rehearsal itself is not
  in the capture) and ``plan``, ``run``, ``verify`` again.

Each scenario leaves ``DIR/<size>-<scenario>.jsonl``. The cleanup runbook is captured by its own test:
``EMULATOR_CAPTURE=DIR/runbooks.jsonl pytest tests/test_runbooks.py`` (every ``bridge emulate`` the
runbooks start appends to that file). Then ``python -m conformance --v1 ... --legacy ... DIR/*.jsonl``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import httpx
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from bridge.emulator.app import create_app
from bridge.emulator.control.serving import BackgroundServer
from bridge.emulator.core.model import Project
from bridge.emulator.core.purchase_orders import LegacyItem
from bridge.emulator.core.seed import Size, seeded_service
from bridge.emulator.core.store import Service

COMMANDS = (("plan", "--out", "plan.json"), ("run",), ("verify",))
# Bridge mode after the delta: a first cycle (reads back v1), then one after an actual is deleted at the source
# (the cycle deletes its transaction on v1: transactions_delete).
SYNC = (("sync", "--once"),)
STEP_TIMEOUT_S = 1200
KEY = "cutover-key.pem"


def _cutover(project: str) -> tuple[tuple[str, ...], ...]:
    """A project's cutover as runbook 09 makes it, then the cycle that follows it."""
    at = ("--project", project)
    finalize = ("cutover", "finalize", *at, "--quiet-period", "1s", "--key", KEY)
    return ("cutover", "check", *at), ("cutover", "freeze", *at), finalize, ("sync", "--once")


def _key(work: Path) -> None:
    """The Ed25519 key finalize signs with, as `openssl genpkey -algorithm ed25519` writes it, readable by its
    owner only (finalize refuses any other)."""
    pem = Ed25519PrivateKey.generate().private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    path = work / KEY
    path.unlink(missing_ok=True)
    path.touch(mode=0o600)
    path.write_bytes(pem)


@contextmanager
def _served(service: Service, capture: Path) -> Iterator[dict[str, str]]:
    """The emulator over ``service`` on a loopback port; yields the environment a bridge command needs."""
    app = create_app(service, capture=capture)
    with BackgroundServer(app) as base, httpx.Client(base_url=f"{base}/_emulator", timeout=30) as control:
        token = control.post("/tokens", json={"workspace": "target", "role": "admin"}).json()["token"]
        yield {
            "BRIDGE_LEGACY_URL": f"{base}/api/v1",
            "BRIDGE_V1_URL": f"{base}/v1",
            "BRIDGE_LEGACY_KEY": app.state.credentials.legacy_key,
            "BRIDGE_V1_TOKEN": token,
            "NO_COLOR": "1",
        }


def _bridge(env: dict[str, str], work: Path, state: Path, commands: tuple[tuple[str, ...], ...] = COMMANDS) -> None:
    for command in commands:
        argv = [sys.executable, "-c", "from bridge.cli import main; main()", *command]
        done = subprocess.run(  # noqa: S603 - this interpreter and fixed bridge subcommands
            argv,
            env={**os.environ, **env, "BRIDGE_STATE": str(state)},
            cwd=work,
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT_S,
            check=False,
        )
        last = (done.stdout.strip().splitlines() or [""])[-1]
        print(f"    bridge {command[0]}: exit {done.returncode}  {last[:100]}")


def _change_source(service: Service) -> None:
    """What people keep doing in the legacy workspace after a first migration (runbook 07, plus a rename)."""
    workspace = service.workspace("source")
    project = service.list_projects(workspace)[0]
    line = next(node for node in service.walk(project) if node.type == "line")
    phase = sorted(project.phases.values(), key=lambda p: p.sort)[0]
    service.set_phase_data(project, line.id, phase.id, {"rate": Decimal(2000)})
    service.create_actual(
        workspace,
        project,
        {
            "description": "Late invoice: grip truck",
            "amount": Decimal("1234.56"),
            "date": "2026-11-20T00:00:00Z",
            "line_id": line.id,
            "type": "Invoice",
            "status": "Paid",
        },
    )
    service.update_project(workspace, project.id, {"name": f"{project.name} (director's cut)"})
    # A split part's own text edited: the delta then patches a transaction item on v1 (transactions_updateItem).
    split = next(a for p in service.list_projects(workspace) for a in p.actuals.values() if a.subactuals)
    split.subactuals[0].description = "Part 1, revised"
    _change_orders(project)


def _change_orders(project: Project) -> None:
    """Purchase orders edited after the first run: one retitled with its first item dearer and an item added, another
    with its last item removed (the delta then sends purchase-orders_update, _updateItem, _createItem and
    _deleteItem)."""
    edited, trimmed = [order for order in project.purchase_orders.values() if len(order.items) > 1][:2]
    edited.title = f"{edited.title or 'Order'} (revised)"
    edited.items[0].total_price += 1
    edited.items.append(LegacyItem("poi_delta", Decimal(1), Decimal("12.34"), Decimal("12.34"), edited.last_modified))
    trimmed.items.pop()
    for order in (edited, trimmed):
        order.amount = sum((item.total_price for item in order.items), Decimal(0))


def _delete_at_source(service: Service) -> None:
    """An actual deleted in the legacy workspace (one with no parts and no order; with files where one has them:
    the cycle then deletes the documents made of them too, documents_delete)."""
    workspace = service.workspace("source")
    project = service.list_projects(workspace)[0]
    plain = [a for a in project.actuals.values() if not a.subactuals and not a.purchase_order_id]
    actual = next((a for a in plain if workspace.files.files_of("actual", a.id)), plain[0])
    service.delete_actual(project, actual.id)


def drive(size: Size, out: Path) -> None:
    work = out / f"{size}-work"
    work.mkdir(parents=True, exist_ok=True)
    # The capture is appended to line by line, so renaming it between scenarios splits one served emulator's
    # traffic (the delta must reach the same URLs, which the state file is bound to).
    live = out / f"{size}-live.jsonl"
    for scenario in ("clean", "dirty"):
        live.unlink(missing_ok=True)
        service = seeded_service(42, size, dirty=scenario == "dirty")
        state = work / f"{scenario}.db"
        state.unlink(missing_ok=True)
        with _served(service, live) as env:
            print(f"  {size} {scenario}")
            _bridge(env, work, state)
            live.replace(out / f"{size}-{scenario}.jsonl")
            if scenario == "clean":
                print(f"  {size} delta")
                _change_source(service)
                _bridge(env, work, state)
                live.replace(out / f"{size}-delta.jsonl")
                print(f"  {size} sync")
                _bridge(env, work, state, SYNC)
                _delete_at_source(service)
                _bridge(env, work, state, SYNC)
                live.replace(out / f"{size}-sync.jsonl")
                print(f"  {size} cutover")
                _key(work)
                _bridge(env, work, state, _cutover(service.list_projects(service.workspace("source"))[0].id))
                live.replace(out / f"{size}-cutover.jsonl")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.drive", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="folder for the captures")
    parser.add_argument("--size", action="append", choices=["small", "medium"], help="repeatable; default small")
    args = parser.parse_args()
    for size in args.size or ["small"]:
        drive(size, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
