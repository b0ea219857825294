"""Every hypothesis strategy of the project, and the seeded workspace generator the mapping benchmark uses.

Strategies build the legacy records of ``mappings.records`` (what the legacy client reads), so any area can
draw realistic or hostile input from one place. ``generated_budget`` is plain seeded ``random`` (not
hypothesis) for benchmarks that need one big, reproducible workspace without the emulator.
"""

from __future__ import annotations

import random
from decimal import Decimal

from hypothesis import strategies as st

from mappings.records import Actual, BudgetLine, Fringe, Global, Phase, PhaseCurrency, PhaseData, ProjectBudget
from mappings.records import SubActual as LegacySubActual

CURRENCIES = ("USD", "EUR", "GBP", "JPY", "KRW", "BHD", "KWD", "CLP", "CAD")
"""A mix of exponents: 2 (USD...), 0 (JPY, KRW, CLP), 3 (BHD, KWD)."""

# The emulator's core: rates and quantities as it stores them (positive, up to three places), line counts
# of an account, and any finite decimal a formula may meet.
core_amounts = st.decimals(min_value=Decimal("0.001"), max_value=Decimal(100_000), places=3)
line_counts = st.integers(min_value=0, max_value=40)
finite_decimals = st.decimals(allow_nan=False, allow_infinity=False, places=4)

ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=12)
names = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N", "Zs", "P")), min_size=1, max_size=40
).filter(lambda s: s.strip() != "")


def currencies() -> st.SearchStrategy[str]:
    return st.sampled_from(CURRENCIES)


def legacy_amounts(max_places: int = 6) -> st.SearchStrategy[float | int | str]:
    """Valid legacy numbers as the surface sends them: floats, ints and plain decimal strings, |x| <= 1e12."""
    decimals = st.decimals(
        min_value=Decimal("-1e12"), max_value=Decimal("1e12"), places=max_places, allow_nan=False, allow_infinity=False
    )
    return st.one_of(
        st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False),
        st.integers(min_value=-(10**12), max_value=10**12),
        decimals.map(lambda d: format(d, "f")),
    )


@st.composite
def budget_trees(draw: st.DrawFn, max_nodes: int = 60) -> list[BudgetLine]:
    """A valid budget tree: every parent is an earlier account; nodes arrive shuffled, positions random."""
    count = draw(st.integers(min_value=1, max_value=max_nodes))
    lines: list[BudgetLine] = []
    accounts: list[str] = []
    for index in range(count):
        parent = draw(st.one_of(st.none(), st.sampled_from(accounts))) if accounts else None
        kind = "account" if parent is None else draw(st.sampled_from(["account", "line", "line", "subtotal"]))
        node_id = f"n{index}"
        position = draw(st.integers(min_value=0, max_value=5))
        lines.append(BudgetLine(id=node_id, type=kind, parentId=parent, position=position, description=node_id))
        if kind == "account":
            accounts.append(node_id)
    return draw(st.permutations(lines))


@st.composite
def messy_budget_lines(draw: st.DrawFn, max_nodes: int = 40) -> list[BudgetLine]:
    """Hostile trees: any parent link (self, missing, cycles), any type, duplicate ids."""
    count = draw(st.integers(min_value=1, max_value=max_nodes))
    pool = [f"n{i}" for i in range(count)]
    parents = st.one_of(st.none(), st.sampled_from([*pool, "missing"]))
    return [
        BudgetLine(
            id=draw(st.sampled_from(pool)) if draw(st.booleans()) and index > 0 else pool[index],
            type=draw(st.sampled_from(["account", "account", "line", "subtotal", "markup", "bogus"])),
            parentId=draw(parents),
            position=draw(st.integers(min_value=0, max_value=3)),
        )
        for index in range(count)
    ]


def key_requests() -> st.SearchStrategy[tuple[str, str, str, tuple[str, ...], dict[str, object]]]:
    """(namespace, kind, scope, legacy ids, body) for idempotency-key properties."""
    bodies = st.dictionaries(st.sampled_from(["name", "rate", "parentId", "x"]), st.one_of(st.integers(), ids))
    return st.tuples(
        st.sampled_from(["mig-a", "mig-b"]),
        st.sampled_from(["line.bulk", "phase", "fringe", "transaction.bulk"]),
        st.sampled_from(["workspace", "p1", "p2"]),
        st.lists(ids, min_size=1, max_size=5, unique=True).map(tuple),
        bodies,
    )


