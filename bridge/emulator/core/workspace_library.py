"""The v1 library's rules: workspace items on the core model, project copies, rate packs and incentives.

Workspace items (currencies, fringes, fringe groups, globals, tags, units) live in ``Workspace.library``.
Adding one to a project makes an independent project copy in the core model (the copy the calculation uses),
remembering its ``sourceId``; adding it again returns the existing copy with its project edits (A18). Rate
packs and incentive packs exist only on the v1 surface, so they are kept here, per workspace; incentive packs
are the service's own read-only catalogue (A37), and adding a program of an enabled pack to a project is repeat-safe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bridge.emulator.core import validate
from bridge.emulator.core.errors import InvalidInput, NotFound
from bridge.emulator.core.model import (
    FRINGE_UNITS,
    FringeGroup,
    LibraryCurrency,
    LibraryFringe,
    LibraryGlobal,
    LibraryTag,
    Project,
    Unit,
    Workspace,
)
from bridge.emulator.core.store import Service

TAG_COLORS = (
    "slate",
    "gray",
    "zinc",
    "red",
    "orange",
    "amber",
    "yellow",
    "lime",
    "green",
    "emerald",
    "teal",
    "cyan",
    "sky",
    "blue",
    "indigo",
    "violet",
    "purple",
    "pink",
    "rose",
)
UNIT_CATEGORIES: tuple[Literal["time", "quantity", "flat"], ...] = ("time", "quantity", "flat")
LibraryItem = LibraryCurrency | LibraryFringe | FringeGroup | LibraryGlobal | LibraryTag | Unit
KINDS = ("currencies", "fringes", "fringe-groups", "globals", "tags", "units")


def collection(workspace: Workspace, kind: str) -> dict[str, LibraryItem]:
    """The workspace's items of one kind (by id)."""
    library = workspace.library
    table: dict[str, dict[str, LibraryItem]] = {
        "currencies": library.currencies,  # type: ignore[dict-item]
        "fringes": library.fringes,  # type: ignore[dict-item]
        "fringe-groups": library.fringe_groups,  # type: ignore[dict-item]
        "globals": library.globals,  # type: ignore[dict-item]
        "tags": library.tags,  # type: ignore[dict-item]
        "units": library.units,  # type: ignore[dict-item]
    }
    return table[kind]


def live_item(workspace: Workspace, kind: str, item_id: str) -> LibraryItem:
    """A live workspace item, else NotFound."""
    item = collection(workspace, kind).get(item_id)
    if item is None or item.deleted:
        raise NotFound(kind.rstrip("s"), item_id)
    return item


def apply(workspace: Workspace, item: LibraryItem, body: dict[str, object], *, creating: bool) -> None:
    """Check and write a workspace item's fields (all required ones on create; only the sent ones on PATCH)."""

    def has(name: str) -> bool:
        return creating or name in body

    if isinstance(item, LibraryCurrency):
        if has("code"):
            code = validate.required_text("code", body.get("code"), max_len=3).upper()
            if len(code) != 3 or not code.isalpha():
                raise InvalidInput("code", f"{code!r} is not a 3-letter ISO 4217 code")
            item.code = code
        for name, attr in (("name", "name"), ("symbol", "symbol")):
            if name in body:
                setattr(item, attr, validate.text(name, body[name], max_len=64))
        if "rateToUSD" in body:
            item.rate_to_usd = validate.number("rateToUSD", body["rateToUSD"])
    elif isinstance(item, LibraryFringe):
        if has("name"):
            item.name = validate.required_text("name", body.get("name"))
        if has("calculationType"):
            item.calculation_type = validate.choice("calculationType", body.get("calculationType"), FRINGE_UNITS)
        if has("rate"):
            item.rate = validate.required_number("rate", body.get("rate"))
        if "cutoff" in body:
            item.cutoff = validate.number("cutoff", body["cutoff"])
        if "description" in body:
            item.description = validate.text("description", body["description"], max_len=500)
        if "fringeGroupIds" in body:
            ids = validate.string_list("fringeGroupIds", body["fringeGroupIds"])
            unknown = [g for g in ids if g not in workspace.library.fringe_groups]
            if unknown:
                raise InvalidInput("fringeGroupIds", f"fringe group {unknown[0]!r} does not exist in this workspace")
            item.fringe_group_ids = ids
    elif isinstance(item, FringeGroup | LibraryTag):
        if has("name"):
            item.name = validate.required_text("name", body.get("name"), max_len=100)
        if "color" in body:
            item.color = None if body["color"] is None else validate.choice("color", body["color"], TAG_COLORS)
        if isinstance(item, LibraryTag) and "description" in body:
            item.description = validate.text("description", body["description"], max_len=500)
    elif isinstance(item, LibraryGlobal):
        if has("symbol"):
            symbol = validate.required_text("symbol", body.get("symbol"), max_len=100)
            if not symbol.isidentifier():
                raise InvalidInput("symbol", f"{symbol!r} must be letters, digits and underscores")
            item.symbol = symbol
        if has("formula"):
            item.formula = validate.text("formula", None if body.get("formula") is None else str(body.get("formula")))
        for name in ("description", "unit"):
            if name in body:
                setattr(item, name, validate.text(name, body[name], max_len=500))
    else:
        if has("label"):
            item.label = validate.required_text("label", body.get("label"), max_len=64)
        if "pluralLabel" in body:
            item.plural_label = validate.text("pluralLabel", body["pluralLabel"], max_len=64)
        if "category" in body:
            item.category = validate.choice("category", body["category"], UNIT_CATEGORIES)
        if "hoursPerUnit" in body:
            item.hours_per_unit = validate.number("hoursPerUnit", body["hoursPerUnit"])
        for name in ("color", "description"):
            if name in body:
                setattr(item, name, validate.text(name, body[name], max_len=500))


