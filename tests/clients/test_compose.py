"""Every request an endpoint composes is the one httpx composes: method, URL, headers in order, body bytes."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.clients.compose import Composer
from tests.mappings.json_values import JSON_VALUES

BASES = st.sampled_from(
    [
        "http://127.0.0.1:8123/v1",
        "https://svc.test/api/v1",
        "https://svc.test",
        "http://user:pw@svc.test:80/v1",
        "https://svc.test/v1?x=1",
        "https://xn--bcher-kva.test/v1/",
        "https://bücher.test/a%20b",
    ]
)
# Paths as the clients write them (ids, routes) and as no client should (dots, escapes, queries, spaces, text
# beyond ASCII, a path without its slash).
PATHS = st.one_of(
    st.lists(st.from_regex(r"\A[A-Za-z0-9_~-]{1,12}\Z"), min_size=1, max_size=5).map(
        lambda parts: "/" + "/".join(parts)
    ),
    st.text(st.sampled_from([*"/.%?#@:;= aZ9_-~é\u00a0+&"]), max_size=20),
)
HEADERS = st.dictionaries(
    st.sampled_from(["Idempotency-Key", "If-None-Match", "X-Trace", "content-type", "Content-Length", "Host"]),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12),
    max_size=3,
)
ENDPOINT_HEADERS = {"User-Agent": "workspace-bridge/0.1", "Accept": "application/json", "Authorization": "Bearer t"}
PARAMS = st.lists(st.tuples(st.text(max_size=4), st.text(max_size=6)), max_size=2)


def httpx_request(
    *, base: str, method: str, path: str, params: list[tuple[str, str]], body: object, headers: dict[str, str]
) -> httpx.Request:
    """What httpx composes for the call (the definition ``Composer`` must meet)."""
    url = httpx.URL(base + path, params=params or None)
    sent = {**ENDPOINT_HEADERS, **headers}
    if body is None:
        return httpx.Request(method, url, headers=sent)
    return httpx.Request(method, url, headers=sent, json=body)


def outcome(compose: object) -> tuple[str, object]:
    assert callable(compose)
    try:
        request = compose()
    except (httpx.InvalidURL, ValueError) as exc:
        return "error", type(exc)
    assert isinstance(request, httpx.Request)
    return "request", (request.method, str(request.url), request.url.raw_path, request.headers.raw, request.content)


@given(
    base=BASES,
    method=st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]),
    path=PATHS,
    params=PARAMS,
    body=st.none() | JSON_VALUES | st.just(float("nan")),
    headers=HEADERS,
)
def test_a_request_is_composed_as_httpx_composes_it(
    *, base: str, method: str, path: str, params: list[tuple[str, str]], body: object, headers: dict[str, str]
) -> None:
    """Same method, URL (quoted and normalised alike), headers (names, values, order) and body bytes; a body
    httpx refuses (NaN, a lone surrogate) is refused alike."""
    composer = Composer(base, ENDPOINT_HEADERS, timeout=5.0)
    ours = outcome(lambda: composer.request(method, path, params, body, headers))
    theirs = outcome(
        lambda: httpx_request(base=base, method=method, path=path, params=params, body=body, headers=headers)
    )
    assert ours == theirs


@pytest.mark.parametrize("path", ["/transactions/txn_ea9f9f30f90b/items", "/me"])
def test_a_plain_path_is_joined_without_parsing_the_url_again(path: str) -> None:
    """The common case takes the short way, and still equals the parsed URL in every part."""
    composer = Composer("http://127.0.0.1:8123/v1", {}, timeout=5.0)
    url = composer.url(path, ())
    expected = httpx.URL("http://127.0.0.1:8123/v1" + path)
    assert url == expected
    assert (url.scheme, url.netloc, url.raw_path, url.query, url.fragment) == (
        expected.scheme,
        expected.netloc,
        expected.raw_path,
        expected.query,
        expected.fragment,
    )
