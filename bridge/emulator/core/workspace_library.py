"""Workspace library rules: the items of ``Workspace.library`` and the project copies made from them (A18).

Workspace items are currencies, fringes, fringe groups, globals, tags and units. Adding one to a project makes
an independent project copy in the core model (the copy the calculation uses), remembering its ``source_id``;
adding it again returns the existing copy with its project edits. Fields arrive under the model's names
(``rate_to_usd``, ``calculation_type``...): the v1 surface, the only one that shows the workspace library,
renames its body before calling in. Refusals name the field as the published documents do, like every other
rule of the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from bridge.emulator.core import validate
from bridge.emulator.core.budget import BudgetStore
from bridge.emulator.core.errors import InvalidInput
from bridge.emulator.core.model import (
    FRINGE_UNITS,
    Fringe,
    FringeGroup,
    Global,
    LibraryCurrency,
    LibraryFringe,
    LibraryGlobal,
    LibraryTag,
    Project,
    ProjectCurrency,
    Unit,
    Workspace,
)
from bridge.emulator.core.project_library import ProjectLibraryStore

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
# The kinds by their field of ``Library``; the ones a project holds copies of.
LibraryKind = Literal["currencies", "fringes", "fringe_groups", "globals", "tags", "units"]
CopyKind = Literal["currencies", "fringes", "globals"]
CopySource = LibraryCurrency | LibraryFringe | LibraryGlobal
ProjectCopy = ProjectCurrency | Fringe | Global
COPY_KIND: Mapping[type[CopySource], CopyKind] = {
    LibraryCurrency: "currencies",
    LibraryFringe: "fringes",
    LibraryGlobal: "globals",
}
# Id prefixes (A04), in the order a new item's id is drawn.
PREFIXES: Mapping[LibraryKind, str] = {
    "currencies": "cur",
    "fringes": "frg",
    "fringe_groups": "fgr",
    "globals": "gbl",
    "tags": "tag",
    "units": "unt",
}


def collection(workspace: Workspace, kind: LibraryKind) -> dict[str, LibraryItem]:
    """The workspace's items of one kind (by id)."""
    library = workspace.library
    table: dict[str, dict[str, LibraryItem]] = {
        "currencies": library.currencies,  # type: ignore[dict-item]
        "fringes": library.fringes,  # type: ignore[dict-item]
        "fringe_groups": library.fringe_groups,  # type: ignore[dict-item]
        "globals": library.globals,  # type: ignore[dict-item]
        "tags": library.tags,  # type: ignore[dict-item]
        "units": library.units,  # type: ignore[dict-item]
    }
    return table[kind]


def live_item(workspace: Workspace, kind: LibraryKind, item_id: str) -> LibraryItem | None:
    """A workspace item that is not deleted, or None."""
    item = collection(workspace, kind).get(item_id)
    return None if item is None or item.deleted else item


def project_copies(project: Project, kind: CopyKind) -> Mapping[str, ProjectCopy]:
    """A project's copies of one kind (by id)."""
    table: dict[str, Mapping[str, ProjectCopy]] = {
        "currencies": project.currencies,
        "fringes": project.fringes,
        "globals": project.globals,
    }
    return table[kind]


