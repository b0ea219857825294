"""`bridge fleet worker`: one process that runs workspaces' workflows from the fleet's queue.

Start any number, on any machine that reaches the database. Each one:

1. launches DBOS with an executor id of its own and listens on the fleet's queue, which is partitioned by
   target workspace with one workflow per partition at a time: a target never has two migrations running,
   whichever workers there are; ``--workspaces`` caps how many a worker runs at once (DBOS keeps a queue's
   settings in its database, so the worker started last sets that cap for every worker);
2. stamps a heartbeat every ``BEAT_S`` seconds, from a thread of its own (a busy event loop never delays
   it), and declares dead any worker silent for ``LEASE_S``: that worker's pending workflows go back on the
   queue (DBOS's recovery, re-enqueued on their own partition) and a live worker resumes them from their last
   recorded step and, inside the step, from the migration's journal;
3. on SIGINT or SIGTERM stops taking work and leaves; what it was running is taken over like a dead
   worker's (``--until-idle`` also leaves once nothing is queued or running anywhere: for scripts and demos).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import structlog
import uvloop
from dbos import DBOS, DBOSConfig
from dbos._error import DBOSException  # its errors' root: not exported by the package
from sqlalchemy import Engine
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError

from bridge.clients.limiter import AimdLimiter
from bridge.fleet import registry
from bridge.fleet.control import open_fleet
from bridge.fleet.database import fleet_url, secret_url
from bridge.fleet.workflow import APP, APP_VERSION, QUEUE, WorkerContext, bind

log = structlog.get_logger("bridge.fleet")

ACTIVE = ["ENQUEUED", "PENDING"]
QUEUE_POLL_S = 0.25
"""How often a worker looks for a workspace to start (a query of a few rows: a workspace waits at most this)."""
IDLE_CHECK_S = 0.5
"""With --until-idle, how often a worker asks whether the fleet is done."""


@dataclass(frozen=True, slots=True)
class WorkerOptions:
    state: str
    concurrency: int
    workspaces: int
    report_dir: Path
    until_idle: bool
    heal_for: float = 600.0


def executor_id() -> str:
    """Host, pid and a random tail: unique even when a pid is reused after a restart."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


def run_worker(options: WorkerOptions) -> str:
    """Work until a signal (or, with ``until_idle``, until the fleet is idle); this worker's executor id."""
    with open_fleet(options.state, create=True) as fleet:
        # Before DBOS launches: its queue manager lists the queues when it starts and then once a second, so a
        # queue registered after the launch waited up to a second before its first poll.
        fleet.client.register_queue(
            QUEUE, worker_concurrency=options.workspaces, partition_concurrency=1, polling_interval_sec=QUEUE_POLL_S
        )
        return _work(options, fleet_url(options.state), fleet.engine)


def _through_our_log() -> None:
    """DBOS's own log lines (a failed step's traceback holds the server's text) through the bridge's handlers:
    masked like a run's (every secret in every encoding), escaped, and a traceback kept to its last line.
    DBOS prints to a console handler of its own that does none of that: it is removed."""
    dbos_log = logging.getLogger("dbos")
    for handler in list(dbos_log.handlers):
        dbos_log.removeHandler(handler)
    dbos_log.propagate = True


def _work(options: WorkerOptions, url: URL, engine: Engine) -> str:
    me = executor_id()
    bind(WorkerContext(options.state, AimdLimiter.fixed(options.concurrency), options.report_dir, options.heal_for))
    config: DBOSConfig = {
        "name": APP,
        "system_database_url": secret_url(url),
        "application_version": APP_VERSION,
        "executor_id": me,
        "log_level": "WARNING",
        "run_migrations": False,  # open_fleet brought the schema up to date
    }
    # DBOS runs async steps on an event loop of its own, made with asyncio.new_event_loop(): the policy makes it
    # uvloop's, the loop `bridge run` uses.
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    DBOS(config=config)
    _through_our_log()
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    registry.join(engine, me, socket.gethostname(), os.getpid(), options.concurrency)
    try:
        DBOS.launch()
        log.info("bridge.fleet.worker.started", executor_id=me, workspaces=options.workspaces)
        beat_due = 0.0
        away = Outage()
        while not stop.wait(IDLE_CHECK_S if options.until_idle else registry.BEAT_S):
            with away.tolerated():
                if time.monotonic() >= beat_due:
                    _beat(engine, me)
                    _take_over(engine, me)
                    beat_due = time.monotonic() + registry.BEAT_S
                if options.until_idle and _fleet_idle():
                    break
    finally:
        with Outage().tolerated():
            registry.leave(engine, me)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        DBOS.destroy()
    return me


class Outage:
    """The fleet's database away for a while (a restart, a failover, a full disk): the worker keeps its loop
    and tries again at the next beat, saying so once per outage; DBOS's own threads retry on their own."""

    def __init__(self) -> None:
        self.since: float | None = None

    @contextmanager
    def tolerated(self) -> Iterator[None]:
        try:
            yield
        except (DBAPIError, DBOSException) as error:
            if self.since is None:
                self.since = time.monotonic()
                log.warning("bridge.fleet.worker.database_away", error=type(error).__name__)
            return
        if self.since is not None:
            log.warning("bridge.fleet.worker.database_back", away_s=round(time.monotonic() - self.since, 1))
            self.since = None


def _beat(engine: Engine, me: str) -> None:
    """Stamp the heartbeat; a worker declared dead while it was silent (frozen, paused, cut off) joins again,
    so that if it then dies, its workflows are taken over again (the ones taken while it was silent run on
    their taker; the journal and the state's writer lock keep both from sending anything twice)."""
    if not registry.beat(engine, me):
        registry.rejoin(engine, me)
        log.warning("bridge.fleet.worker.rejoined", executor_id=me)


def _fleet_idle() -> bool:
    """Nothing queued or running on any worker: asked of one row (listing the fleet's active workflows every half
    second was a few per cent of a busy worker's CPU)."""
    return not DBOS.list_workflows(status=ACTIVE, limit=1, load_input=False, load_output=False)


def _take_over(engine: Engine, me: str) -> None:
    """Put every silent worker's pending workflows back on the queue."""
    dead = registry.claim_dead(engine, me)
    if dead:
        # DBOS's own recovery, for executors that will not come back (its hosted Conductor does the same).
        handles = DBOS._recover_pending_workflows(dead)
        log.warning("bridge.fleet.worker.took_over", dead=dead, workflows=[h.get_workflow_id() for h in handles])
