"""The calculation engine: properties every total both surfaces show must hold (A11-A13, A26)."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from hypothesis import given
from hypothesis import strategies as st

from bridge.emulator.core import formula
from bridge.emulator.core.model import Node, Project, Workspace
from bridge.emulator.core.store import Service
from tests.strategies import core_amounts, line_counts


def _budget(service: Service) -> tuple[Workspace, Project, str, str]:
    """A project with a USD estimate phase and a JPY (zero-decimal) estimate phase."""
    workspace = service.create_workspace("w")
    project = service.create_project(workspace, name="P", default_phase=False)
    usd = service.add_currency(project, code="USD", rate_to_usd=1)
    jpy = service.add_currency(project, code="JPY", rate_to_usd="0.0067")
    dollars = service.create_phase(project, name="Estimate", type="estimate", currency_id=usd.id)
    yen = service.create_phase(project, name="Tokyo", type="estimate", currency_id=jpy.id)
    return workspace, project, dollars.id, yen.id


def _children_sum(service: Service, workspace: Workspace, project: Project, node: Node, phase: str) -> Decimal:
    totals = service.totals(workspace, project)
    return sum((totals.node(c, phase).amount for c in node.children if project.nodes[c].type != "subtotal"), Decimal(0))


@given(
    st.lists(st.lists(st.tuples(line_counts, core_amounts), min_size=0, max_size=6), min_size=1, max_size=4),
    st.integers(min_value=-20, max_value=50),
    st.booleans(),
)
def test_an_account_total_is_the_sum_of_its_children_in_every_phase(
    accounts: list[list[tuple[int, Decimal]]], markup_percent: int, exclude_fringes: bool
) -> None:
    """Every account equals the sum of its non-subtotal children (lines, sub-accounts, markups) per phase."""
    service = Service()
    workspace, project, dollars, yen = _budget(service)
    fica = service.create_fringe(project, {"code": "FICA", "units": "percent", "rate": "6.2", "cutoff": 5000})
    top = service.create_nodes(project, None, [{"type": "account", "account_code": "1000", "description": "Top"}])[0]
    for index, lines in enumerate(accounts):
        sub = service.create_nodes(project, top.id, [{"type": "account", "account_code": f"11{index}0"}])[0]
        specs: list[dict[str, object]] = [
            {
                "account_code": f"11{index}1",
                "phase_data": {
                    dollars: {"quantity": qty, "rate": rate, "fringe_ids": [fica.id]},
                    yen: {"quantity": qty, "rate": rate * 149},
                },
            }
            for qty, rate in lines
        ]
        specs.insert(len(specs) // 2, {"type": "subtotal", "description": "Sub"})
        service.create_nodes(project, sub.id, specs)
    service.create_nodes(
        project,
        top.id,
        [
            {
                "type": "markup",
                "description": "Fee",
                "phase_data": {
                    p: {"markup_type": "percent", "markup_amount": markup_percent, "exclude_fringes": exclude_fringes}
                    for p in (dollars, yen)
                },
            }
        ],
    )
    totals = service.totals(workspace, project)
    for node in service.walk(project):
        if node.type == "account":
            for phase in (dollars, yen):
                assert totals.node(node.id, phase).amount == _children_sum(service, workspace, project, node, phase)
    for phase in (dollars, yen):
        assert totals.phases[phase].amount == totals.node(top.id, phase).amount


@given(
    st.lists(st.integers(min_value=1, max_value=50), min_size=2, max_size=5),
    st.lists(st.tuples(st.integers(min_value=0, max_value=6), core_amounts), min_size=1, max_size=12),
    st.data(),
)
def test_changing_a_global_changes_exactly_its_dependent_lines(
    values: list[int], lines: list[tuple[int, Decimal]], data: st.DataObject
) -> None:
    """After a global changes, the lines whose formulas reach it change and no other line does."""
    service = Service()
    workspace, project, dollars, _ = _budget(service)
    # G0..Gn: each either a number or the previous global plus a number (a chain of references).
    for i, value in enumerate(values):
        chained = i > 0 and data.draw(st.booleans())
        service.create_global(project, {"symbol": f"G{i}", "formula": f"G{i - 1} + {value}" if chained else str(value)})
    account = service.create_nodes(project, None, [{"type": "account", "account_code": "1000"}])[0]
    specs: list[dict[str, object]] = []
    for ref, rate in lines:
        quantity: object = f"=G{ref} * 2" if ref < len(values) else 3
        specs.append({"account_code": "1001", "phase_data": {dollars: {"quantity": quantity, "rate": rate + 1}}})
    nodes = service.create_nodes(project, account.id, specs)
    before = {n.id: service.totals(workspace, project).node(n.id, dollars).amount for n in nodes}

    changed = data.draw(st.integers(min_value=0, max_value=len(values) - 1))
    target = service.get_global(project, f"G{changed}")
    service.update_global(
        project,
        target.id,
        {"formula": str(values[changed] + 7) if "+" not in (target.formula or "") else f"{target.formula} + 7"},
    )
    after = service.totals(workspace, project)

    formulas = {g.symbol: g.formula for g in project.globals.values()}
    affected = formula.dependents(formulas, f"G{changed}") | {f"G{changed}"}
    for node, (ref, _) in zip(nodes, lines, strict=True):
        depends = ref < len(values) and f"G{ref}" in affected
        assert (after.node(node.id, dollars).amount != before[node.id]) == depends


@given(
    core_amounts, st.integers(min_value=1, max_value=400), st.integers(min_value=0, max_value=200_000), st.booleans()
)
def test_percent_fringes_stop_at_their_cutoff(rate: Decimal, quantity: int, cutoff: int, capped: bool) -> None:
    """A percent fringe is rate% of the line's base up to the cutoff, never more (A12)."""
    service = Service()
    workspace, project, dollars, _ = _budget(service)
    fringe = service.create_fringe(
        project, {"code": "FICA", "units": "percent", "rate": "6.2", "cutoff": cutoff if capped else None}
    )
    account = service.create_nodes(project, None, [{"type": "account", "account_code": "1000"}])[0]
    line = service.create_nodes(
        project,
        account.id,
        [{"phase_data": {dollars: {"quantity": quantity, "rate": rate, "fringe_ids": [fringe.id]}}}],
    )[0]
    values = service.totals(workspace, project).node(line.id, dollars)
    subject = min(values.base, Decimal(cutoff)) if capped else values.base
    assert values.fringe == (subject * Decimal("0.062")).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
    if capped:
        assert values.fringe <= (Decimal(cutoff) * Decimal("0.062")).quantize(Decimal("0.01"), ROUND_HALF_EVEN)


