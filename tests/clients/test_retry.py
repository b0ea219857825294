"""The retry policy: what repeats, how long it waits, and when the run stops resumably instead."""

from __future__ import annotations

import itertools
import random
from datetime import timedelta
from email.utils import format_datetime

import anyio
import httpx
import pytest
import respx

from bridge import errors
from bridge.cli import exit_code
from bridge.clients.http import Call, HttpSession, RunControls, make_endpoint
from bridge.clients.retry import RetryBudget, RetryPolicy, parse_retry_after
from tests.clients.fakes import WALL_START, FakeClock, controls_for

BASE = "https://svc.test/v1"
KEY = {"Idempotency-Key": "k" * 20}


def session(controls: RunControls) -> HttpSession:
    return HttpSession(make_endpoint(BASE, {"Authorization": "Bearer t"}), "v1", controls)


def too_many(seconds: str) -> httpx.Response:
    return httpx.Response(429, json={"code": "rate_limited", "message": "slow"}, headers={"Retry-After": seconds})


def test_retry_after_parses_seconds_and_http_date() -> None:
    """Both RFC 9110 forms give seconds from now; junk gives None."""
    assert parse_retry_after("7", WALL_START) == 7.0
    later = format_datetime(WALL_START.replace(second=30), usegmt=True)
    assert parse_retry_after(later, WALL_START) == 30.0
    assert parse_retry_after("soon", WALL_START) is None
    assert parse_retry_after(None, WALL_START) is None


@pytest.mark.anyio
async def test_a_date_retry_after_is_measured_on_the_servers_clock(clock: FakeClock) -> None:
    """A server whose clock is 10 minutes ahead of ours, asking for 4 s by date: we wait about 4 s, not 10 min
    (which would be past the retry deadline and stop the run at once)."""
    sent_at: list[float] = []
    ahead = timedelta(minutes=10)

    def answer(request: httpx.Request) -> httpx.Response:
        sent_at.append(clock.now)
        if len(sent_at) == 1:
            served = clock.wall() + ahead
            stamps = {"Date": format_datetime(served, usegmt=True)}
            stamps["Retry-After"] = format_datetime(served + timedelta(seconds=4), usegmt=True)
            return httpx.Response(429, json={"code": "rate_limited", "message": "slow"}, headers=stamps)
        return httpx.Response(200, json={"id": "u"})

    async with respx.mock(assert_all_called=True, using="bridge") as router:
        router.get(f"{BASE}/me").mock(side_effect=answer)
        async with session(controls_for(clock)) as http:
            response = await http.send(Call("GET", "/me"))
    assert response.status_code == 200
    assert 4 <= sent_at[1] - sent_at[0] < 60


def test_a_date_retry_after_without_a_readable_date_is_measured_on_ours() -> None:
    later = format_datetime(WALL_START.replace(second=30), usegmt=True)
    assert parse_retry_after(later, WALL_START, "not a date") == 30.0
    earlier = format_datetime(WALL_START.replace(second=20), usegmt=True)
    assert parse_retry_after(later, WALL_START, earlier) == 10.0


def test_full_jitter_stays_within_cap() -> None:
    """Each backoff lies in [0, min(cap, base * 2**(n-1))]."""
    policy = RetryPolicy(base=0.5, cap=4.0, rng=random.Random(1))
    for retry in range(1, 12):
        for _ in range(50):
            assert 0.0 <= policy.backoff(retry) <= min(4.0, 0.5 * 2 ** (retry - 1))


def test_budget_allows_floor_plus_ratio_of_requests() -> None:
    """A run may retry `floor` times plus 10 % of its requests, and no more."""
    budget = RetryBudget(ratio=0.1, floor=2)
    for _ in range(30):
        budget.record_request()
    spent = sum(budget.try_spend() for _ in range(10))
    assert spent == 5


@pytest.mark.anyio
@pytest.mark.parametrize("form", ["seconds", "http-date"])
async def test_retry_waits_at_least_retry_after(clock: FakeClock, form: str) -> None:
    """After a 429 the next attempt leaves no earlier than its Retry-After, in either header form."""
    sent_at: list[float] = []
    wait = 4

    def answer(request: httpx.Request) -> httpx.Response:
        sent_at.append(clock.now)
        if len(sent_at) < 3:
            later = clock.wall() + timedelta(seconds=wait)
            value = str(wait) if form == "seconds" else format_datetime(later, usegmt=True)
            return too_many(value)
        return httpx.Response(200, json={"id": "u"})

    async with respx.mock(assert_all_called=True, using="bridge") as router:
        router.get(f"{BASE}/me").mock(side_effect=answer)
        async with session(controls_for(clock)) as http:
            response = await http.send(Call("GET", "/me"))
    assert response.status_code == 200
    assert [later - earlier >= wait for earlier, later in itertools.pairwise(sent_at)] == [True, True]


