"""What the carried remarks say on v1, compared with what the mapping sends for them now (issue 30, point 7).

Comments (a project's root budget note among them): each crosswalked comment's body, provenance header
included, by SHA-256 against the body the mapping builds from the legacy comment, and its target; and per
target the number of v1 comments against the number the mapping places there. Workspace rates: each
crosswalked item by the hash of (title, rate, unit, quantity), the number of items in the pack and the sum
of their rates per currency. Every difference is a mismatch; the ledger (``declared.py``) already says which
records are missing, unexpected or duplicated, so a record the crosswalk does not know is not compared here.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bridge.clients.legacy import LegacyClient
from bridge.clients.v1 import V1Client
from bridge.engine import remarks
from bridge.engine.features import lacking_kinds
from bridge.engine.source import ProjectLibrary, WorkspaceSource
from bridge.engine.wanted import Desired, Find, LibraryPlans, View, Wanted
from bridge.errors import NotFound
from bridge.verify.compare import Verdict
from bridge.verify.remarks import workspace_rates
from bridge.verify.schema import RemarkCheck, RemarkDifference
from mappings.errors import MappingError
from mappings.kinds import Kind
from mappings.refs import WORKSPACE

Row = Mapping[str, object]


@dataclass(frozen=True, slots=True)
class RemarkFindings:
    """The remarks compared: what was compared and each difference (a mismatch each)."""

    check: RemarkCheck = field(default_factory=RemarkCheck)

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        return (Verdict.MISMATCH,) * len(self.check.differences)


def digest(value: object) -> str:
    """SHA-256 of a value as canonical JSON (text hashed as itself)."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _mapped(wanted: Wanted, find: Find) -> list[Desired]:
    """The records the mapping sends, each as it would be sent now (refusals left to the ledger)."""
    found: list[Desired] = []
    for group in wanted.groups:
        for want in group:
            try:
                found.append(want.mapped(find))
            except MappingError:
                continue
    return found


def _target(value: object) -> str:
    return f"{value.get('kind')}:{value.get('id')}" if isinstance(value, Mapping) else "none"


def compare_comments(
    project_id: str, expected: Sequence[Desired], v1_ids: Mapping[str, str], rows: Sequence[Row]
) -> tuple[list[RemarkDifference], int, int]:
    """One project's comments: per crosswalked comment its body hash and target, per target the count; the
    differences, how many comments and how many targets were compared."""
    by_id = {str(row.get("id")): row for row in rows}
    out: list[RemarkDifference] = []
    compared = 0
    for desired in expected:
        v1_id = v1_ids.get(desired.legacy_id)
        row = by_id.get(v1_id or "")
        if v1_id is None or row is None:
            continue
        compared += 1
        compared_fields = (
            ("content", digest(desired.body.get("content")), digest(row.get("content"))),
            ("target", _target(desired.body.get("target")), _target(row.get("target"))),
        )
        out += [
            RemarkDifference(
                kind="comment",
                scope=project_id,
                legacy_id=desired.legacy_id,
                v1_id=v1_id,
                field=name,
                legacy=want,
                v1=have,
            )
            for name, want, have in compared_fields
            if want != have
        ]
    placed = Counter(_target(d.body.get("target")) for d in expected if d.legacy_id in v1_ids)
    listed = Counter(_target(row.get("target")) for row in rows)
    out += _counted("comment_target", project_id, "count", placed, listed)
    return out, compared, len(placed)


def _counted(
    kind: str, scope: str, field_name: str, want: Mapping[str, int], have: Mapping[str, int]
) -> list[RemarkDifference]:
    """A difference for each key whose two counts (or sums) differ."""
    return [
        RemarkDifference(
            kind=kind,
            scope=scope,
            legacy_id=key,
            v1_id=None,
            field=field_name,
            legacy=str(want.get(key, 0)),
            v1=str(have.get(key, 0)),
        )
        for key in sorted(set(want) | set(have))
        if want.get(key, 0) != have.get(key, 0)
    ]


def _item(body: Mapping[str, object]) -> str:
    return digest({name: body.get(name) for name in ("title", "rate", "unit", "quantity")})