@given(st.lists(st.one_of(core_amounts, st.just(None)), min_size=1, max_size=10), st.booleans())
def test_subtotals_show_the_lines_above_and_add_nothing(rates: list[Decimal | None], sum_all: bool) -> None:
    """None in ``rates`` places a subtotal; each subtotal shows the lines since the previous one (or all above)."""
    service = Service()
    workspace, project, dollars, _ = _budget(service)
    account = service.create_nodes(project, None, [{"type": "account", "account_code": "1000"}])[0]
    specs: list[dict[str, object]] = [
        {"type": "subtotal", "subtotal_sum_all_above": sum_all}
        if rate is None
        else {"phase_data": {dollars: {"quantity": 1, "rate": rate}}}
        for rate in rates
    ]
    nodes = service.create_nodes(project, account.id, specs)
    totals = service.totals(workspace, project)
    running = since = Decimal(0)
    for node in nodes:
        value = totals.node(node.id, dollars).amount
        if node.type == "subtotal":
            assert value == (running if sum_all else since)
            since = Decimal(0)
        else:
            running += value
            since += value
    assert totals.node(account.id, dollars).amount == running


@given(core_amounts, core_amounts, st.integers(min_value=-50, max_value=50), st.sampled_from(["percent", "flat"]))
def test_markups_follow_their_rule(first: Decimal, second: Decimal, amount: int, kind: str) -> None:
    """A percent markup adds amount% of its included siblings; a flat one adds its amount (A13)."""
    service = Service()
    workspace, project, dollars, _ = _budget(service)
    included = service.create_nodes(project, None, [{"type": "account", "account_code": "2000"}])[0]
    excluded = service.create_nodes(project, None, [{"type": "account", "account_code": "3000"}])[0]
    service.create_nodes(project, included.id, [{"phase_data": {dollars: {"rate": first}}}])
    service.create_nodes(project, excluded.id, [{"phase_data": {dollars: {"rate": second}}}])
    markup = service.create_nodes(
        project,
        None,
        [
            {
                "type": "markup",
                "include_accounts": ["2000"],
                "phase_data": {dollars: {"markup_type": kind, "markup_amount": amount}},
            }
        ],
    )[0]
    totals = service.totals(workspace, project)
    subject = totals.node(included.id, dollars).amount
    expected = subject * amount / 100 if kind == "percent" else Decimal(amount)
    assert totals.node(markup.id, dollars).amount == expected.quantize(Decimal("0.01"), ROUND_HALF_EVEN)
    assert (
        totals.phases[dollars].amount
        == subject + totals.node(excluded.id, dollars).amount + totals.node(markup.id, dollars).amount
    )


