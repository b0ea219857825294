"""Project library rules: fringes, globals (formulas checked, cycles refused) and legacy per-project tags.

Each write bumps the project's version (``touch``) so totals that depend on a fringe or global are recomputed.
"""

from __future__ import annotations

from collections.abc import Mapping

from bridge.emulator.core import formula, validate
from bridge.emulator.core.errors import Conflict, InvalidInput, NotFound
from bridge.emulator.core.model import FRINGE_UNITS, Fringe, Global, Project, ProjectTag
from bridge.emulator.core.workspaces import StoreCore


class ProjectLibraryStore(StoreCore):
    """Fringes, globals and tags of a project."""

    # -- fringes --------------------------------------------------------------------------------------------

    def get_fringe(self, project: Project, ref: str) -> Fringe:
        """A project fringe by id or code."""
        fringe = project.fringes.get(ref) or next((f for f in project.fringes.values() if f.code == ref), None)
        if fringe is None:
            raise NotFound("fringe", ref)
        return fringe

    def create_fringe(self, project: Project, fields: Mapping[str, object]) -> Fringe:
        """A project fringe from model-named fields: code, units, rate (required), description, cutoff."""
        fringe = Fringe(
            id=self.ids.new("frg"),
            code=validate.required_text("code", fields.get("code")),
            units=validate.choice("units", fields.get("units"), FRINGE_UNITS),
            rate=validate.required_number("rate", fields.get("rate")),
            last_modified=self.clock(),
        )
        self._apply_fringe(fringe, {k: v for k, v in fields.items() if k not in ("code", "units", "rate")})
        project.fringes[fringe.id] = fringe
        self.touch(project)
        return fringe

    def update_fringe(self, project: Project, ref: str, changes: Mapping[str, object]) -> Fringe:
        """Apply model-named ``changes`` to a fringe; lines using it are recalculated."""
        fringe = self.get_fringe(project, ref)
        self._apply_fringe(fringe, changes)
        fringe.last_modified = self.clock()
        self.touch(project)
        return fringe

    def delete_fringe(self, project: Project, ref: str) -> None:
        """Remove a fringe and every application of it to a line."""
        fringe = self.get_fringe(project, ref)
        del project.fringes[fringe.id]
        for node in project.nodes.values():
            for data in node.phase_data.values():
                if fringe.id in data.fringe_ids:
                    data.fringe_ids.remove(fringe.id)
        self.touch(project)

    def _apply_fringe(self, fringe: Fringe, fields: Mapping[str, object]) -> None:
        for key, value in fields.items():
            if key == "code":
                fringe.code = validate.required_text("code", value)
            elif key == "units":
                fringe.units = validate.choice("units", value, FRINGE_UNITS)
            elif key == "rate":
                fringe.rate = validate.required_number("rate", value)
            elif key == "cutoff":
                fringe.cutoff = validate.number("cutoff", value)
            elif key == "description":
                fringe.description = validate.text("description", value, max_len=500)
            elif key in ("source_id", "color"):
                setattr(fringe, key, validate.text(key, value))
            elif key == "fringe_group_ids":
                fringe.fringe_group_ids = validate.string_list("fringeGroupIds", value)
            else:
                raise InvalidInput(key, "is not a field of a fringe")

    # -- globals --------------------------------------------------------------------------------------------

    def get_global(self, project: Project, ref: str) -> Global:
        """A project global by id or symbol."""
        found = project.globals.get(ref) or next((g for g in project.globals.values() if g.symbol == ref), None)
        if found is None:
            raise NotFound("global", ref)
        return found

    def create_global(self, project: Project, fields: Mapping[str, object]) -> Global:
        """A project global: symbol (unique), formula, description, unit. Its formula must evaluate (A24)."""
        symbol = validate.required_text("symbol", fields.get("symbol"), max_len=100)
        if not symbol.isidentifier():
            raise InvalidInput(
                "symbol", f"{symbol!r} must be letters, digits and underscores, not starting with a digit"
            )
        if any(g.symbol == symbol for g in project.globals.values()):
            raise Conflict(f"global {symbol!r} already exists in this project; update it instead")
        item = Global(id=self.ids.new("gbl"), symbol=symbol, formula=None, last_modified=self.clock())
        self._apply_global(project, item, {k: v for k, v in fields.items() if k != "symbol"})
        return item

    def update_global(self, project: Project, ref: str, changes: Mapping[str, object]) -> Global:
        """Change a global; every line whose formulas depend on it is recalculated on the next read."""
        item = self.get_global(project, ref)
        if "symbol" in changes and changes["symbol"] != item.symbol:
            raise InvalidInput("symbol", "is immutable; create a new global instead")
        self._apply_global(project, item, {k: v for k, v in changes.items() if k != "symbol"})
        return item

    def delete_global(self, project: Project, ref: str) -> None:
        """Remove a global no other global refers to."""
        item = self.get_global(project, ref)
        for other in project.globals.values():
            if other.id != item.id and item.symbol in formula.symbols(other.formula or "0"):
                raise Conflict(f"global {other.symbol!r} uses {item.symbol!r}; change it first")
        del project.globals[item.id]
        self.touch(project)

    def _apply_global(self, project: Project, item: Global, fields: Mapping[str, object]) -> None:
        before = (item.formula, item.description, item.unit, item.source_id)
        for key, value in fields.items():
            if key == "formula":
                item.formula = validate.text("formula", None if value is None else str(value), max_len=2000)
            elif key in ("description", "unit", "source_id"):
                setattr(item, key, validate.text(key, value, max_len=500))
            else:
                raise InvalidInput(key, "is not a field of a global")
        candidate = {g.symbol: g.formula for g in project.globals.values()} | {item.symbol: item.formula}
        try:
            formula.evaluate_globals(candidate)
        except InvalidInput:
            item.formula, item.description, item.unit, item.source_id = before
            raise
        item.last_modified = self.clock()
        project.globals[item.id] = item
        self.touch(project)

    # -- tags -----------------------------------------------------------------------------------------------

    def list_tags(self, project: Project) -> list[ProjectTag]:
        """The project's tags in creation order."""
        return list(project.tags.values())

    def get_tag(self, project: Project, name: str) -> ProjectTag:
        """A project tag by its id, which is its name."""
        tag = project.tags.get(name)
        if tag is None:
            raise NotFound("tag", name)
        return tag

    def create_tag(
        self, project: Project, *, name: object, color: object = None, description: object = None
    ) -> ProjectTag:
        """A new project tag; the name (1-100 characters) is unique in the project and never changes."""
        clean_name = validate.required_text("name", name, max_len=100)
        if clean_name in project.tags:
            raise Conflict(f"tag {clean_name!r} already exists in this project; reuse it")
        tag = ProjectTag(
            name=clean_name,
            color=validate.color("color", color),
            description=validate.text("description", description, max_len=500),
        )
        project.tags[tag.name] = tag
        self.touch(project)
        return tag

    def update_tag(self, project: Project, name: str, changes: Mapping[str, object]) -> ProjectTag:
        """Only a tag's colour (and description) may change; its name is its id."""
        tag = self.get_tag(project, name)
        for key, value in changes.items():
            if key == "color":
                tag.color = validate.color("color", value)
            elif key == "description":
                tag.description = validate.text("description", value, max_len=500)
            elif key == "name" and value != tag.name:
                raise InvalidInput("name", "a tag's name is immutable; create a new tag")
        self.touch(project)
        return tag

    def delete_tag(self, project: Project, name: str) -> None:
        """Remove a tag and every assignment of it."""
        tag = self.get_tag(project, name)
        del project.tags[tag.name]
        for node in project.nodes.values():
            if tag.name in node.tags:
                node.tags.remove(tag.name)
        self.touch(project)
