"""How the legacy surface writes records: field names, id modes and float numbers (L-SPEC shapes).

``LegacyView`` is built per request with the id mode and the read options; its methods turn store records
into JSON-ready dicts. ``idMode=user`` shows aliases, account codes, fringe codes and phase aliases;
``system`` shows database ids (A28). Stored junk (dirty seed) is passed through as stored, so a client sees
exactly what a bad record holds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from bridge.emulator.core import formula
from bridge.emulator.core.model import (
    Actual,
    Cell,
    Contact,
    Fringe,
    Global,
    Node,
    Phase,
    PhaseData,
    Project,
    ProjectTag,
    Space,
    SubActual,
    Workspace,
)
from bridge.emulator.core.store import Service
from bridge.emulator.core.totals import ProjectTotals, Values, cell_value
from bridge.emulator.legacy.file_shapes import files_json
from bridge.emulator.legacy.note_shapes import note_data
from bridge.emulator.wire.formats import wire_moment

Json = dict[str, object]
INTEGRAL_LIMIT = 2**63


def num(value: Cell) -> object:
    """A stored number as the legacy wire writes it: a JSON number (float or int), or the raw stored junk."""
    if isinstance(value, Decimal):
        if not value.is_finite():
            return float("nan") if value.is_nan() else math.copysign(math.inf, 1 if value > 0 else -1)
        if value == value.to_integral_value() and abs(value) < INTEGRAL_LIMIT:
            return int(value)
        return float(value)
    return value


def stamp(value: object) -> str | None:
    """A datetime as ISO 8601 with a Z suffix."""
    return wire_moment(value) if isinstance(value, datetime) else None


@dataclass
class LegacyView:
    """Shapes records for one request: id mode, hidden phases, phase filter, expands."""

    service: Service
    workspace: Workspace
    system: bool = False
    include_hidden: bool = False
    phase_filter: frozenset[str] | None = None
    expands: frozenset[str] = field(default_factory=frozenset)
    _phases: dict[tuple[str, int], list[Phase]] = field(default_factory=dict, init=False, repr=False)
    _paths: dict[tuple[str, str], str] = field(default_factory=dict, init=False, repr=False)
    _contacts: dict[str, Json] = field(default_factory=dict, init=False, repr=False)

    # -- workspace-level records ------------------------------------------------------------------------

    def space(self, space: Space) -> Json:
        shaped: Json = {
            "id": space.uuid if self.system else space.alias,
            "alias": space.alias,
            "name": space.name,
            "image": space.image,
            "archived": space.archived,
            "projectCount": self.service.project_count(self.workspace, space),
            "createdAt": stamp(space.created_at),
            "updatedAt": stamp(space.updated_at),
        }
        if "projects" in self.expands:
            members = [p for p in self.service.list_projects(self.workspace) if p.space_id == space.id]
            shaped["projects"] = [self.project(p) for p in members]
        return shaped

    def project(self, project: Project) -> Json:
        space = self.workspace.spaces.get(project.space_id or "")
        space_ref = (space.uuid if self.system else space.alias) if space else None
        return {
            "id": project.id if self.system else project.alias,
            "alias": project.alias,
            "name": project.name,
            "icon": project.emoji,
            "imageUrl": project.image,
            "spaceId": space_ref,
            "space": {"id": space_ref, "name": space.name} if space else None,
            "status": project.status,
            "labels": list(project.labels),
            "createdAt": stamp(project.created_at),
            "updatedAt": stamp(project.updated_at),
        }

    def contact(self, contact: Contact) -> Json:
        shaped: Json = {
            "id": contact.id,
            "name": contact.name,
            "contactTitle": contact.contact_title,
            "email": contact.email,
            "company": contact.company,
            "jobTitle": contact.job_title,
            "rate": num(contact.rate),
            "lastModified": stamp(contact.last_modified),
        }
        if contact.type is not None:  # the published enum has no null: an unset type is left out
            shaped["type"] = contact.type
        if "secureInfo" in self.expands:
            shaped["secureInfo"] = {
                "address": contact.address,
                "phone": contact.phone,
                "taxIdLast4": contact.tax_id_last4,
            }
        return shaped

    # -- project library --------------------------------------------------------------------------------

    def phase_key(self, phase: Phase) -> str:
        return phase.id if self.system else phase.alias

    def visible_phases(self, project: Project) -> list[Phase]:
        """The phases this request shows: visible (or all with includeHiddenPhases), narrowed by phaseId."""
        key = (project.id, project.version)
        if key not in self._phases:  # once per request and project: a budget document asks for every line
            phases = self.service.list_phases(project, include_hidden=self.include_hidden)
            if self.phase_filter is not None:
                phases = [p for p in phases if {p.id, p.alias, p.name} & self.phase_filter]
            self._phases[key] = phases
        return self._phases[key]

    def phase(self, project: Project, phase: Phase) -> Json:
        currency = project.currencies.get(phase.currency_id or "")
        shaped: Json = {
            "id": self.phase_key(phase),
            "type": phase.type,
            "alias": phase.alias,
            "name": phase.name,
            "isHidden": phase.is_hidden,
            "isLocked": phase.is_locked,
            "color": phase.color,
            "currency": (
                {"code": currency.code, "symbol": currency.symbol, "exchangeRate": num(currency.rate_to_usd)}
                if currency
                else {"code": self.workspace.currency, "symbol": None, "exchangeRate": 1}
            ),
            "lastModified": stamp(phase.last_modified),
        }
        if phase.type == "rollup" and phase.rollup_formula:
            operation, refs = rollup_operation(phase.rollup_formula)
            keys = [self.phase_key(project.phases[r]) if r in project.phases else r for r in refs]
            shaped |= {"operation": operation, "phaseIds": keys, "formula": phase.rollup_formula}
        return shaped

    def fringe(self, fringe: Fringe) -> Json:
        return {
            "id": fringe.id if self.system else fringe.code,
            "code": fringe.code,
            "description": fringe.description,
            "units": fringe.units,
            "rate": num(fringe.rate),
            "cutoff": num(fringe.cutoff),
            "lastModified": stamp(fringe.last_modified),
        }

    def global_(self, item: Global) -> Json:
        return {
            "id": item.id if self.system else item.symbol,
            "symbol": item.symbol,
            "description": item.description,
            "unit": item.unit,
            "formula": item.formula,
            "lastModified": stamp(item.last_modified),
        }

    def tag(self, project: Project, tag: ProjectTag, totals: ProjectTotals) -> Json:
        entry = totals.tags.get(tag.name)
        phases = self.visible_phases(project)
        shaped: Json = {"id": tag.name, "name": tag.name}
        # color and description are strings, never null, in the published Tag: an unset one is left out.
        shaped |= {key: value for key, value in (("color", tag.color), ("description", tag.description)) if value}
        return shaped | {
            "totals": {
                "phaseTotals": {self.phase_key(p): num(entry.phase_totals.get(p.id)) if entry else 0 for p in phases},
                "fringeTotals": {self.phase_key(p): num(entry.fringe_totals.get(p.id)) if entry else 0 for p in phases},
                "actualTotal": num(entry.actual_total) if entry else 0,
            },
        }

    # -- budget -----------------------------------------------------------------------------------------

    def totals_of(self, values: Iterable[tuple[Phase, Values]]) -> Json:
        return {self.phase_key(phase): num(v.amount) for phase, v in values}

    def line(self, project: Project, node: Node, totals: ProjectTotals) -> Json:
        phases = self.visible_phases(project)
        shaped: Json = {
            "type": node.type,
            "id": node.id,
            "accountId": node.account_code,
            "description": node.description,
            "path": self.path(project, node),
            "parentId": self.parent_ref(project, node),
            "totals": self.totals_of((p, totals.node(node.id, p.id)) for p in phases),
            "tags": list(node.tags),
            "contactId": node.contact_id,
            "lastModified": stamp(node.last_modified),
        }
        if node.type == "subtotal":
            shaped |= {"color": node.color, "alias": node.alias}
        if node.type == "markup" and node.include_accounts is not None:
            # The published includeAccounts is a list, never null: a markup over every account omits it.
            shaped["includeAccounts"] = node.include_accounts
        if "lines.contact" in self.expands and node.contact_id in self.workspace.contacts:
            shaped["contact"] = self.contact(self.workspace.contacts[node.contact_id or ""])
        note = self.service.line_note(project, node) if "lines.notes" in self.expands else None
        if note is not None:  # a line without a note omits it: no null where the description admits none
            shaped["note"] = note_data(note)
        if "lines.phaseData" in self.expands or "phaseData" in self.expands:
            shaped["phaseData"] = {
                self.phase_key(p): self.phase_data(project, node, node.phase_data[p.id], totals, p)
                for p in phases
                if p.id in node.phase_data
            }
        return shaped

    def phase_data(self, project: Project, node: Node, data: PhaseData, totals: ProjectTotals, phase: Phase) -> Json:
        if node.type == "markup":
            # Declared only on the write shapes; read back under the same names (A45).
            return {"type": data.markup_type, "amount": num(data.markup_amount), "excludeFringes": data.exclude_fringes}
        fringes = [f if self.system or f not in project.fringes else project.fringes[f].code for f in data.fringe_ids]
        shaped: Json = {
            "unit": data.unit,
            "fringes": fringes,
            "fringeTotal": num(totals.node(node.id, phase.id).fringe),
        }
        for name in ("quantity", "rate", "multiplier"):
            stored = getattr(data, name)
            if isinstance(stored, str):
                # Text in a number cell (a formula, or text held in place of a number) reads back in
                # <name>Formula; <name> holds its value over the globals, null when it has none (A44).
                shaped[f"{name}Formula"] = stored
                shaped[name] = num(cell_value(stored, totals.globals))
            else:
                shaped[name] = num(stored)
        if data.start_date or data.end_date:
            shaped["date"] = {"startDate": data.start_date, "endDate": data.end_date}
        return shaped

    def account(self, project: Project, node: Node | None, totals: ProjectTotals) -> Json:
        """An Account (A29); ``None`` is the synthetic root account whose lines are the top level."""
        phases = self.visible_phases(project)
        children = project.roots if node is None else node.children
        lines = [self.line(project, project.nodes[c], totals) for c in children if c in project.nodes]
        if node is None:
            return {
                "id": "root",
                "accountId": None,
                "description": project.name,
                "path": "/",
                "parentId": None,
                "lines": lines,
                "totals": self.totals_of((p, totals.phases.get(p.id) or Values()) for p in phases),
            }
        shaped = self.line(project, node, totals)
        shaped["id"] = node.id if self.system else node.account_code
        shaped["lines"] = lines
        return shaped

    def actual(self, project: Project, actual: Actual) -> Json:
        line = project.nodes.get(actual.line_id or "")
        modified = stamp(actual.updated_at)
        shaped: Json = {
            "id": actual.id,
            "description": actual.description,
            "amount": num(actual.amount),
            "currency": actual.currency,
            "date": stamp(actual.date),
            "mode": actual.mode,
            "type": actual.type,
            "status": actual.status,
            "accountId": self.line_ref(line),
            "accountPath": self.path(project, line) if line else None,
            "ref": actual.ref,
            "payId": actual.pay_id,
            "notes": actual.notes,
            "number": actual.number,
            "tags": list(actual.tags),
            "contactId": actual.contact_id,
            "purchaseOrderId": actual.purchase_order_id,
            "transactionId": self.workspace.bank.source_of(actual.id),
            "attachments": files_json(self.workspace.files, "actual", actual.id),
            "subactuals": [self.part(project, part, modified) for part in actual.subactuals],
            "lastModified": modified,
        }
        if "contact" in self.expands and actual.contact_id in self.workspace.contacts:
            shaped["contact"] = self.contact_of(actual.contact_id or "")
        if "account" in self.expands and line is not None:
            shaped["account"] = self.line(project, line, self.service.totals(self.workspace, project))
        return shaped

    def part(self, project: Project, part: SubActual, modified: str | None) -> Json:
        """A split part: ``lineId`` is its own line label ("Line identifier for ordering and referencing"),
        ``accountId`` the budget line it is coded to."""
        shaped: Json = {
            "id": part.id,
            "lineId": part.line_number,
            "description": part.description,
            "amount": num(part.amount),
            "accountId": self.line_ref(project.nodes.get(part.line_id or "")),
            "accountPath": self.path(project, project.nodes[part.line_id]) if part.line_id in project.nodes else None,
            "notes": part.notes,
            # A part has no stamp of its own: it changes only with its actual.
            "lastModified": modified,
        }
        # Published as a number and a string, never null: left out when unset (or a formula a v1 write sent).
        for name in ("quantity", "rate"):
            value = getattr(part, name)
            if value is not None and not isinstance(value, str):
                shaped[name] = num(value)
        if part.unit is not None:
            shaped["unit"] = part.unit
        return shaped

    def contact_of(self, contact_id: str) -> Json:
        """A contact as ``contact`` shapes it, shaped once per request (an actuals page names a few contacts
        thousands of times); each caller gets its own copy of the dict."""
        shaped = self._contacts.get(contact_id)
        if shaped is None:
            shaped = self._contacts[contact_id] = self.contact(self.workspace.contacts[contact_id])
        return dict(shaped)

    def path(self, project: Project, node: Node) -> str:
        """The node's slash path of codes, worked out once per request: every actual coded to a line repeats it."""
        key = (project.id, node.id)
        found = self._paths.get(key)
        if found is None:
            found = self._paths[key] = self.service.node_path(project, node)
        return found

    def parent_ref(self, project: Project, node: Node) -> str | None:
        """A node's parent as this id mode names it; a missing parent keeps the stored id (dirty data)."""
        parent = project.nodes.get(node.parent_id or "")
        if parent is None:
            return node.parent_id
        return parent.id if self.system else parent.account_code

    def line_ref(self, line: Node | None) -> str | None:
        """How an actual names its line: the line id (system) or its account code (user, A28)."""
        if line is None:
            return None
        return line.id if self.system else line.account_code


def rollup_operation(text: str) -> tuple[str, list[str]]:
    """A stored rollup formula as legacy ``operation`` (sum|difference) and ``phaseIds``."""
    refs = formula.phase_refs(text)
    return ("difference" if "-" in formula.rollup_expression(text) else "sum"), refs


def rollup_formula(operation: str, phase_ids: list[str]) -> str:
    """Legacy ``operation`` + ``phaseIds`` as a stored formula: a sum, or the first minus the rest."""
    joiner = " - " if operation == "difference" else " + "
    return joiner.join(f"@{{{pid}}}" for pid in phase_ids)
