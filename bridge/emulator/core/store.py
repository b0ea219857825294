"""The emulated service's state and rules: one ``Service`` that both surfaces call, no HTTP in sight.

The service is split by domain: this module holds spaces, projects and contacts and assembles ``Service``;
``budget`` holds phases, currencies and the budget tree; ``project_library`` a project's fringes, globals and
tags; ``workspace_library`` the workspace library and the project copies made from it; ``actuals`` holds
actuals (v1 transactions); ``purchase_order_store`` purchase orders; ``comments``, ``notes`` and ``rates``
comments, budget notes and workspace rates; ``bank_store`` the legacy bank and card feed; ``workspaces`` what
they all share. Updates take a mapping of model-attribute names to new values, so the legacy PUT and the v1
PATCH share one rule set; every value is checked here, not in the surfaces.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from bridge.emulator.core import validate
from bridge.emulator.core.actuals import ActualsStore
from bridge.emulator.core.bank_store import BankStore
from bridge.emulator.core.comments import CommentsStore
from bridge.emulator.core.errors import InvalidInput, NotFound, SpaceNotEmpty
from bridge.emulator.core.file_store import FilesStore
from bridge.emulator.core.ids import slugify, unique_alias
from bridge.emulator.core.model import CONTACT_DETAILS, Contact, Project, ProjectStatus, Space, Workspace
from bridge.emulator.core.notes import NotesStore
from bridge.emulator.core.purchase_order_store import PurchaseOrderStore
from bridge.emulator.core.rates import RatesStore
from bridge.emulator.core.totals import ProjectTotals, compute_totals
from bridge.emulator.core.workspace_library import WorkspaceLibraryStore

PROJECT_STATUSES: tuple[ProjectStatus, ...] = ("active", "archived")


class Service(
    WorkspaceLibraryStore,
    PurchaseOrderStore,
    ActualsStore,
    FilesStore,
    CommentsStore,
    NotesStore,
    RatesStore,
    BankStore,
):
    """Every workspace of the emulated service, with the rules that guard them."""

    # -- spaces ---------------------------------------------------------------------------------------------

    def list_spaces(
        self, workspace: Workspace, *, archived: bool | None = None, search: str | None = None
    ) -> list[Space]:
        """Live spaces in creation order; ``archived`` filters on the flag, ``search`` on the name (any case)."""
        needle = search.casefold() if search else None
        return [
            space
            for space in workspace.spaces.values()
            if not space.deleted
            and (archived is None or space.archived == archived)
            and (needle is None or needle in space.name.casefold())
        ]

    def get_space(self, workspace: Workspace, ref: str) -> Space:
        """A live space by id, alias or legacy UUID."""
        space = workspace.spaces.get(ref)
        if space is None:
            space = next((s for s in workspace.spaces.values() if ref in (s.alias, s.uuid)), None)
        if space is None or space.deleted:
            raise NotFound("space", ref)
        return space

    def create_space(
        self,
        workspace: Workspace,
        *,
        name: object,
        image: object = None,
        archived: object = False,
        alias: object = None,
        parent_id: object = None,
    ) -> Space:
        """A new space; its alias comes from ``alias`` or the name and is made unique in the workspace."""
        clean_name = validate.required_text("name", name)
        wanted = validate.text("alias", alias, max_len=100) or slugify(clean_name)
        parent = self.get_space(workspace, str(parent_id)).id if parent_id is not None else None
        now = self.clock()
        space_id = self.ids.new("spc")
        space = Space(
            id=space_id,
            uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, f"emulator:{space_id}")),
            alias=unique_alias(wanted, {s.alias for s in workspace.spaces.values()}),
            name=clean_name,
            image=validate.text("image", image, max_len=2048),
            archived=validate.flag("archived", archived),
            parent_id=parent,
            created_at=now,
            updated_at=now,
        )
        workspace.spaces[space.id] = space
        return space

    def update_space(self, workspace: Workspace, ref: str, changes: Mapping[str, object]) -> Space:
        """Apply ``changes`` (name, alias, image, archived, parent_id) to a space."""
        space = self.get_space(workspace, ref)
        for key, value in changes.items():
            if key == "name":
                space.name = validate.required_text("name", value)
            elif key == "alias":
                wanted = validate.required_text("alias", value, max_len=100)
                others = {s.alias for s in workspace.spaces.values() if s.id != space.id}
                if wanted in others:
                    raise InvalidInput("alias", f"{wanted!r} is taken by another space; choose another")
                space.alias = wanted
            elif key == "image":
                space.image = validate.text("image", value, max_len=2048)
            elif key == "archived":
                space.archived = validate.flag("archived", value)
            elif key == "parent_id":
                space.parent_id = None if value is None else self.get_space(workspace, str(value)).id
            else:
                raise InvalidInput(key, "is not a field of a space")
        space.updated_at = self.clock()
        return space

    def delete_space(self, workspace: Workspace, ref: str, *, ungroup_projects: bool = False) -> None:
        """Soft-delete a space. Legacy refuses while it holds active projects; v1 ungroups them instead."""
        space = self.get_space(workspace, ref)
        members = [p for p in workspace.projects.values() if p.space_id == space.id and not p.deleted]
        if not ungroup_projects and any(p.status == "active" for p in members):
            raise SpaceNotEmpty(
                f"space {space.alias!r} still holds active projects; archive or move them before deleting it"
            )
        for project in members:
            project.space_id = None
        space.deleted = True
        space.updated_at = self.clock()

    def project_count(self, workspace: Workspace, space: Space) -> int:
        """How many live projects the space holds."""
        return sum(1 for p in workspace.projects.values() if p.space_id == space.id and not p.deleted)

    # -- projects -------------------------------------------------------------------------------------------

    def list_projects(self, workspace: Workspace) -> list[Project]:
        """Live (not soft-deleted) projects in creation order."""
        return [p for p in workspace.projects.values() if not p.deleted]

    def get_project(self, workspace: Workspace, ref: str) -> Project:
        """A live project by id or alias (the v1 slug)."""
        project = workspace.projects.get(ref)
        if project is None:
            project = next((p for p in workspace.projects.values() if p.alias == ref), None)
        if project is None or project.deleted:
            raise NotFound("project", ref)
        return project

    def create_project(
        self,
        workspace: Workspace,
        *,
        name: object = "Untitled Project",
        alias: object = None,
        status: object = "active",
        labels: object = None,
        space_id: object = None,
        emoji: object = None,
        image: object = None,
        summary: object = None,
        project_type: object = None,
        tag_ids: object = None,
        default_phase: bool = True,
    ) -> Project:
        """A new project; with ``default_phase`` it starts with one visible estimate phase 'Estimate' (A06)."""
        clean_name = validate.required_text("name", name)
        wanted = validate.text("alias", alias, max_len=100) or slugify(clean_name)
        space = self.get_space(workspace, str(space_id)).id if space_id is not None else None
        for tag_id in validate.string_list("tagIds", tag_ids):
            if tag_id not in workspace.library.tags:
                raise InvalidInput("tagIds", f"workspace tag {tag_id!r} does not exist")
        now = self.clock()
        project = Project(
            id=self.ids.new("prj"),
            alias=unique_alias(wanted, {p.alias for p in workspace.projects.values()}),
            name=clean_name,
            status=validate.choice("status", status, PROJECT_STATUSES),
            labels=validate.string_list("labels", labels),
            space_id=space,
            emoji=validate.text("emoji", emoji, max_len=16),
            image=validate.text("image", image, max_len=2048),
            summary=validate.text("summary", summary, max_len=5000),
            project_type=validate.text("projectType", project_type),
            tag_ids=validate.string_list("tagIds", tag_ids),
            created_at=now,
            updated_at=now,
        )
        project.budget_id = self.ids.new("bud")
        workspace.projects[project.id] = project
        if default_phase:
            self.create_phase(project, name="Estimate", type="estimate")
        return project

    def update_project(self, workspace: Workspace, ref: str, changes: Mapping[str, object]) -> Project:
        """Apply ``changes`` (name, alias, status, labels, space_id, emoji, image, summary, tag_ids)."""
        project = self.get_project(workspace, ref)
        for key, value in changes.items():
            if key == "name":
                project.name = validate.required_text("name", value)
            elif key == "alias":
                wanted = validate.required_text("alias", value, max_len=100)
                if any(p.alias == wanted and p.id != project.id for p in workspace.projects.values()):
                    raise InvalidInput("alias", f"{wanted!r} is taken by another project; choose another")
                project.alias = wanted
            elif key == "status":
                project.status = validate.choice("status", value, PROJECT_STATUSES)
            elif key == "labels":
                project.labels = validate.string_list("labels", value)
            elif key == "space_id":
                project.space_id = None if value is None else self.get_space(workspace, str(value)).id
            elif key in ("emoji", "image", "summary", "project_type"):
                setattr(project, key, validate.text(key, value, max_len=5000))
            elif key == "tag_ids":
                project.tag_ids = validate.string_list("tagIds", value)
            else:
                raise InvalidInput(key, "is not a field of a project")
        self.touch(project)
        return project

    def delete_project(self, workspace: Workspace, ref: str) -> None:
        """Soft-delete: the project disappears from every read but its records stay."""
        project = self.get_project(workspace, ref)
        project.deleted = True
        self.touch(project)

    # -- contacts -------------------------------------------------------------------------------------------

    def list_contacts(self, workspace: Workspace) -> list[Contact]:
        """Every contact of the workspace in creation order."""
        return list(workspace.contacts.values())

    def get_contact(self, workspace: Workspace, ref: str) -> Contact:
        """A contact by id."""
        contact = workspace.contacts.get(ref)
        if contact is None:
            raise NotFound("contact", ref)
        return contact

    def create_contact(self, workspace: Workspace, fields: Mapping[str, object]) -> Contact:
        """A new workspace-wide contact from model-named ``fields`` (name, email, company, type, rate...)."""
        contact = Contact(id=self.ids.new("con"), name=None, last_modified=self.clock())
        self._apply_contact(contact, fields)
        if not contact.name and not contact.company:
            raise InvalidInput("name", "a contact needs a name or a company")
        workspace.contacts[contact.id] = contact
        return contact

    def update_contact(self, workspace: Workspace, ref: str, changes: Mapping[str, object]) -> Contact:
        """Apply model-named ``changes`` to a contact."""
        contact = self.get_contact(workspace, ref)
        self._apply_contact(contact, changes)
        contact.last_modified = self.clock()
        return contact

    def delete_contact(self, workspace: Workspace, ref: str) -> None:
        """Remove a contact; lines and actuals that named it keep their data without the contact."""
        contact = self.get_contact(workspace, ref)
        del workspace.contacts[contact.id]
        for project in workspace.projects.values():
            nodes = [n for n in project.nodes.values() if n.contact_id == contact.id]
            actuals = [a for a in project.actuals.values() if a.contact_id == contact.id]
            for node in nodes:
                node.contact_id = None
            for actual in actuals:
                actual.contact_id = None
            if nodes or actuals:
                self.touch(project)

    def _apply_contact(self, contact: Contact, fields: Mapping[str, object]) -> None:
        for key, value in fields.items():
            if key in ("name", "contact_title", "email", "company", "type", "job_title", *CONTACT_DETAILS):
                setattr(contact, key, validate.text(key, value))
            elif key == "track1099":
                contact.track1099 = validate.flag(key, value)
            elif key == "rate":
                contact.rate = validate.number("rate", value)
            else:
                raise InvalidInput(key, "is not a field of a contact")

    # -- totals ---------------------------------------------------------------------------------------------

    def totals(self, workspace: Workspace, project: Project) -> ProjectTotals:
        """Every total of a project, computed once per project version and cached until the next change."""
        cached = self._totals_cache.get(project.id)
        if cached is not None and cached.version == project.version:
            return cached
        fresh = compute_totals(project, workspace.currency)
        self._totals_cache[project.id] = fresh
        return fresh