def apply(workspace: Workspace, item: LibraryItem, changes: Mapping[str, object], *, creating: bool) -> None:
    """Check and write a workspace item's model-named fields: all required ones on create, only those given
    on an update; each kind checks its fields in one fixed order, so a body with several refusals is refused
    for the same one whatever its key order."""

    def has(name: str) -> bool:
        return creating or name in changes

    if isinstance(item, LibraryCurrency):
        if has("code"):
            code = validate.required_text("code", changes.get("code"), max_len=3).upper()
            if len(code) != 3 or not code.isalpha():
                raise InvalidInput("code", f"{code!r} is not a 3-letter ISO 4217 code")
            item.code = code
        for name in ("name", "symbol"):
            if name in changes:
                setattr(item, name, validate.text(name, changes[name], max_len=64))
        if "rate_to_usd" in changes:
            item.rate_to_usd = validate.number("rateToUSD", changes["rate_to_usd"])
    elif isinstance(item, LibraryFringe):
        if has("name"):
            item.name = validate.required_text("name", changes.get("name"))
        if has("calculation_type"):
            item.calculation_type = validate.choice("calculationType", changes.get("calculation_type"), FRINGE_UNITS)
        if has("rate"):
            item.rate = validate.required_number("rate", changes.get("rate"))
        if "cutoff" in changes:
            item.cutoff = validate.number("cutoff", changes["cutoff"])
        if "description" in changes:
            item.description = validate.text("description", changes["description"], max_len=500)
        if "fringe_group_ids" in changes:
            ids = validate.string_list("fringeGroupIds", changes["fringe_group_ids"])
            unknown = [g for g in ids if g not in workspace.library.fringe_groups]
            if unknown:
                raise InvalidInput("fringeGroupIds", f"fringe group {unknown[0]!r} does not exist in this workspace")
            item.fringe_group_ids = ids
    elif isinstance(item, FringeGroup | LibraryTag):
        if has("name"):
            item.name = validate.required_text("name", changes.get("name"), max_len=100)
        if "color" in changes:
            color = changes["color"]
            item.color = None if color is None else validate.choice("color", color, TAG_COLORS)
        if isinstance(item, LibraryTag) and "description" in changes:
            item.description = validate.text("description", changes["description"], max_len=500)
    elif isinstance(item, LibraryGlobal):
        if has("symbol"):
            symbol = validate.required_text("symbol", changes.get("symbol"), max_len=100)
            if not symbol.isidentifier():
                raise InvalidInput("symbol", f"{symbol!r} must be letters, digits and underscores")
            item.symbol = symbol
        if has("formula"):
            text = changes.get("formula")
            item.formula = validate.text("formula", None if text is None else str(text))
        for name in ("description", "unit"):
            if name in changes:
                setattr(item, name, validate.text(name, changes[name], max_len=500))
    else:
        if has("label"):
            item.label = validate.required_text("label", changes.get("label"), max_len=64)
        if "plural_label" in changes:
            item.plural_label = validate.text("pluralLabel", changes["plural_label"], max_len=64)
        if "category" in changes:
            item.category = validate.choice("category", changes["category"], UNIT_CATEGORIES)
        if "hours_per_unit" in changes:
            item.hours_per_unit = validate.number("hoursPerUnit", changes["hours_per_unit"])
        for name in ("color", "description"):
            if name in changes:
                setattr(item, name, validate.text(name, changes[name], max_len=500))


class WorkspaceLibraryStore(BudgetStore, ProjectLibraryStore):
    """The workspace library and the project copies made from it."""

    def create_library_item(self, workspace: Workspace, kind: LibraryKind, fields: Mapping[str, object]) -> LibraryItem:
        """A new workspace item of ``kind`` from model-named ``fields``; nothing is stored if one is refused."""
        new_id = self.ids.new(PREFIXES[kind])
        now = self.clock()
        blank: LibraryItem
        if kind == "currencies":
            blank = LibraryCurrency(id=new_id, code="")
        elif kind == "fringes":
            blank = LibraryFringe(id=new_id, name="", calculation_type="percent", rate=None)
        elif kind == "fringe_groups":
            blank = FringeGroup(id=new_id, name="")
        elif kind == "globals":
            blank = LibraryGlobal(id=new_id, symbol="", formula=None)
        elif kind == "tags":
            blank = LibraryTag(id=new_id, name="", created_at=now, updated_at=now)
        else:
            blank = Unit(id=new_id, label="")
        apply(workspace, blank, fields, creating=True)
        collection(workspace, kind)[new_id] = blank
        return blank

    def update_library_item(self, workspace: Workspace, item: LibraryItem, changes: Mapping[str, object]) -> None:
        """Apply model-named ``changes`` to a workspace item; its project copies are independent and stay."""
        apply(workspace, item, changes, creating=False)

    def delete_library_item(self, item: LibraryItem) -> None:
        """Soft-delete a workspace item: it leaves every read; its project copies stay (V-SPEC)."""
        item.deleted = True

    def add_project_copy(self, project: Project, source: CopySource) -> tuple[ProjectCopy, bool]:
        """The project's copy of a workspace item, made now (True) or already there with its edits (False)."""
        for existing in project_copies(project, COPY_KIND[type(source)]).values():
            if existing.source_id == source.id:
                return existing, False
        if isinstance(source, LibraryCurrency):
            copy: ProjectCopy = self.add_currency(
                project,
                code=source.code,
                symbol=source.symbol,
                rate_to_usd=source.rate_to_usd or 1,
                source_id=source.id,
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
            copy = self.create_fringe(project, fields)
        else:
            fields = {
                "symbol": source.symbol,
                "formula": source.formula,
                "description": source.description,
                "unit": source.unit,
                "source_id": source.id,
            }
            copy = self.create_global(project, fields)
        return copy, True
