"""What every step inside a project writes through: the legacy client, the applier and executor, and the key
namespace. The project pipeline and its actuals step share it; each step returns what it did."""

from __future__ import annotations

from typing import TypedDict, Unpack

from bridge.clients.legacy import LegacyClient
from bridge.engine.apply import Applier
from bridge.engine.executor import Executor


class ProjectTools(TypedDict):
    """The run's tools every project step is built with."""

    legacy: LegacyClient
    applier: Applier
    executor: Executor
    namespace: str


class ProjectStep:
    """A step of one project's pipeline, with the run's tools."""

    def __init__(self, **tools: Unpack[ProjectTools]) -> None:
        self.legacy = tools["legacy"]
        self.applier = tools["applier"]
        self.books = self.applier.books
        self.executor = tools["executor"]
        self.namespace = tools["namespace"]
