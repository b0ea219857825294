"""What exists only on the v1 surface: rate packs (``v1.rate_packs``), incentive packs and project incentives,
project fringe groups.

Rate packs are kept per workspace; incentive packs are the service's own read-only catalogue (A37), and adding
a program of an enabled pack to a project is repeat-safe. The core model keeps no fringe groups per project, so
a project's copies of workspace fringe groups are kept here too (``v1.extras.fringe_group_routes``). Refusals
are the core's errors, which the v1 routes render.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.emulator.core.errors import InvalidInput, NotFound
from bridge.emulator.core.model import FringeGroup, Project
from bridge.emulator.v1.rate_packs import RatePack


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
