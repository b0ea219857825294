"""``python -m conformance --v1 V1.yaml --legacy LEGACY.yaml CAPTURE.jsonl ...``: how many exchanges conform.

The published descriptions are read from the service's repositories (``openapi/openapi.yaml`` of
saturation-sdk-typescript for v1, ``openapi.yaml`` of saturation-js for legacy) and never committed here.
A capture comes from ``bridge emulate --capture FILE``. Prints "N of M requests conform" and "N of M
responses conform", then each distinct violation with how often it occurred; exits 1 when any does not.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.check import LEGACY, V1, Contract, Tally, check, read_capture


def _show(title: str, tally: Tally, most: int) -> None:
    print(f"{tally.conform} of {tally.checked} {title} conform")
    for problem, count in tally.violations.most_common(most):
        print(f"  {count:6d}  {problem}")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance", description=__doc__)
    parser.add_argument("--v1", type=Path, required=True, help="the published v1 description (OpenAPI YAML)")
    parser.add_argument("--legacy", type=Path, required=True, help="the published legacy description")
    parser.add_argument("--most", type=int, default=60, help="distinct violations to list per kind")
    parser.add_argument("captures", type=Path, nargs="+", help="JSON-lines captures from bridge emulate --capture")
    args = parser.parse_args()
    contracts = {V1: Contract(V1, args.v1), LEGACY: Contract(LEGACY, args.legacy)}
    report = check(contracts, read_capture(args.captures))
    _show("requests", report.requests, args.most)
    _show("responses", report.responses, args.most)
    for problem, count in report.unverifiable.most_common():
        print(f"  not checkable ({count}): {problem}")
    return 0 if not (report.requests.violations or report.responses.violations) else 1


if __name__ == "__main__":
    sys.exit(main())
