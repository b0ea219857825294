"""Group commit: many concurrent journal transitions share one SQLite transaction (one fsync).

Every journal transition must be durable before the engine moves on (an intent before its request leaves,
a completion before its ids are used), and one fsync costs milliseconds. Concurrent writers therefore queue
their transition; one drainer takes everything queued so far, commits it in a single transaction on the
writer thread, and wakes each waiter with its own result. While that commit runs the next batch gathers, so
batches grow with the load and a lone writer still waits for exactly one commit. All of a run's state writes
share that one writer thread, so the process never contends with itself for SQLite's write lock. A failed
batch fails every waiter in it with the same error (the run stops; nothing of the batch is in the file).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class GroupCommit(Generic[Item, Result]):
    """Queues items for ``flush`` (a blocking call that commits a batch and returns one result per item)."""

    def __init__(self, flush: Callable[[Sequence[Item]], Sequence[Result]], writer: Executor) -> None:
        self._flush = flush
        self._writer = writer
        self._queue: list[tuple[Item, asyncio.Future[Result]]] = []
        self._drainer: asyncio.Task[None] | None = None

    async def submit(self, item: Item) -> Result:
        """Queue ``item`` and wait until the transaction holding it has committed."""
        future: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        self._queue.append((item, future))
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.create_task(self._drain())
        # Shielded: a cancelled waiter must not cancel the commit the others in its batch are waiting on.
        return await asyncio.shield(future)

    async def _drain(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            try:
                items = [item for item, _ in batch]
                results = await asyncio.get_running_loop().run_in_executor(self._writer, self._flush, items)
            except BaseException as exc:  # noqa: BLE001 - handed to every waiter of the batch
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), result in zip(batch, results, strict=True):
                if not future.done():
                    future.set_result(result)

    async def aclose(self) -> None:
        """Wait for the batch in flight (if any) to commit."""
        if self._drainer is not None:
            await asyncio.gather(self._drainer, return_exceptions=True)