PREFIXES = {
    "currencies": "cur",
    "fringes": "frg",
    "fringe-groups": "fgr",
    "globals": "gbl",
    "tags": "tag",
    "units": "unt",
}


def create_item(service: Service, workspace: Workspace, kind: str, body: dict[str, object]) -> LibraryItem:
    """A new workspace item of ``kind`` from a v1 body; nothing is stored if a field is refused."""
    new_id = service.ids.new(PREFIXES[kind])
    now = service.clock()
    blank: LibraryItem
    if kind == "currencies":
        blank = LibraryCurrency(id=new_id, code="")
    elif kind == "fringes":
        blank = LibraryFringe(id=new_id, name="", calculation_type="percent", rate=None)
    elif kind == "fringe-groups":
        blank = FringeGroup(id=new_id, name="")
    elif kind == "globals":
        blank = LibraryGlobal(id=new_id, symbol="", formula=None)
    elif kind == "tags":
        blank = LibraryTag(id=new_id, name="", created_at=now, updated_at=now)
    else:
        blank = Unit(id=new_id, label="")
    apply(workspace, blank, body, creating=True)
    collection(workspace, kind)[new_id] = blank
    return blank


# -- project copies -------------------------------------------------------------------------------------------

COPY_KINDS = ("currencies", "fringes", "globals")


def project_copies(project: Project, kind: str) -> dict[str, object]:
    """A project's copies of one kind (by id)."""
    table: dict[str, dict[str, object]] = {
        "currencies": project.currencies,  # type: ignore[dict-item]
        "fringes": project.fringes,  # type: ignore[dict-item]
        "globals": project.globals,  # type: ignore[dict-item]
    }
    return table[kind]


def add_copy(
    service: Service, workspace: Workspace, project: Project, kind: str, source_id: str
) -> tuple[object, bool]:
    """The project's copy of a workspace item, made now (True) or already there with its edits (False)."""
    source = live_item(workspace, kind, source_id)
    for existing in project_copies(project, kind).values():
        if getattr(existing, "source_id", None) == source_id:
            return existing, False
    if isinstance(source, LibraryCurrency):
        copy: object = service.add_currency(
            project, code=source.code, symbol=source.symbol, rate_to_usd=source.rate_to_usd or 1, source_id=source.id
        )
    elif isinstance(source, LibraryFringe):
        fields: dict[str, object] = {
            "code": source.name,
            "units": source.calculation_type,
            "rate": source.rate,
            "cutoff": source.cutoff,
            "description": source.description,
            "source_id": source.id,
        }
        copy = service.create_fringe(project, fields)
    elif isinstance(source, LibraryGlobal):
        copy = service.create_global(
            project,
            {
                "symbol": source.symbol,
                "formula": source.formula,
                "description": source.description,
                "source_id": source.id,
            },
        )
    else:
        raise InvalidInput("sourceId", f"{kind} cannot be added to a project")
    return copy, True


# -- rate packs and incentives (v1 only) ------------------------------------------------------------------------


@dataclass(slots=True)
class RatePackItem:
    id: str
    title: str
    rate_minor: int
    currency: str
    unit: str | None = None
    quantity: str | None = None
    multiplier: str | None = None