@pytest.mark.anyio
@pytest.mark.slow
async def test_429_storm_sends_nothing_before_its_retry_after(clock: FakeClock) -> None:
    """Under 50 % 429s with Retry-After 1-5 s, no request goes out before the wait its last 429 asked for."""
    rng = random.Random(3)
    not_before: dict[str, float] = {}
    early: list[str] = []
    attempts: dict[str, int] = {}

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        attempts[path] = attempts.get(path, 0) + 1
        if clock.now < not_before.get(path, 0.0):
            early.append(path)
        if rng.random() < 0.5:
            delay = rng.randint(1, 5)
            not_before[path] = clock.now + delay
            return too_many(str(delay))
        return httpx.Response(200, json={})

    controls = controls_for(clock, concurrency=8, policy=RetryPolicy(max_attempts=12, rng=random.Random(5)))
    controls.budget.floor = 10_000
    async with respx.mock(using="bridge") as router:
        router.get(url__regex=rf"{BASE}/projects/.*").mock(side_effect=answer)
        async with session(controls) as http, anyio.create_task_group() as group:
            for index in range(60):
                group.start_soon(http.send, Call("GET", f"/projects/p{index}"))
    assert early == []
    assert len(attempts) == 60
    assert controls.gate.window < 8  # the storm shrank the window


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("failure", "retried"),
    [
        (httpx.Response(500, json={"code": "internal_error"}), False),
        (too_many("1"), True),
        (httpx.ConnectError("refused"), True),
        (httpx.ReadTimeout("slow"), False),
        (httpx.RemoteProtocolError("dropped"), False),
    ],
)
async def test_keyless_post_repeats_only_when_no_duplicate_is_possible(
    clock: FakeClock, failure: httpx.Response | Exception, retried: bool
) -> None:
    """A POST without an Idempotency-Key repeats after a 429 or a refused connection, never after maybe-writes."""
    async with respx.mock(using="bridge") as router:
        route = router.post(f"{BASE}/things").mock(side_effect=[failure, httpx.Response(201, json={})])
        router.get(f"{BASE}/ping").mock(return_value=httpx.Response(200, json={}))
        async with session(controls_for(clock)) as http:
            # The service has answered once: a refused connection now is an outage, not a wrong URL.
            await http.send(Call("GET", "/ping"))
            call = Call("POST", "/things", body={}, replay_safe=False)
            if retried:
                assert (await http.send(call)).status_code == 201
            else:
                with pytest.raises(errors.ServiceUnavailable, match="not repeated"):
                    await http.send(call)
    assert route.call_count == (2 if retried else 1)


@pytest.mark.anyio
async def test_keyed_post_repeats_after_a_dropped_connection(clock: FakeClock) -> None:
    """With an Idempotency-Key a write that may have landed is sent again (the service replays it)."""
    async with respx.mock(using="bridge") as router:
        route = router.post(f"{BASE}/things").mock(
            side_effect=[httpx.RemoteProtocolError("dropped"), httpx.Response(201, json={})]
        )
        async with session(controls_for(clock)) as http:
            await http.send(Call("POST", "/things", body={}, headers=KEY))
    assert route.call_count == 2
    assert route.calls[0].request.headers["Idempotency-Key"] == route.calls[1].request.headers["Idempotency-Key"]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("code", "expected"),
    [("idempotency_conflict", errors.IdempotencyConflict), ("cursor_invalid", errors.CursorInvalid)],
)
async def test_bugs_are_never_retried(clock: FakeClock, code: str, expected: type[Exception]) -> None:
    """idempotency_conflict and cursor_invalid mean our code is wrong: raised at once, sent once."""
    status = 409 if code == "idempotency_conflict" else 400
    async with respx.mock(using="bridge") as router:
        route = router.post(f"{BASE}/things").mock(return_value=httpx.Response(status, json={"code": code}))
        async with session(controls_for(clock)) as http:
            with pytest.raises(expected):
                await http.send(Call("POST", "/things", body={}, headers=KEY))
    assert route.call_count == 1


@pytest.mark.anyio
async def test_spent_budget_stops_the_run_resumably(clock: FakeClock) -> None:
    """When retries exceed the run's budget the call ends in RetryBudgetExhausted (exit 3), not a storm."""
    controls = controls_for(clock)
    controls.budget = RetryBudget(ratio=0.0, floor=2)
    async with respx.mock(using="bridge") as router:
        route = router.get(f"{BASE}/me").mock(return_value=httpx.Response(503, json={}))
        async with session(controls) as http:
            with pytest.raises(errors.RetryBudgetExhausted) as caught:
                await http.send(Call("GET", "/me"))
    assert route.call_count == 3
    assert exit_code(caught.value) == 3


@pytest.mark.anyio
async def test_deadline_and_attempts_bound_one_call(clock: FakeClock) -> None:
    """A call that keeps failing stops at its deadline or attempt limit with a resumable ServiceUnavailable."""
    policy = RetryPolicy(max_attempts=4, deadline=1000.0, rng=random.Random(2))
    async with respx.mock(using="bridge") as router:
        route = router.get(f"{BASE}/me").mock(return_value=httpx.Response(502, json={}))
        async with session(controls_for(clock, policy=policy)) as http:
            with pytest.raises(errors.ServiceUnavailable, match="4 attempts"):
                await http.send(Call("GET", "/me"))
    assert route.call_count == 4

    short = RetryPolicy(deadline=5.0, rng=random.Random(2))
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/me").mock(return_value=too_many("10"))
        async with session(controls_for(clock, policy=short)) as http:
            with pytest.raises(errors.ServiceUnavailable, match="deadline"):
                await http.send(Call("GET", "/me"))