def _sums(bodies: Iterable[Mapping[str, object]]) -> dict[str, int]:
    sums: Counter[str] = Counter()
    for body in bodies:
        rate = body.get("rate")
        if isinstance(rate, Mapping) and isinstance(rate.get("amount"), int):
            sums[str(rate.get("currency"))] += int(str(rate.get("amount")))
    return dict(sorted(sums.items()))


def compare_rates(
    expected: Sequence[Desired], v1_ids: Mapping[str, str], rows: Sequence[Row]
) -> tuple[list[RemarkDifference], int, dict[str, int]]:
    """The pack's items: per crosswalked item its hash, then their count and sums per currency."""
    by_id = {str(row.get("id")): row for row in rows}
    out: list[RemarkDifference] = []
    carried = [d for d in expected if d.legacy_id in v1_ids]
    for desired in carried:
        v1_id = v1_ids[desired.legacy_id]
        row = by_id.get(v1_id)
        if row is not None and _item(desired.body) != _item(row):
            out.append(
                RemarkDifference(
                    kind="rate",
                    scope="",
                    legacy_id=desired.legacy_id,
                    v1_id=v1_id,
                    field="item",
                    legacy=_item(desired.body),
                    v1=_item(row),
                )
            )
    if len(carried) != len(rows):
        out.append(
            RemarkDifference(
                kind="rate",
                scope="",
                legacy_id="(pack)",
                v1_id=None,
                field="count",
                legacy=str(len(carried)),
                v1=str(len(rows)),
            )
        )
    want, have = _sums(d.body for d in carried), _sums(rows)
    out += _counted("rate_sum", "", "sum", want, have)
    return out, len(carried), want


class RemarkChecker:
    """Reads v1's comments of each migrated project and the workspace pack's items, and compares them."""

    def __init__(self, v1: V1Client, legacy: LegacyClient, find: Find) -> None:
        self.v1 = v1
        self.legacy = legacy
        self.find = find

    def _v1_ids(self, kind: Kind, scope: str, wanted: Iterable[Desired]) -> dict[str, str]:
        found = {d.legacy_id: self.find(kind, scope, d.legacy_id) for d in wanted}
        return {legacy_id: v1_id for legacy_id, v1_id in found.items() if v1_id is not None}

    async def _rows(self, operation: str, params: tuple[str, ...]) -> list[Row]:
        return [row async for page in self.v1.rows(operation, params) for row in page if isinstance(row, Mapping)]

    async def check(self, libraries: Sequence[ProjectLibrary], *, whole: bool) -> RemarkFindings:
        """The comments of every migrated project of ``libraries``; the rates too on a whole-workspace check."""
        differences: list[RemarkDifference] = []
        comments = targets = 0
        for library in libraries:
            v1_project = self.find(Kind.PROJECT, WORKSPACE, library.project.id)
            if v1_project is None:
                continue
            source = WorkspaceSource((), (), (library,))
            view = View(source, LibraryPlans.of(source), library, v1_project)
            expected = _mapped(remarks.comments(view, self.find), self.find)
            v1_ids = self._v1_ids(Kind.COMMENT, library.project.id, expected)
            try:
                rows = await self._rows("comments_list", (v1_project,))
            except NotFound:
                continue  # the v1 project is gone: its own findings say so, as a mismatch
            found, compared, placed = compare_comments(library.project.id, expected, v1_ids, rows)
            differences += found
            comments, targets = comments + compared, targets + placed
        rates, sums = 0, dict[str, int]()
        if whole and Kind.RATE not in await lacking_kinds(self.v1):
            rates, sums, found = await self._rates()
            differences += found
        check = RemarkCheck(differences=differences, comments=comments, targets=targets, rates=rates, rate_sums=sums)
        return RemarkFindings(check)

    async def _rates(self) -> tuple[int, dict[str, int], list[RemarkDifference]]:
        source = WorkspaceSource((), (), (), await workspace_rates(self.legacy))
        view = View(source, LibraryPlans.of(source))
        expected = _mapped(remarks.rates(view, self.find), self.find)
        pack = self.find(remarks.PACK[0], WORKSPACE, remarks.PACK[1])
        rows = await self._rows("library_listRatePackItems", (pack,)) if pack is not None else []
        found, compared, sums = compare_rates(expected, self._v1_ids(Kind.RATE, WORKSPACE, expected), rows)
        return compared, sums, found