@dataclass(slots=True)
class RatePack:
    id: str
    name: str
    description: str | None = None
    enabled: bool = False
    items: dict[str, RatePackItem] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class IncentiveProgram:
    id: str
    pack_id: str
    name: str
    rate_percent: str


@dataclass(frozen=True, slots=True)
class IncentivePack:
    id: str
    name: str
    programs: tuple[IncentiveProgram, ...]


CATALOGUE = (
    IncentivePack(
        "inp_georgia",
        "Georgia Entertainment Industry Investment Act",
        (
            IncentiveProgram("inc_ga_base", "inp_georgia", "Base tax credit", "20"),
            IncentiveProgram("inc_ga_uplift", "inp_georgia", "Promotional uplift", "10"),
        ),
    ),
    IncentivePack(
        "inp_new_mexico",
        "New Mexico Film Production Tax Credit",
        (IncentiveProgram("inc_nm_base", "inp_new_mexico", "Base refundable credit", "25"),),
    ),
)


@dataclass(slots=True)
class ProjectIncentive:
    id: str
    program_id: str
    name: str
    rate_percent: str


@dataclass(slots=True)
class ProjectFringeGroup:
    """A project's copy of a workspace fringe group (the core model has no fringe groups per project)."""

    id: str
    name: str
    color: str | None
    source_id: str


@dataclass(slots=True)
class PackLibrary:
    """Rate packs per workspace, incentive-pack enablement per workspace, incentives and fringe-group copies
    per project: what exists only on the v1 surface."""

    rate_packs: dict[str, dict[str, RatePack]] = field(default_factory=dict)
    enabled_incentive_packs: dict[str, set[str]] = field(default_factory=dict)
    incentives: dict[str, dict[str, ProjectIncentive]] = field(default_factory=dict)
    fringe_groups: dict[str, dict[str, ProjectFringeGroup]] = field(default_factory=dict)

    def add_fringe_group(
        self, project: Project, source: FringeGroup, new_id: str, *, reset: bool
    ) -> tuple[ProjectFringeGroup, bool]:
        """The project's copy of ``source``: made now (True), or the existing one (False) with its project edits
        kept, or with the workspace values restored when ``reset``."""
        held = self.fringe_groups.setdefault(project.id, {})
        for existing in held.values():
            if existing.source_id == source.id:
                if reset:
                    existing.name, existing.color = source.name, source.color
                return existing, False
        copy = ProjectFringeGroup(new_id, source.name, source.color, source.id)
        held[copy.id] = copy
        return copy, True

    def fringe_group(self, project: Project, group_id: str) -> ProjectFringeGroup:
        found = self.fringe_groups.get(project.id, {}).get(group_id)
        if found is None:
            raise NotFound("fringe group", group_id)
        return found

    def packs_of(self, workspace_id: str) -> dict[str, RatePack]:
        return self.rate_packs.setdefault(workspace_id, {})

    def rate_pack(self, workspace_id: str, pack_id: str) -> RatePack:
        pack = self.packs_of(workspace_id).get(pack_id)
        if pack is None:
            raise NotFound("rate pack", pack_id)
        return pack

    @staticmethod
    def incentive_pack(pack_id: str) -> IncentivePack:
        for pack in CATALOGUE:
            if pack.id == pack_id:
                return pack
        raise NotFound("incentive pack", pack_id)

    def add_incentive(
        self, workspace_id: str, project: Project, program_id: object, new_id: str
    ) -> tuple[ProjectIncentive, bool]:
        """Add a program of an enabled pack to a project; adding it again returns the existing copy."""
        if not isinstance(program_id, str):
            raise InvalidInput("programId", "is required: the id of a program of an enabled incentive pack")
        program = next((p for pack in CATALOGUE for p in pack.programs if p.id == program_id), None)
        if program is None:
            raise NotFound("incentive program", program_id)
        if program.pack_id not in self.enabled_incentive_packs.get(workspace_id, set()):
            raise InvalidInput(
                "programId", f"pack {program.pack_id!r} is not enabled for this workspace; enable it first"
            )
        held = self.incentives.setdefault(project.id, {})
        for existing in held.values():
            if existing.program_id == program_id:
                return existing, False
        incentive = ProjectIncentive(new_id, program.id, program.name, program.rate_percent)
        held[incentive.id] = incentive
        return incentive, True

    @staticmethod
    def program(program_id: str) -> IncentiveProgram:
        for pack in CATALOGUE:
            for program in pack.programs:
                if program.id == program_id:
                    return program
        raise NotFound("incentive program", program_id)
