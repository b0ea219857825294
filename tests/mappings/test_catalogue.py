"""The bad-input catalogue: every code has a case that names record, field and value and emits nothing of it."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from mappings.actuals import map_actual
from mappings.budget import MAX_DEPTH
from mappings.contacts import map_contact
from mappings.documents import attachment
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.library import plan_currencies, plan_fringes, plan_globals
from mappings.lines import plan_budget
from mappings.phases import plan_phases
from mappings.records import (
    Actual,
    BudgetLine,
    Contact,
    File,
    Fringe,
    Global,
    Phase,
    PhaseCurrency,
    PhaseData,
    ProjectBudget,
    Rate,
    SubActual,
    Tag,
)
from mappings.remarks import map_rate
from mappings.shapes import parse_row, without_duplicates
from mappings.tags import plan_tags
from tests.mappings.budget_levels import mapped_levels, wanted_lines
from tests.mappings.crosswalk import lookup_from

Run = Callable[[], tuple[Sequence[MappingError], set[str]]]
"""A scenario: the errors a mapper reported and the legacy ids it emitted as requests."""


def _actuals(*bad: Actual, currency: str = "USD") -> Run:
    """A window of actuals as the legacy client reads it (an id it repeats is refused, A66), each then mapped."""
    good = Actual(id="ok", amount=12.5, date="2026-01-05")

    def run() -> tuple[Sequence[MappingError], set[str]]:
        errors: list[MappingError] = []
        emitted: set[str] = set()
        for actual in without_duplicates([good, *bad], Kind.ACTUAL, "p1"):
            try:
                emitted.add(map_actual("p1", "prj_1", actual, currency, lookup_from({})).transaction.ref.legacy_id)
            except MappingError as error:
                errors.append(error)
        return errors, emitted

    return run


def _rate(**fields: object) -> Run:
    """A workspace rate beside a good one, each mapped as a rate pack item."""

    def run() -> tuple[Sequence[MappingError], set[str]]:
        errors: list[MappingError] = []
        emitted: set[str] = set()
        for row in ({"id": "ok", "identifier": "Grip", "rate": 1, "unit": "day"}, {"id": "bad", **fields}):
            try:
                emitted.add(map_rate(Rate.model_validate(row), "USD").ref.legacy_id)
            except MappingError as error:
                errors.append(error)
        return errors, emitted

    return run


def _amount(value: object, currency: str = "USD") -> Run:
    return _actuals(Actual.model_validate({"id": "bad", "amount": value, "date": "2026-01-05"}), currency=currency)


def _lines(*bad: BudgetLine) -> Run:
    root = BudgetLine(id="root", type="account", description="Production")

    def run() -> tuple[Sequence[MappingError], set[str]]:
        tree = plan_budget(ProjectBudget(project_id="p1", lines=(root, *bad)), {"DAYS"})
        return tree.quarantined, {line.id for line in tree.ordered}

    return run


def _cell(**cells: object) -> Run:
    data = PhaseData.model_validate(cells)
    return _lines(BudgetLine(id="bad", type="line", parentId="root", phaseData={"ph1": data}))


def _read_line(**fields: object) -> Run:
    """A line row as the legacy client reads it (strictly), under the root account."""
    return _lines(parse_row(BudgetLine, {"type": "line", "parentId": "root", **fields}, Kind.LINE, "p1"))


def _too_deep() -> Run:
    """A chain of accounts one level deeper than the bridge migrates: the last one is refused."""
    ids = ["root", *(f"c{n}" for n in range(1, MAX_DEPTH)), "bad"]
    chain = [BudgetLine(id=i, type="account", parentId=p) for p, i in itertools.pairwise(ids)]

    def run() -> tuple[Sequence[MappingError], set[str]]:
        lines = (BudgetLine(id="root", type="account"), *chain)
        tree = plan_budget(ProjectBudget(project_id="p1", lines=lines), ())
        return tree.quarantined, {line.id for line in tree.ordered}

    return run


def _phases(*bad: Phase) -> Run:
    good = Phase(id="ph1", type="estimate", name="Estimate")

    def run() -> tuple[Sequence[MappingError], set[str]]:
        plan = plan_phases("p1", [good, *bad])
        kept = [plan.default_estimate, *plan.plain, *plan.rollups]
        return plan.quarantined, {p.id for p in kept if p is not None}

    return run


def _unresolved_parent() -> tuple[Sequence[MappingError], set[str]]:
    """The engine maps a level once its parents are written: here the root's v1 id is missing."""
    lines = (BudgetLine(id="root", type="account"), BudgetLine(id="bad", type="line", parentId="root"))
    levels, refused = mapped_levels(wanted_lines(ProjectBudget(project_id="p1", lines=lines)), lookup_from({}))
    return refused, {line.legacy_id for level in levels for line in level}