@given(st.lists(st.tuples(line_counts, core_amounts), min_size=1, max_size=8), st.integers(min_value=-30, max_value=30))
def test_a_zero_decimal_currency_never_shows_a_fraction_of_its_minor_unit(
    lines: list[tuple[int, Decimal]], markup: int
) -> None:
    """Every JPY total (lines, fringes, markups, accounts, phase, tags) is a whole number of yen."""
    service = Service()
    workspace, project, _, yen = _budget(service)
    fringe = service.create_fringe(project, {"code": "F", "units": "percent", "rate": "7.65"})
    flat = service.create_fringe(project, {"code": "H", "units": "flat", "rate": "12.345"})
    service.create_tag(project, name="VFX")
    account = service.create_nodes(project, None, [{"type": "account", "account_code": "1000"}])[0]
    service.create_nodes(
        project,
        account.id,
        [
            {"tags": ["VFX"], "phase_data": {yen: {"quantity": q, "rate": r, "fringe_ids": [fringe.id, flat.id]}}}
            for q, r in lines
        ]
        + [{"type": "markup", "phase_data": {yen: {"markup_type": "percent", "markup_amount": markup}}}],
    )
    totals = service.totals(workspace, project)
    shown = [v for node in totals.nodes.values() for v in (node[yen].base, node[yen].fringe, node[yen].amount)]
    shown += [totals.phases[yen].amount, totals.tags["VFX"].phase_totals[yen], totals.tags["VFX"].fringe_totals[yen]]
    assert all(value == value.to_integral_value() for value in shown)


def test_the_actual_phase_totals_coded_actuals_and_split_parts() -> None:
    """Actuals count on the line they are coded to; a split counts each part on its own line."""
    service = Service()
    workspace, project, _, _ = _budget(service)
    actual_phase = service.create_phase(project, name="Actual", type="actual")
    account = service.create_nodes(project, None, [{"type": "account", "account_code": "1000"}])[0]
    one, two = service.create_nodes(project, account.id, [{"account_code": "1001"}, {"account_code": "1002"}])
    service.create_actual(workspace, project, {"description": "a", "amount": "100.10", "line_id": one.id})
    service.create_actual(
        workspace,
        project,
        {
            "description": "split",
            "amount": "50",
            "subactuals": [{"amount": "20", "line_id": one.id}, {"amount": "30", "line_id": two.id}],
        },
    )
    totals = service.totals(workspace, project)
    assert totals.node(one.id, actual_phase.id).amount == Decimal("120.10")
    assert totals.node(two.id, actual_phase.id).amount == Decimal(30)
    assert totals.phases[actual_phase.id].amount == Decimal("150.10")


def test_a_rollup_is_its_formula_over_other_phases_line_by_line() -> None:
    """A variance rollup (estimate - actual) holds on every node and on the phase total."""
    service = Service()
    workspace, project, dollars, _ = _budget(service)
    actual_phase = service.create_phase(project, name="Actual", type="actual")
    variance = service.create_phase(
        project, name="Variance", type="rollup", rollup_formula=f"@{dollars} - @{actual_phase.id}"
    )
    account = service.create_nodes(project, None, [{"type": "account", "account_code": "1000"}])[0]
    line = service.create_nodes(project, account.id, [{"phase_data": {dollars: {"quantity": 2, "rate": "75.5"}}}])[0]
    service.create_actual(workspace, project, {"description": "a", "amount": "40", "line_id": line.id})
    totals = service.totals(workspace, project)
    for node_id in (line.id, account.id):
        assert totals.node(node_id, variance.id).amount == Decimal("111.00")
    assert totals.phases[variance.id].amount == Decimal("111.00")


def test_totals_are_cached_until_the_project_changes() -> None:
    """Reading totals twice reuses the computation; any write gives fresh totals."""
    service = Service()
    workspace, project, dollars, _ = _budget(service)
    account = service.create_nodes(project, None, [{"type": "account", "account_code": "1000"}])[0]
    line = service.create_nodes(project, account.id, [{"phase_data": {dollars: {"rate": 10}}}])[0]
    first = service.totals(workspace, project)
    assert service.totals(workspace, project) is first
    service.set_phase_data(project, line.id, dollars, {"rate": 12})
    assert service.totals(workspace, project).phases[dollars].amount == Decimal(12)
