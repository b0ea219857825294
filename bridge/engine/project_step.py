"""What every step inside a project writes through: the legacy client, the applier and executor, the ledger,
the key namespace, and where refused records go. The project pipeline and its actuals step share it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict, Unpack

from bridge.clients.legacy import LegacyClient
from bridge.engine.apply import Applier
from bridge.engine.executor import Executor
from bridge.engine.plan import Plan
from bridge.engine.workspace import Quarantiner, refuse
from mappings.errors import MappingError
from mappings.kinds import Kind


class ProjectTools(TypedDict):
    """The run's tools every project step is built with."""

    legacy: LegacyClient
    applier: Applier
    executor: Executor
    ledger: Plan
    namespace: str
    on_quarantine: Quarantiner


class ProjectStep:
    """A step of one project's pipeline, with the run's tools."""

    def __init__(self, **tools: Unpack[ProjectTools]) -> None:
        self.legacy = tools["legacy"]
        self.applier = tools["applier"]
        self.books = self.applier.books
        self.executor = tools["executor"]
        self.ledger = tools["ledger"]
        self.namespace = tools["namespace"]
        self.on_quarantine = tools["on_quarantine"]

    def _refuse(self, kind: Kind, errors: Iterable[MappingError]) -> None:
        refuse(self.ledger, self.on_quarantine, kind, errors)