def _fringe(**fields: object) -> Run:
    def run() -> tuple[Sequence[MappingError], set[str]]:
        good = Fringe(id="ok", code="FICA", units="percent", rate=7.65)
        bad = Fringe.model_validate({"id": "bad", "code": "HEALTH", "units": "percent", "rate": 1, **fields})
        plan = plan_fringes([ProjectBudget(project_id="p1", fringes=(good, bad))], {})
        return plan.quarantined, {c.ref.legacy_id for c in plan.copies}

    return run


def _globals(*bad: Global) -> Run:
    def run() -> tuple[Sequence[MappingError], set[str]]:
        good = Global(id="ok", symbol="DAYS", formula="35")
        plan = plan_globals([ProjectBudget(project_id="p1", globals=(good, *bad))], {})
        return plan.quarantined, {c.ref.legacy_id for c in plan.copies}

    return run


def _tags(first: Tag, bad: Tag) -> Run:
    def run() -> tuple[Sequence[MappingError], set[str]]:
        plan = plan_tags({"p1": [first], "p2": [bad]})
        return plan.quarantined, {body["name"] for _, body in plan.tags}

    return run


def _currency(**currency: object) -> Run:
    def run() -> tuple[Sequence[MappingError], set[str]]:
        phase = Phase(id="bad", type="estimate", name="Working", currency=PhaseCurrency.model_validate(currency))
        good = Phase(id="ok", type="estimate", name="Estimate", currency=PhaseCurrency(code="EUR"))
        plan = plan_currencies({"p1": [good, phase]}, {})
        return plan.quarantined, {c.ref.legacy_id for c in plan.copies if c.ref.legacy_id != "EUR"}

    return run


def _contact(**fields: object) -> Run:
    def run() -> tuple[Sequence[MappingError], set[str]]:
        try:
            map_contact(Contact.model_validate({"id": "bad", "name": "Ana", **fields}), "USD")
        except MappingError as error:
            return [error], set()
        return [], {"bad"}

    return run


@dataclass(frozen=True)
class Case:
    code: ErrorCode
    run: Run
    field: str
    value: str
    bad_id: str = "bad"


def _files(*bad: File) -> Run:
    """An actual's attachments as the documents step reads them, each made a document to upload."""
    good = File(id="files/ok.pdf", name="ok.pdf", type="application/pdf", size=10)

    def run() -> tuple[Sequence[MappingError], set[str]]:
        errors: list[MappingError] = []
        emitted: set[str] = set()
        for file in (good, *bad):
            try:
                emitted.add(attachment(Kind.RECEIPT, "p1", file, "transaction", "a1").legacy_id)
            except MappingError as error:
                errors.append(error)
        return errors, emitted

    return run


