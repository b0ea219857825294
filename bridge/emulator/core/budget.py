"""Budget rules: phases, project currencies, the budget tree and its phase data (fringes, globals and tags
are in ``project_library``).

Surfaces resolve user-mode references (account codes, phase names, fringe codes) to ids before calling in;
everything here takes and returns ids. Every write bumps the project's version (``touch``) so cached totals
and ETags follow.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from bridge.emulator.core import formula, validate
from bridge.emulator.core.errors import Conflict, InvalidInput, NotFound
from bridge.emulator.core.ids import slugify, unique_alias
from bridge.emulator.core.model import (
    NODE_TYPES,
    PHASE_TYPES,
    MarkupType,
    Node,
    Phase,
    PhaseData,
    Project,
    ProjectCurrency,
)
from bridge.emulator.core.workspaces import StoreCore

MARKUP_TYPES: tuple[MarkupType, ...] = ("percent", "flat")
PHASE_DATA_NUMBERS = ("quantity", "rate", "multiplier")


class BudgetStore(StoreCore):
    """Phases, library copies, tags and the budget tree of a project."""

    # -- phases ---------------------------------------------------------------------------------------------

    def list_phases(self, project: Project, *, include_hidden: bool = True) -> list[Phase]:
        """Phases in column order; hidden ones only with ``include_hidden``."""
        phases = sorted(project.phases.values(), key=lambda p: p.sort)
        return [p for p in phases if include_hidden or not p.is_hidden]

    def get_phase(self, project: Project, ref: str) -> Phase:
        """A phase by id, alias or name (in that order of preference)."""
        phase = project.phases.get(ref)
        if phase is None:
            phase = next((p for p in project.phases.values() if p.alias == ref), None)
        if phase is None:
            phase = next((p for p in project.phases.values() if p.name == ref), None)
        if phase is None:
            raise NotFound("phase", ref)
        return phase

    def create_phase(
        self,
        project: Project,
        *,
        name: object,
        type: object,  # noqa: A002 - the wire field's name, so both surfaces pass it through unchanged
        alias: object = None,
        is_hidden: object = False,
        is_locked: object = False,
        color: object = None,
        currency_id: object = None,
        rollup_formula: object = None,
    ) -> Phase:
        """A new phase at the end of the columns. A rollup needs ``rollup_formula`` over ``@phaseId`` refs."""
        clean_name = validate.required_text("name", name)
        phase_type = validate.choice("type", type, PHASE_TYPES)
        wanted = validate.text("alias", alias, max_len=64) or slugify(clean_name)
        phase = Phase(
            id=self.ids.new("phs"),
            type=phase_type,
            name=clean_name,
            alias=unique_alias(wanted, {p.alias for p in project.phases.values()}),
            sort=max((p.sort for p in project.phases.values()), default=-1) + 1,
            is_hidden=validate.flag("isHidden", is_hidden),
            is_locked=validate.flag("isLocked", is_locked),
            color=validate.text("color", color, max_len=32),
            currency_id=self._currency_ref(project, currency_id),
            last_modified=self.clock(),
        )
        if phase_type == "rollup":
            phase.rollup_formula = self._rollup_formula(project, rollup_formula, phase.id)
        elif rollup_formula is not None:
            raise InvalidInput("rollupFormula", "only a rollup phase has a formula")
        project.phases[phase.id] = phase
        self.touch(project)
        return phase

    def update_phase(self, project: Project, ref: str, changes: Mapping[str, object]) -> Phase:
        """Apply ``changes`` (name, alias, is_hidden, is_locked, color, currency_id, rollup_formula, sort)."""
        phase = self.get_phase(project, ref)
        for key, value in changes.items():
            if key == "name":
                phase.name = validate.required_text("name", value)
            elif key == "alias":
                wanted = validate.required_text("alias", value, max_len=64)
                if any(p.alias == wanted and p.id != phase.id for p in project.phases.values()):
                    raise InvalidInput("alias", f"{wanted!r} is taken by another phase; choose another")
                phase.alias = wanted
            elif key in ("is_hidden", "is_locked"):
                setattr(phase, key, validate.flag(key, value))
            elif key == "color":
                phase.color = validate.text("color", value, max_len=32)
            elif key == "currency_id":
                phase.currency_id = self._currency_ref(project, value)
            elif key == "rollup_formula" and phase.type == "rollup":
                phase.rollup_formula = self._rollup_formula(project, value, phase.id)
            elif key == "sort":
                phase.sort = int(validate.required_number("sort", value))
            else:
                raise InvalidInput(key, f"is not a writable field of a {phase.type} phase")
        phase.last_modified = self.clock()
        self.touch(project)
        return phase

    def delete_phase(self, project: Project, ref: str) -> None:
        """Remove a phase column and its data; a rollup that uses it is refused first."""
        phase = self.get_phase(project, ref)
        users = [p.name for p in project.phases.values() if p.rollup_formula and f"@{phase.id}" in p.rollup_formula]
        if users:
            raise Conflict(f"phase {phase.name!r} is used by rollup {users[0]!r}; delete or edit that rollup first")
        del project.phases[phase.id]
        for node in project.nodes.values():
            node.phase_data.pop(phase.id, None)
        self.touch(project)

    def _rollup_formula(self, project: Project, value: object, own_id: str) -> str:
        text = validate.required_text("rollupFormula", value, max_len=2000)
        for ref in formula.phase_refs(text):
            if ref == own_id or ref not in project.phases:
                raise InvalidInput("rollupFormula", f"@{ref} is not another phase of this project")
        formula.parse(formula.rollup_expression(text))
        return text

    # -- project currencies ---------------------------------------------------------------------------------

    def add_currency(
        self,
        project: Project,
        *,
        code: object,
        symbol: object = None,
        rate_to_usd: object = 1,
        source_id: object = None,
    ) -> ProjectCurrency:
        """A project currency copy (A09: ``rate_to_usd`` = USD value of one unit)."""
        clean_code = validate.required_text("code", code, max_len=3).upper()
        if len(clean_code) != 3 or not clean_code.isalpha():
            raise InvalidInput("code", f"{clean_code!r} is not a 3-letter ISO 4217 code")
        rate = validate.required_number("rateToUSD", rate_to_usd)
        if rate <= 0:
            raise InvalidInput("rateToUSD", "must be greater than zero")
        currency = ProjectCurrency(
            id=self.ids.new("cur"),
            code=clean_code,
            symbol=validate.text("symbol", symbol, max_len=8),
            rate_to_usd=rate,
            source_id=validate.text("sourceId", source_id),
        )
        project.currencies[currency.id] = currency
        self.touch(project)
        return currency

    def update_currency(self, project: Project, currency_id: str, changes: Mapping[str, object]) -> ProjectCurrency:
        """Change a project currency's ``rate_to_usd`` or ``symbol`` (checked in that order); totals follow."""
        currency = project.currencies.get(currency_id)
        if currency is None:
            raise NotFound("currency", currency_id)
        unknown = sorted(set(changes) - {"rate_to_usd", "symbol"})
        if unknown:
            raise InvalidInput(unknown[0], "is not a writable field of a project currency")
        if "rate_to_usd" in changes:
            currency.rate_to_usd = validate.required_number("rateToUSD", changes["rate_to_usd"])
        if "symbol" in changes:
            currency.symbol = validate.text("symbol", changes["symbol"], max_len=8)
        self.touch(project)
        return currency

    def delete_currency(self, project: Project, currency_id: str) -> None:
        """Remove a project currency no phase uses."""
        if currency_id not in project.currencies:
            raise NotFound("currency", currency_id)
        if any(p.currency_id == currency_id for p in project.phases.values()):
            raise InvalidInput("currencyId", "a phase uses this currency; change the phase's currency first")
        del project.currencies[currency_id]
        self.touch(project)

    def _currency_ref(self, project: Project, value: object) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str) or value not in project.currencies:
            raise InvalidInput("currency", f"{value!r} is not a currency of this project")
        return value

    # -- budget tree ----------------------------------------------------------------------------------------

    def get_node(self, project: Project, node_id: str) -> Node:
        """A budget node by id."""
        node = project.nodes.get(node_id)
        if node is None:
            raise NotFound("budget line", node_id)
        return node

    def account_by_code(self, project: Project, code: str) -> Node:
        """The first account (in tree order) with this code; codes may repeat, accounts usually do not."""
        for node in self.walk(project):
            if node.type == "account" and node.account_code == code:
                return node
        raise NotFound("account", code)

    def walk(self, project: Project, start: list[str] | None = None) -> Iterator[Node]:
        """Nodes reachable from ``start`` (default: the top level) in tree order, parents first."""
        stack = list(reversed(project.roots if start is None else start))
        seen: set[str] = set()
        while stack:
            node = project.nodes.get(stack.pop())
            if node is None or node.id in seen:
                continue
            seen.add(node.id)
            yield node
            stack.extend(reversed(node.children))

    def tree_order(self, project: Project) -> list[Node]:
        """Every node reachable from the top level in tree order, worked out once per project version (a
        listing's every page reads it again)."""
        cached = self._tree_orders.get(project.id)
        if cached is None or cached[0] != project.version:
            cached = self._tree_orders[project.id] = (project.version, list(self.walk(project)))
        return cached[1]

    def node_path(self, project: Project, node: Node) -> str:
        """The slash path of codes from the top level down to ``node`` (``/1000/1100``); stops at a cycle."""
        parts: list[str] = []
        seen: set[str] = set()
        current: Node | None = node
        while current is not None and current.id not in seen:
            seen.add(current.id)
            parts.append(current.account_code or current.id)
            current = project.nodes.get(current.parent_id) if current.parent_id else None
        return "/" + "/".join(reversed(parts))

    def create_nodes(
        self,
        project: Project,
        parent_id: str | None,
        specs: Sequence[Mapping[str, object]],
        *,
        position: int | None = None,
    ) -> list[Node]:
        """Add nodes under an account (or the top level), at ``position`` among its children (default: end).

        Every spec is checked before anything is written, so a bad spec leaves the budget unchanged.
        """
        if parent_id is not None and self.get_node(project, parent_id).type != "account":
            raise InvalidInput("accountId", "lines can only be added under an account (or the root)")
        nodes = [self._new_node(project, parent_id, spec) for spec in specs]
        siblings = project.roots if parent_id is None else project.nodes[parent_id].children
        at = len(siblings) if position is None else max(0, min(position, len(siblings)))
        siblings[at:at] = [n.id for n in nodes]
        for node in nodes:
            project.nodes[node.id] = node
        self.touch(project)
        return nodes

    def _new_node(self, project: Project, parent_id: str | None, spec: Mapping[str, object]) -> Node:
        node_type = validate.choice("type", spec.get("type", "line"), NODE_TYPES)
        node = Node(
            id=self.ids.new("lin"),
            type=node_type,
            account_code=None,
            description="",
            parent_id=parent_id,
            last_modified=self.clock(),
        )
        self._apply_node(project, node, {k: v for k, v in spec.items() if k != "type"})
        return node

    def update_node(self, project: Project, node_id: str, changes: Mapping[str, object]) -> Node:
        """Apply model-named ``changes``; ``phase_data`` merges per phase (omitted fields unchanged)."""
        node = self.get_node(project, node_id)
        self._apply_node(project, node, changes)
        node.last_modified = self.clock()
        self.touch(project)
        return node

    def move_node(self, project: Project, node_id: str, parent_id: str | None, position: int | None = None) -> Node:
        """Re-parent a node (not under itself or its own descendants)."""
        node = self.get_node(project, node_id)
        if parent_id is not None:
            parent = self.get_node(project, parent_id)
            if parent.type != "account" or parent.id in {n.id for n in self.walk(project, [node.id])}:
                raise InvalidInput("parentId", "a node can only move under an account outside its own subtree")
        self._detach(project, node)
        siblings = project.roots if parent_id is None else project.nodes[parent_id].children
        siblings.insert(len(siblings) if position is None else position, node.id)
        node.parent_id = parent_id
        self.touch(project)
        return node

    def delete_node(self, project: Project, node_id: str) -> None:
        """Remove a node with its whole subtree; actuals coded to removed lines become unassigned."""
        node = self.get_node(project, node_id)
        removed = {n.id for n in self.walk(project, [node.id])}
        self._detach(project, node)
        for gone in removed:
            del project.nodes[gone]
        for actual in project.actuals.values():
            if actual.line_id in removed:
                actual.line_id = None
            for part in actual.subactuals:
                if part.line_id in removed:
                    part.line_id = None
        self.touch(project)

    def _detach(self, project: Project, node: Node) -> None:
        siblings = project.roots if node.parent_id is None else project.nodes[node.parent_id].children
        if node.id in siblings:
            siblings.remove(node.id)

    def _apply_node(self, project: Project, node: Node, fields: Mapping[str, object]) -> None:
        for key, value in fields.items():
            if key == "account_code":
                node.account_code = validate.text("accountId", value, max_len=64)
            elif key == "description":
                node.description = validate.text("description", value) or ""
            elif key in ("color", "alias", "notes"):
                setattr(node, key, validate.text(key, value, max_len=5000))
            elif key == "tags":
                names = validate.string_list("tags", value, max_len=100)
                missing = [n for n in names if n not in project.tags]
                if missing:
                    raise InvalidInput("tags", f"tag {missing[0]!r} does not exist in this project; create it first")
                node.tags = names
            elif key == "contact_id":
                node.contact_id = validate.text("contactId", value)
            elif key == "include_accounts":
                node.include_accounts = None if value is None else validate.string_list("includeAccounts", value)
            elif key == "subtotal_sum_all_above":
                node.subtotal_sum_all_above = validate.flag("subtotalSumAllAbove", value)
            elif key == "phase_data":
                if not isinstance(value, Mapping):
                    raise InvalidInput("phaseData", "must be an object keyed by phase")
                for phase_id, data in value.items():
                    self._merge_phase_data(project, node, str(phase_id), data)
            else:
                raise InvalidInput(key, "is not a field of a budget line")

    def set_phase_data(self, project: Project, node_id: str, phase_id: str, fields: Mapping[str, object]) -> PhaseData:
        """Merge ``fields`` into one node's data for one phase (None clears a field)."""
        node = self.get_node(project, node_id)
        data = self._merge_phase_data(project, node, phase_id, fields)
        node.last_modified = self.clock()
        self.touch(project)
        return data

    def restore_phase_data(self, project: Project, saved: Mapping[str, dict[str, PhaseData]]) -> None:
        """Put back each line's phase data as ``saved`` holds it (what a failed all-or-nothing write changed)."""
        for node_id, data in saved.items():
            project.nodes[node_id].phase_data = data
        self.touch(project)

    def _merge_phase_data(self, project: Project, node: Node, phase_id: str, fields: object) -> PhaseData:
        if phase_id not in project.phases:
            raise InvalidInput("phaseData", f"phase {phase_id!r} does not exist in this project")
        if not isinstance(fields, Mapping):
            raise InvalidInput(f"phaseData.{phase_id}", "must be an object")
        data = node.phase_data.get(phase_id) or PhaseData()
        for key, value in fields.items():
            label = f"phaseData.{phase_id}.{key}"
            if key in PHASE_DATA_NUMBERS:
                setattr(data, key, self._checked_cell(project, label, value))
            elif key == "markup_amount":
                data.markup_amount = validate.number(label, value)
            elif key in ("unit", "start_date", "end_date"):
                setattr(data, key, validate.text(label, value, max_len=64))
            elif key == "fringe_ids":
                ids = validate.string_list(label, value)
                unknown = [f for f in ids if f not in project.fringes]
                if unknown:
                    raise InvalidInput(label, f"fringe {unknown[0]!r} does not exist in this project")
                data.fringe_ids = ids
            elif key == "markup_type":
                data.markup_type = None if value is None else validate.choice(label, value, MARKUP_TYPES)
            elif key == "exclude_fringes":
                data.exclude_fringes = bool(value) if value is not None else False
            else:
                raise InvalidInput(label, "is not a phase-data field")
        node.phase_data[phase_id] = data
        return data

    def _checked_cell(self, project: Project, label: str, value: object) -> object:
        cleaned = validate.cell(label, value)
        if isinstance(cleaned, str):
            known = {g.symbol for g in project.globals.values()}
            unknown = sorted(formula.symbols(cleaned) - known)
            if unknown:
                raise InvalidInput(label, f"formula uses {unknown[0]!r}, which is not a global of this project")
        return cleaned
