"""Running a step's independent requests side by side, and stopping all of them when one must stop.

``asyncio.gather`` leaves the other tasks running after the first failure: after a revoked token they would
keep knocking, and their errors would be lost. A ``TaskGroup`` cancels the siblings; this module unwraps the
group into the one error the CLI should act on (a fatal error before a resumable stop before anything else).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine, Iterable
from typing import TypeVar

from bridge.errors import FatalError, ResumableStop

T = TypeVar("T")


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    found: list[BaseException] = []
    for exc in group.exceptions:
        found.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return found


def most_severe(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The error to report from a failed group: fatal first, then a resumable stop, then the first one."""
    leaves = _leaves(group)
    for kind in (FatalError, ResumableStop):
        for exc in leaves:
            if isinstance(exc, kind):
                return exc
    return leaves[0]


@contextlib.asynccontextmanager
async def task_group() -> AsyncIterator[asyncio.TaskGroup]:
    """A ``TaskGroup`` that fails with its most severe error, not with a group of them."""
    try:
        async with asyncio.TaskGroup() as group:
            yield group
    except BaseExceptionGroup as failed:
        raise most_severe(failed) from None


async def run_all(coroutines: Iterable[Coroutine[object, object, T]]) -> list[T]:
    """Await every coroutine concurrently; on the first failure cancel the rest and raise the most severe."""
    async with task_group() as group:
        tasks = [group.create_task(c) for c in coroutines]
    return [task.result() for task in tasks]