CASES = [
    Case(ErrorCode.NUMBER_THOUSANDS_SEPARATOR, _amount("1,000.00"), "amount", "'1,000.00'"),
    Case(ErrorCode.NUMBER_EXPONENT, _amount("1e3"), "amount", "'1e3'"),
    Case(ErrorCode.NUMBER_NAN, _amount(float("nan")), "amount", "nan"),
    Case(ErrorCode.NUMBER_INFINITE, _amount(float("inf")), "amount", "inf"),
    Case(ErrorCode.NUMBER_EMPTY, _amount(""), "amount", "''"),
    Case(ErrorCode.NUMBER_MISSING, _amount(None), "amount", "None"),
    Case(ErrorCode.NUMBER_TOO_LARGE, _amount(2**53 + 2), "amount", str(2**53 + 2)),
    Case(ErrorCode.NUMBER_NOT_NUMERIC, _amount("twelve"), "amount", "'twelve'"),
    Case(ErrorCode.MONEY_TOO_PRECISE, _amount(10.5, currency="JPY"), "amount", "10.5"),
    Case(
        ErrorCode.CURRENCY_UNKNOWN,
        _phases(Phase(id="bad", type="estimate", name="W", currency=PhaseCurrency(code="ZZQ"))),
        "currency.code",
        "'ZZQ'",
    ),
    Case(ErrorCode.CURRENCY_MISSING, _currency(code=" "), "currency.code", "' '"),
    Case(ErrorCode.EXCHANGE_RATE_INVALID, _currency(code="JPY", exchangeRate=0), "currency.exchangeRate", "0"),
    Case(ErrorCode.TEXT_EMPTY, _phases(Phase(id="bad", type="estimate", name="")), "name", "''"),
    Case(
        ErrorCode.TEXT_TOO_LONG,
        _lines(BudgetLine(id="bad", type="line", parentId="root", description="x" * 256)),
        "description",
        "'xxxx",
    ),
    Case(
        ErrorCode.TEXT_CONTROL_CHARACTERS,
        _lines(BudgetLine(id="bad", type="line", parentId="root", description="Camera\x00rig")),
        "description",
        "'Camera\\x00rig'",
    ),
    Case(
        ErrorCode.TEXT_NOT_NFC,
        _lines(BudgetLine(id="bad", type="line", parentId="root", description="Cafe\u0301")),
        "description",
        "'Cafe\u0301'",
    ),
    Case(
        ErrorCode.DUPLICATE_ID,
        _actuals(Actual(id="bad", amount=1, date="2026-01-05"), Actual(id="bad", amount=2, date="2026-01-05")),
        "id",
        "'bad'",
    ),
    Case(ErrorCode.TREE_SELF_PARENT, _lines(BudgetLine(id="bad", type="account", parentId="bad")), "parentId", "'bad'"),
    Case(
        ErrorCode.TEXT_INVALID_UNICODE,
        _lines(BudgetLine(id="bad", type="line", parentId="root", description="Crew \ud800")),
        "description",
        "'Crew \\ud800'",
    ),
    Case(ErrorCode.FIELD_TYPE, _read_line(id="bad", description=42), "description", "42"),
    Case(ErrorCode.RECORD_ID_INVALID, _read_line(id="bad\x00"), "id", "'bad\\x00'", bad_id="bad\\x00"),
    Case(ErrorCode.TREE_TOO_DEEP, _too_deep(), "parentId", f"'c{MAX_DEPTH - 1}'"),
    Case(
        ErrorCode.TREE_CYCLE,
        _lines(
            BudgetLine(id="bad", type="account", parentId="c2"), BudgetLine(id="c2", type="account", parentId="bad")
        ),
        "parentId",
        "'c2'",
    ),
    Case(
        ErrorCode.TREE_MISSING_PARENT, _lines(BudgetLine(id="bad", type="line", parentId="gone")), "parentId", "'gone'"
    ),
    Case(
        ErrorCode.TREE_PARENT_NOT_ACCOUNT,
        _lines(BudgetLine(id="l1", type="line", parentId="root"), BudgetLine(id="bad", type="line", parentId="l1")),
        "parentId",
        "'l1'",
    ),
    Case(
        ErrorCode.TREE_ANCESTOR_QUARANTINED,
        _lines(BudgetLine(id="a1", type="account", parentId="gone"), BudgetLine(id="bad", type="line", parentId="a1")),
        "parentId",
        "'a1'",
    ),
    Case(ErrorCode.LINE_TYPE_UNKNOWN, _lines(BudgetLine(id="bad", type="banner", parentId="root")), "type", "'banner'"),
    Case(
        ErrorCode.MARKUP_TYPE_UNKNOWN,
        _lines(
            BudgetLine(id="bad", type="markup", parentId="root", phaseData={"ph1": PhaseData(type="ratio", amount=1)})
        ),
        "phaseData.ph1.type",
        "'ratio'",
    ),
    Case(ErrorCode.UNRESOLVED_REFERENCE, _unresolved_parent, "parentId", "'root'"),
    Case(ErrorCode.PHASE_TYPE_UNKNOWN, _phases(Phase(id="bad", type="working", name="W")), "type", "'working'"),
    Case(
        ErrorCode.ROLLUP_OPERATION_UNKNOWN,
        _phases(Phase(id="bad", type="rollup", name="R", operation="ratio", phaseIds=("ph1",))),
        "operation",
        "'ratio'",
    ),
    Case(
        ErrorCode.ROLLUP_NO_INPUTS, _phases(Phase(id="bad", type="rollup", name="R", operation="sum")), "phaseIds", "()"
    ),
    Case(
        ErrorCode.ROLLUP_INPUT_UNKNOWN,
        _phases(Phase(id="bad", type="rollup", name="R", operation="sum", phaseIds=("ph1", "ph9"))),
        "phaseIds",
        "'ph9'",
    ),
    Case(ErrorCode.FRINGE_UNITS_UNKNOWN, _fringe(units="hourly"), "units", "'hourly'"),
    Case(ErrorCode.GLOBAL_SYMBOL_INVALID, _globals(Global(id="bad", symbol="9 days")), "symbol", "'9 days'"),
    Case(
        ErrorCode.GLOBAL_CYCLE,
        _globals(Global(id="bad", symbol="A", formula="=B"), Global(id="b2", symbol="B", formula="=A * 2")),
        "formula",
        "'=B'",
    ),
    Case(ErrorCode.FORMULA_SYNTAX, _cell(rate="=DAYS *"), "phaseData.ph1.rate", "'=DAYS *'"),
    Case(ErrorCode.FORMULA_UNKNOWN_SYMBOL, _cell(quantity="=WEEKS * 5"), "phaseData.ph1.quantity", "'=WEEKS * 5'"),
    Case(
        ErrorCode.TAG_CASE_DUPLICATE,
        _tags(Tag(id="VFX", name="VFX"), Tag(id="bad", name="vfx")),
        "name",
        "'vfx'",
    ),
    Case(
        ErrorCode.TAG_COLOR_INVALID,
        _tags(Tag(id="A", name="A"), Tag(id="bad", name="B", color="red")),
        "color",
        "'red'",
    ),
    Case(ErrorCode.CONTACT_TYPE_UNKNOWN, _contact(type="Robot"), "type", "'Robot'"),
    Case(
        ErrorCode.ACTUAL_TYPE_UNKNOWN,
        _actuals(Actual(id="bad", amount=1, date="2026-01-05", type="Barter")),
        "type",
        "'Barter'",
    ),
    Case(
        ErrorCode.ACTUAL_STATUS_UNKNOWN,
        _actuals(Actual(id="bad", amount=1, date="2026-01-05", status="Lost")),
        "status",
        "'Lost'",
    ),
    Case(
        ErrorCode.FILE_INVALID,
        _files(File(id="f9", name="r.pdf", type="application/pdf", size=-1)),
        "size",
        "-1",
        bad_id="f9@transaction:a1",
    ),
    Case(ErrorCode.DATE_INVALID, _actuals(Actual(id="bad", amount=1, date="05/01/2026")), "date", "'05/01/2026'"),
    Case(
        ErrorCode.SPLIT_SUM_MISMATCH,
        _actuals(
            Actual(
                id="bad",
                amount=100,
                date="2026-01-05",
                subactuals=(SubActual(amount=60, accountId="l1"), SubActual(amount=30, accountId="l2")),
            )
        ),
        "amount",
        "100",
    ),
    Case(ErrorCode.RATE_UNIT_MISSING, _rate(identifier="Gaffer", rate=650), "unit", "None"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.code.value for c in CASES])