@st.composite
def project_budgets(draw: st.DrawFn) -> ProjectBudget:
    """A valid project budget: phases (one rollup), fringes, globals and lines with phase data and formulas."""
    project_id = draw(st.sampled_from(["p1", "p2", "p3"]))
    phases = (
        Phase(id="ph1", type="estimate", name="Estimate", currency=PhaseCurrency(code="USD", exchangeRate=1)),
        Phase(
            id="ph2",
            type="estimate",
            name="Working",
            isHidden=draw(st.booleans()),
            currency=PhaseCurrency(code=draw(currencies()), exchangeRate=draw(st.floats(0.001, 1000))),
        ),
        Phase(id="ph3", type="rollup", name="Variance", operation="difference", phaseIds=("ph1", "ph2")),
    )
    globals_ = (Global(id="g1", symbol="DAYS", formula="35"), Global(id="g2", symbol="WEEKS", formula="=DAYS / 5"))
    fringes = (Fringe(id="f1", code="FICA", units="percent", rate=7.65, cutoff=160200),)
    tree = draw(budget_trees(max_nodes=30))
    cells = st.one_of(st.none(), st.floats(0, 1e6, allow_nan=False), st.sampled_from(["=DAYS", "=WEEKS * 2"]))
    lines = [
        line.model_copy(
            update={
                "phase_data": {
                    "ph1": PhaseData(quantity=draw(cells), rate=draw(cells), unit="days", fringes=("f1",)),
                    "ph2": PhaseData(rate=draw(cells)),
                },
                "tags": tuple(draw(st.lists(st.sampled_from(["VFX", "Travel", "Union"]), max_size=2, unique=True))),
            }
        )
        if line.type == "line"
        else line
        for line in tree
    ]
    return ProjectBudget(project_id=project_id, phases=phases, fringes=fringes, globals_=globals_, lines=tuple(lines))


@st.composite
def split_actuals(draw: st.DrawFn) -> Actual:
    """An actual whose parts add up exactly to it, in cents."""
    cents = draw(st.lists(st.integers(-(10**9), 10**9), min_size=1, max_size=5))
    parts = tuple(
        LegacySubActual(id=f"s{i}", amount=format(Decimal(c).scaleb(-2), "f"), accountId=f"n{i}")
        for i, c in enumerate(cents)
    )
    return Actual(
        id="a1", amount=format(Decimal(sum(cents)).scaleb(-2), "f"), date="2026-01-05", mode="split", subactuals=parts
    )


def generated_budget(project_id: str, lines: int, seed: int = 7) -> ProjectBudget:
    """A big reproducible budget (3 levels of accounts, labour lines with phase data, markups, subtotals)."""
    rng = random.Random(seed)
    phases = (
        Phase(id="ph1", type="estimate", name="Estimate", currency=PhaseCurrency(code="USD", exchangeRate=1)),
        Phase(id="ph2", type="estimate", name="Working", currency=PhaseCurrency(code="JPY", exchangeRate=0.0067)),
        Phase(id="ph3", type="rollup", name="Variance", operation="difference", phaseIds=("ph1", "ph2")),
    )
    nodes: list[BudgetLine] = []
    accounts: list[str] = []
    while len(nodes) < lines:
        index = len(nodes)
        if not accounts or rng.random() < 0.05:
            parent = rng.choice(accounts) if accounts and rng.random() < 0.7 else None
            nodes.append(BudgetLine(id=f"{project_id}-a{index}", type="account", parentId=parent, accountId=str(index)))
            accounts.append(f"{project_id}-a{index}")
            continue
        data = {
            "ph1": PhaseData(
                quantity=rng.randint(1, 20), rate=round(rng.uniform(10, 5000), 2), unit="days", fringes=("f1",)
            ),
            "ph2": PhaseData(quantity="=DAYS", rate=round(rng.uniform(1000, 500000))),
        }
        nodes.append(
            BudgetLine(
                id=f"{project_id}-l{index}",
                type="line",
                parentId=rng.choice(accounts),
                position=index,
                description=f"Line {index}",
                phaseData=data,
                tags=("VFX",) if rng.random() < 0.1 else (),
            )
        )
    return ProjectBudget(
        project_id=project_id,
        phases=phases,
        fringes=(Fringe(id="f1", code="FICA", units="percent", rate=7.65, cutoff=160200),),
        globals_=(Global(id="g1", symbol="DAYS", formula="35"),),
        lines=tuple(nodes),
    )
