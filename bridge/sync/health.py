"""A watch's health and metrics on a loopback port: `/healthz` for a liveness probe, `/metrics` for Prometheus.

`/healthz` answers 200 while the last cycle finished within the allowed lag (503 past it, or before the first
cycle ends), with a small JSON body. `/metrics` is ``prometheus_client``'s exposition of the watch's own registry:
cycles, their duration, the requests written, open conflicts, drifted records, the last verdict and the time the
last cycle finished. The server binds 127.0.0.1 only: it says how the migration goes, which is nobody else's.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from bridge.sync.cycle import Cycle

LOOPBACK = "127.0.0.1"


class Health:
    """The watch's registry, fed one cycle at a time, and the loopback server that shows it."""

    def __init__(self, port: int, max_lag: timedelta) -> None:
        self.max_lag = max_lag
        self.registry = CollectorRegistry()
        self.cycles = Counter("bridge_sync_cycles", "Sync cycles finished.", registry=self.registry)
        self.seconds = Histogram("bridge_sync_cycle_seconds", "Wall time of a sync cycle.", registry=self.registry)
        self.requests = Counter("bridge_sync_requests", "Write requests sent to v1.", registry=self.registry)
        self.conflicts = Gauge("bridge_sync_open_conflicts", "Open conflicts.", registry=self.registry)
        self.drifted = Gauge(
            "bridge_sync_drifted_records", "Records changed on v1 only, last read back.", registry=self.registry
        )
        self.reconciled = Gauge(
            "bridge_sync_reconciled",
            "1 when the last verify reconciled, 0 when it found differences.",
            registry=self.registry,
        )
        self.finished = Gauge(
            "bridge_sync_last_cycle_timestamp_seconds",
            "When the last cycle finished (Unix time).",
            registry=self.registry,
        )
        self._last: float | None = None
        self._server = ThreadingHTTPServer((LOOPBACK, port), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, name="sync-health", daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def saw(self, cycle: Cycle, seconds: float) -> None:
        """Count one finished cycle."""
        self.cycles.inc()
        self.seconds.observe(seconds)
        self.requests.inc(cycle.writes)
        self.conflicts.set(cycle.open_conflicts)
        self.drifted.set(sum(n for kinds in cycle.outcome.drifted.values() for n in kinds.values()))
        verdict = cycle.record["verdict"]
        if isinstance(verdict, dict) and verdict.get("verified"):
            self.reconciled.set(1 if verdict.get("reconciled") else 0)
        self._last = time.time()
        self.finished.set(self._last)

    def healthy(self) -> tuple[bool, dict[str, object]]:
        age = None if self._last is None else round(time.time() - self._last, 3)
        ok = age is not None and age <= self.max_lag.total_seconds()
        return ok, {"ok": ok, "last_cycle_age_seconds": age, "max_lag_seconds": self.max_lag.total_seconds()}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        health = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/metrics":
                    self._send(200, CONTENT_TYPE_LATEST, generate_latest(health.registry))
                elif self.path == "/healthz":
                    ok, body = health.healthy()
                    self._send(200 if ok else 503, "application/json", json.dumps(body).encode())
                else:
                    self._send(404, "text/plain", b"/healthz or /metrics\n")

            def _send(self, status: int, kind: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 -- http.server's signature
                """Quiet: a probe every few seconds is not news for the terminal."""

        return Handler