def test_bad_input_is_quarantined_with_code_record_field_and_value(case: Case) -> None:
    """A bad record yields its catalogue code, a message naming record, field and value, and no request."""
    errors, emitted = case.run()
    matching = [e for e in errors if e.code is case.code and e.ref.legacy_id == case.bad_id]
    assert matching, f"expected {case.code} for {case.bad_id!r}, got {[str(e) for e in errors]}"
    error = matching[0]
    assert error.field == case.field
    assert f"{error.ref.kind} '{case.bad_id}'" in error.message
    assert f"field '{case.field}'" in error.message
    assert case.value in error.message
    assert case.bad_id not in emitted


def test_every_catalogue_code_has_a_case() -> None:
    """No code exists without a test that produces it."""
    assert {c.code for c in CASES} == set(ErrorCode)
    assert len(CASES) >= 30


def test_long_values_are_cut_to_200_characters_in_messages() -> None:
    """A huge field value cannot flood a report: the message shows at most 200 characters of it."""
    errors, _ = _lines(BudgetLine(id="bad", type="line", parentId="root", description="y" * 5000))()
    assert errors
    assert len(errors[0].value) == 200
    assert "y" * 201 not in errors[0].message


def test_a_bad_line_does_not_stop_its_good_siblings() -> None:
    """Quarantine is per record: the good lines of the same budget are all kept."""
    good = [BudgetLine(id=f"g{i}", type="line", parentId="root") for i in range(5)]
    errors, emitted = _lines(*good, BudgetLine(id="bad", type="line", parentId="root", description="\x07"))()
    assert {e.ref.legacy_id for e in errors} == {"bad"}
    assert {f"g{i}" for i in range(5)} <= emitted
