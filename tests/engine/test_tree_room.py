"""Budget trees are admitted by the lines they hold: several at once, never more than the room plus one tree."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

import pytest

from bridge.engine.project import TreeRoom


def _tree(size: int, gate: asyncio.Event | None = None) -> Callable[[], Awaitable[Sequence[int]]]:
    async def read() -> Sequence[int]:
        if gate is not None:
            await gate.wait()
        return list(range(size))

    return read


async def _settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


@pytest.mark.anyio
async def test_trees_go_together_until_the_room_is_full_and_the_next_waits_for_one_to_finish() -> None:
    """Two trees are held at once while under the capacity; a third waits until they are released."""
    room = TreeRoom(capacity=100)
    done = asyncio.Event()
    started: list[str] = []

    async def project(name: str, size: int) -> None:
        async with room.holding(_tree(size)) as lines:
            started.append(name)
            assert len(lines) == size
            if name != "third":
                await done.wait()

    first = asyncio.create_task(project("first", 60))
    await _settle()
    second = asyncio.create_task(project("second", 50))
    await _settle()
    third = asyncio.create_task(project("third", 10))
    await _settle()
    assert started == ["first", "second"]  # 60 + 50 held: the room is full, the third tree waits
    done.set()
    await asyncio.gather(first, second, third)
    assert started == ["first", "second", "third"]
    assert (room.held, room.trees) == (0, 0)


@pytest.mark.anyio
async def test_a_lone_tree_bigger_than_the_room_still_goes() -> None:
    """A tree over the capacity is read and held when no other tree is."""
    room = TreeRoom(capacity=10)
    async with room.holding(_tree(500)) as lines:
        assert len(lines) == 500
        assert room.held == 500
    assert room.held == 0


@pytest.mark.anyio
async def test_no_tree_is_read_while_another_is_still_being_read() -> None:
    """A tree of unknown size blocks the next read; a read that fails frees the room for the others."""
    room = TreeRoom(capacity=1000)
    gate = asyncio.Event()
    reads: list[str] = []

    async def failing() -> Sequence[int]:
        reads.append("failing")
        await gate.wait()
        raise RuntimeError("legacy read failed")

    async def other() -> Sequence[int]:
        reads.append("other")
        return [1, 2, 3]

    async def hold(read: Callable[[], Awaitable[Sequence[int]]]) -> int:
        async with room.holding(read) as lines:
            return len(lines)

    broken = asyncio.create_task(hold(failing))
    await _settle()
    waiting = asyncio.create_task(hold(other))
    await _settle()
    assert reads == ["failing"]
    gate.set()
    with pytest.raises(RuntimeError, match="legacy read failed"):
        await broken
    assert await waiting == 3
    assert (room.held, room.trees, room.reading) == (0, 0, False)
