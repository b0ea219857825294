"""The one list of every status and error code the v1 document names, and the check that each is tested.

A test that produces a documented response over HTTP calls ``produced(status, code)`` right after asserting
it. ``test_every_documented_code_is_produced`` reads the emulator tests' source and fails when a documented
pair has no such call, so a code added here without a test (or a test deleted) turns the suite red. The check
reads source rather than runtime calls so it holds under ``pytest -n`` (workers do not share memory).
"""

from __future__ import annotations

import ast
from pathlib import Path

# (status, code); code None = a status the document names without a code (its code is our A21/A31 guess).
DOCUMENTED: frozenset[tuple[int, str | None]] = frozenset(
    {
        (200, None),
        (201, None),
        (304, None),
        (400, "validation"),
        (400, "cursor_invalid"),
        (400, "expand_invalid"),
        (401, "unauthenticated"),
        (401, "missing_authorization"),
        (401, "invalid_token"),
        (401, "token_revoked"),
        (402, "feature_not_available"),
        (403, "permission_revoked"),
        (404, "not_found"),
        (409, "account_code_ambiguous"),
        (409, "account_path_ambiguous"),
        (409, "idempotency_conflict"),
        (409, "already_linked"),
        (404, "document_target_not_found"),
        (409, "po_invalid_status"),
        (413, None),
        (422, None),
        (429, None),
        (504, None),
    }
)


def produced(status: int, code: str | None) -> None:
    """Mark that the calling test produced this documented response (it must be in the list)."""
    assert (status, code) in DOCUMENTED, f"({status}, {code!r}) is not a documented v1 response"


def _parametrized(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> list[object]:
    """The literal values a ``pytest.mark.parametrize`` decorator gives the argument ``name``."""
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", None) == "parametrize":
            spec = ast.literal_eval(decorator.args[0])
            names = [n.strip() for n in spec.split(",")] if isinstance(spec, str) else list(spec)
            if name in names:
                rows = ast.literal_eval(decorator.args[1])
                return [row[names.index(name)] if len(names) > 1 else row for row in rows]
    raise AssertionError(f"produced() in {function.name} uses {name!r}, which no parametrize table defines")


def pairs_produced_in(paths: list[Path]) -> set[tuple[int, str | None]]:
    """Every ``produced(status, code)`` call in these test files, parametrized arguments expanded."""
    found: set[tuple[int, str | None]] = set()
    for path in paths:
        for function in ast.walk(ast.parse(path.read_text())):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "produced" and len(node.args) == 2:
                    values = [
                        _parametrized(function, arg.id) if isinstance(arg, ast.Name) else [ast.literal_eval(arg)]
                        for arg in node.args
                    ]
                    statuses, codes = values
                    if len(statuses) == 1:
                        statuses = statuses * len(codes)
                    found.update(zip(statuses, codes, strict=True))  # type: ignore[arg-type]  # literals read from test source
    return found


def test_every_documented_code_is_produced() -> None:
    """Each status and code the v1 document names is produced by some test over HTTP."""
    tests = sorted(Path(__file__).parent.glob("test_*.py"))
    missing = DOCUMENTED - pairs_produced_in(tests)
    assert not missing, f"documented v1 responses with no test producing them: {sorted(missing, key=str)}"
