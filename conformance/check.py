"""Checks captured exchanges against the service's published OpenAPI descriptions.

Each captured request is matched to its published operation (surface by base path: ``/api/v1`` legacy,
``/v1`` token) and checked with openapi-core: path and method, declared parameters and their types, required
headers and security, and the body against the published schema. Two rules openapi-core does not apply are
added here, because "send nothing the description does not allow" is our contract:

- every query parameter must be declared by the operation (or, on legacy, be ``idMode``, which the seed
  document accepts on every read; the seed writes the array ``expands`` as ``expands[]``, and lists
  ``attachments`` among its values);
- a body's objects may carry only declared properties where the schema lists them (closed reading), even
  when the published schema leaves ``additionalProperties`` open.

Each response is checked against the operation's published response for its status (status listed, body
valid against the schema).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import yaml
from openapi_core import OpenAPI
from openapi_core.datatypes import RequestParameters
from werkzeug.datastructures import Headers, ImmutableMultiDict

LEGACY = "legacy"
V1 = "v1"
BASES = {LEGACY: "/api/v1", V1: "/v1"}
HOSTS = {LEGACY: "https://api.saturation.io", V1: "https://next-api.saturation.io"}
# What the seed documents add to the published description (the seeds win where they speak).
SEED_QUERY = {LEGACY: {"idMode"}, V1: set[str]()}
SEED_BODY = {LEGACY: {"idMode"}, V1: set[str]()}  # the legacy seed: "`idMode` may be in the body" of writes
# Values the seed lists that a published enum leaves out: `attachments` is an `expands` value the legacy seed has
# seen (and listActuals' own published example sends), though the actuals' expands enum omits it.
SEED_VALUES = {LEGACY: {("expands", "attachments")}, V1: set[tuple[str, str]]()}
MASKED = "masked-credential-0000000000000000"


@dataclass(frozen=True, slots=True)
class Exchange:
    """One captured request and its response, as ``bridge emulate --capture`` writes it."""

    method: str
    path: str
    query: str
    auth: tuple[str, ...]
    headers: Mapping[str, str]
    body: object
    status: int | None
    response_headers: Mapping[str, str]
    response: object

    @classmethod
    def parse(cls, line: str) -> Exchange:
        raw = json.loads(line)
        return cls(
            method=raw["method"],
            path=raw["path"],
            query=raw["query"],
            auth=tuple(raw["auth"]),
            headers=raw["headers"],
            body=raw["body"],
            status=raw["status"],
            response_headers=raw["responseHeaders"],
            response=raw["response"],
        )

    @property
    def surface(self) -> str | None:
        for surface in (LEGACY, V1):  # legacy first: /api/v1 is not under /v1, but be explicit
            if self.path == BASES[surface] or self.path.startswith(BASES[surface] + "/"):
                return surface
        return None


class _Request:
    """An openapi-core request made from a captured exchange, credentials put back as placeholders."""

    def __init__(self, exchange: Exchange, surface: str) -> None:
        self.host_url = HOSTS[surface]
        self.path = exchange.path
        self.method = exchange.method.lower()
        headers = Headers(dict(exchange.headers))
        if "x-api-key" in exchange.auth:
            headers["X-API-Key"] = MASKED
        for scheme in exchange.auth:
            if scheme.startswith("authorization:"):
                headers["Authorization"] = f"{scheme.split(':', 1)[1].title()} {MASKED}"
        pairs = [(_seed_name(surface, k), v) for k, v in parse_qsl(exchange.query, keep_blank_values=True)]
        pairs = [pair for pair in pairs if pair not in SEED_VALUES[surface]]
        self.parameters = RequestParameters(query=ImmutableMultiDict(pairs), header=headers)
        self.body = None if exchange.body is None else json.dumps(exchange.body).encode()
        self.content_type = exchange.headers.get("content-type", "application/json" if self.body else "")
        form = form_fields(exchange.body)
        if form is not None:
            # A form rebuilt of text parts: openapi-core reads a binary part as bytes, which no `format: binary`
            # string schema admits; the part's own content type and size are the capture's to say.
            boundary = "conformance-form"
            parts = [
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\nContent-Type: text/plain\r\n\r\n'
                f"{value}\r\n"
                for name, value in form.items()
            ]
            self.body = ("".join(parts) + f"--{boundary}--\r\n").encode()
            self.content_type = f"multipart/form-data; boundary={boundary}"
        self.full_url_pattern = self.host_url + self.path


_BINARY_PART = re.compile(r"InvalidRequestBody \| \w+: b'.*' is not of type 'string'")


def form_fields(body: object) -> dict[str, str] | None:
    """A captured multipart form (``$multipart``) as its fields: a field's text, a file as a note of its size;
    None for any other body."""
    parts = body.get("$multipart") if isinstance(body, dict) else None
    if not isinstance(parts, dict):
        return None
    return {
        str(name): str(part["text"]) if part.get("text") is not None else f"({part.get('bytes')} bytes)"
        for name, part in parts.items()
        if isinstance(part, dict)
    }


class _Response:
    def __init__(self, exchange: Exchange) -> None:
        self.status_code = exchange.status or 0
        self.headers = Headers(dict(exchange.response_headers))
        self.content_type = exchange.response_headers.get("content-type", "application/json")
        self.data = b"" if exchange.response is None else json.dumps(exchange.response).encode()


def _seed_name(surface: str, name: str) -> str:
    return name.removesuffix("[]") if surface == LEGACY else name


@dataclass(slots=True)
class Operation:
    """A published operation: its method, path template and what it declares."""

    method: str
    template: str
    pattern: re.Pattern[str]
    query: frozenset[str]
    deep: frozenset[str]  # deepObject parameters: sent as name[key]=value

    def allows(self, surface: str, name: str) -> bool:
        base = _seed_name(surface, name)
        return (
            base in self.query or base in SEED_QUERY[surface] or any(base.startswith(deep + "[") for deep in self.deep)
        )


class Contract:
    """One surface's published description: openapi-core for validation, our index for declared names."""

    def __init__(self, surface: str, document: Path) -> None:
        self.surface = surface
        self.spec: dict[str, Any] = yaml.safe_load(document.read_text(encoding="utf-8"))
        self.openapi = OpenAPI.from_dict(self._served(self.spec))
        self.operations = list(self._operations())

    def _served(self, spec: dict[str, Any]) -> dict[str, Any]:
        served = dict(spec)
        served["servers"] = [{"url": HOSTS[self.surface] + BASES[self.surface]}]
        return served

    def _resolve(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            target: Any = self.spec
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def _operations(self) -> Iterator[Operation]:
        for template, item in self.spec.get("paths", {}).items():
            shared = [self._resolve(p) for p in item.get("parameters", [])]
            regex = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
            for method, op in item.items():
                if method not in {"get", "post", "put", "patch", "delete"}:
                    continue
                params = shared + [self._resolve(p) for p in op.get("parameters", [])]
                query = [p for p in params if p.get("in") == "query"]
                yield Operation(
                    method=method,
                    template=template,
                    pattern=re.compile(f"^{regex}$"),
                    query=frozenset(p["name"] for p in query),
                    deep=frozenset(p["name"] for p in query if p.get("style") == "deepObject"),
                )

    def operation(self, method: str, path: str) -> Operation | None:
        candidates = [op for op in self.operations if op.method == method.lower() and op.pattern.match(path)]
        # a literal segment beats a template (``/budget/lines/bulk`` before ``/budget/lines/{lineId}``)
        return min(candidates, key=lambda op: op.template.count("{"), default=None)

    def file_violations(self, op: Operation, status: int | None, headers: Mapping[str, str], name: str) -> list[str]:
        """A file answered (bytes, not JSON): its status and content type must be ones the operation declares."""
        responses = self._resolve(self.spec["paths"][op.template][op.method].get("responses", {}))
        declared = self._resolve(responses.get(str(status)) or responses.get("default") or {})
        if not declared:
            return [f"{name} -> {status}: status not declared"]
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        allowed = {key.lower() for key in declared.get("content", {})}
        # Bytes of any type answer a declared application/octet-stream: documents_getContent declares only that
        # and says it "returns the file with its stored mimeType as the response Content-Type" (V:1261).
        if "application/octet-stream" in allowed and "json" not in media:
            return []
        if media not in allowed and not any(a.endswith("/*") and media.startswith(a[:-1]) for a in allowed):
            return [f"{name} -> {status}: content type {media or 'none'} not declared ({', '.join(sorted(allowed))})"]
        return []

    def request_schema(self, op: Operation) -> Any:
        raw = self.spec["paths"][op.template][op.method]
        body = self._resolve(raw.get("requestBody", {}))
        content = body.get("content", {})
        media = content.get("application/json") or content.get("multipart/form-data") or {}
        return self._resolve(media.get("schema"))

    def closed_violations(self, schema: Any, value: object, where: str = "body") -> Iterator[str]:
        """Properties a body carries that its schema does not declare (objects read as closed)."""
        schema = self._resolve(schema)
        if not isinstance(schema, dict):
            return
        alternatives = schema.get("oneOf") or schema.get("anyOf")
        if alternatives:
            found = [list(self.closed_violations(alt, value, where)) for alt in alternatives if self._fits(alt, value)]
            if found and all(found):
                yield from found[0]
            return
        if isinstance(value, dict):
            props = self._properties(schema)
            extra = schema.get("additionalProperties")
            for name, item in value.items():
                if name in props:
                    yield from self.closed_violations(props[name], item, f"{where}.{name}")
                elif isinstance(extra, dict):
                    yield from self.closed_violations(extra, item, f"{where}.{name}")
                elif where == "body" and name in SEED_BODY[self.surface]:
                    continue
                elif props and not schema.get("patternProperties"):
                    yield f"{where}.{name} is not declared"
        elif isinstance(value, list) and "items" in schema:
            for i, item in enumerate(value):
                yield from self.closed_violations(schema["items"], item, f"{where}[{i}]")

    def _properties(self, schema: dict[str, Any]) -> dict[str, Any]:
        props = dict(schema.get("properties", {}))
        for part in schema.get("allOf", []):
            props.update(self._properties(self._resolve(part)))
        return props

    def _fits(self, schema: Any, value: object) -> bool:
        """Whether ``value`` could be this alternative: its JSON type, and any enum or const it discriminates by."""
        schema = self._resolve(schema)
        if not isinstance(schema, dict):
            return True
        kind = schema.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        if isinstance(value, dict):
            for name, declared in self._properties(schema).items():
                prop = self._resolve(declared)
                allowed = prop.get("enum", [prop["const"]] if "const" in prop else None)
                if name in value and allowed is not None and value[name] not in allowed:
                    return False
            return "object" in kinds or None in kinds
        if isinstance(value, list):
            return "array" in kinds or None in kinds
        return True


@dataclass(slots=True)
class Tally:
    """What one kind of check found: how many conform, and each distinct violation with its count."""

    checked: int = 0
    conform: int = 0
    violations: Counter[str] = field(default_factory=Counter)

    def add(self, problems: list[str]) -> None:
        self.checked += 1
        if problems:
            self.violations.update(set(problems))
        else:
            self.conform += 1


@dataclass(slots=True)
class Report:
    requests: Tally = field(default_factory=Tally)
    responses: Tally = field(default_factory=Tally)
    # Checks the description itself cannot carry out (a reference in it that resolves nowhere): not counted as
    # violations of ours, but listed, since what they would have checked stays unchecked.
    unverifiable: Counter[str] = field(default_factory=Counter)


_BROKEN_REFERENCE = "could not be resolved"
_INDEX = re.compile(r"(?<=[/\[])\d+(?=[/\]]|$)")
_ID = re.compile(r"\b[a-z]{3}_[0-9a-f]{8,}\b")
_LEADING_VALUE = re.compile(r"^(?:'[^']*'|-?[\d.e+]+|None|True|False|\{.*\}|\[.*\]) (?=is not |does not |should not )")


def generic(text: str) -> str:
    """A finding without the values that vary from record to record, so equal findings group together."""
    return _ID.sub("{id}", _INDEX.sub("*", text))


def _explain(exc: BaseException) -> str:
    """openapi-core's error and the schema errors behind it, one line without record values (for grouping)."""
    parts = []
    cause: BaseException | None = exc
    while cause is not None:
        inner = getattr(cause, "schema_errors", None)
        if inner:
            found = {
                generic(f"{'/'.join(str(p) for p in error.absolute_path) or '<root>'}: ")
                + _LEADING_VALUE.sub("value ", error.message)[:200]
                for error in inner
            }
            parts.extend(sorted(found))
            break
        message = str(cause)
        parts.append(type(cause).__name__ + ("" if "Value " in message else f": {generic(message)[:200]}"))
        cause = cause.__cause__ or cause.__context__
    return " | ".join(parts)


def check(contracts: Mapping[str, Contract], exchanges: Iterable[Exchange]) -> Report:
    """Check every exchange; requests and responses are tallied apart."""
    report = Report()
    for exchange in exchanges:
        surface = exchange.surface
        if surface is None or surface not in contracts:
            continue
        contract = contracts[surface]
        path = exchange.path.removeprefix(BASES[surface])
        op = contract.operation(exchange.method, path)
        name = f"{surface} {exchange.method} {op.template if op else generic(path)}"
        if op is None:
            report.requests.add([f"{name}: no such operation in the published description"])
            report.responses.add([f"{name}: no such operation"])
            continue
        request = _Request(exchange, surface)
        problems = [
            f"{name}: query {q!r} is not declared" for q in request.parameters.query if not op.allows(surface, q)
        ]
        try:
            contract.openapi.validate_request(request)
        except Exception as exc:  # noqa: BLE001 - every validation failure is a finding, whatever its class
            finding = f"{name}: {_explain(exc)}"
            if _BROKEN_REFERENCE in finding:
                report.unverifiable[f"{name}: {_BROKEN_REFERENCE} in the description"] += 1
            elif form_fields(exchange.body) is not None and _BINARY_PART.search(finding):
                # openapi-core reads a `format: binary` form part as bytes, which its own string check refuses.
                report.unverifiable[f"{name}: a binary form part (openapi-core reads it as bytes)"] += 1
            else:
                problems.append(finding)
        schema = contract.request_schema(op)
        if schema is not None and exchange.body is not None:
            body = form_fields(exchange.body)
            checked = exchange.body if body is None else body
            problems.extend(f"{name}: {generic(v)}" for v in contract.closed_violations(schema, checked))
        report.requests.add(problems)
        if exchange.status is None:  # the emulator dropped the connection on purpose: no response to check
            continue
        if isinstance(exchange.response, dict) and "$bytes" in exchange.response:
            report.responses.add(contract.file_violations(op, exchange.status, exchange.response_headers, name))
            continue
        if isinstance(exchange.response, dict) and "$notJson" in exchange.response:
            report.responses.add([f"{name} -> {exchange.status}: body is not JSON: {exchange.response['$notJson']}"])
            continue
        try:
            contract.openapi.validate_response(request, _Response(exchange))
            report.responses.add([])
        except Exception as exc:  # noqa: BLE001
            report.responses.add([f"{name} -> {exchange.status}: {_explain(exc)}"])
    return report


def read_capture(paths: Iterable[Path]) -> Iterator[Exchange]:
    for path in paths:
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    yield Exchange.parse(line)
