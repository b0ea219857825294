"""What every part of the store shares: its ids and clock (``core.ids``), the workspaces, legacy API keys, the
per-version caches and change tracking."""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.emulator.core.errors import NotFound
from bridge.emulator.core.ids import Clock, IdFactory, utc_now
from bridge.emulator.core.model import ApiKey, DirtyRecord, Node, Project, Workspace
from bridge.emulator.core.totals import ProjectTotals


@dataclass
class StoreCore:
    """State shared by the store's domain mixins. Nothing here knows about HTTP."""

    seed: int = 42
    clock: Clock = utc_now
    ids: IdFactory = field(init=False)
    workspaces: dict[str, Workspace] = field(default_factory=dict)
    api_keys: dict[str, ApiKey] = field(default_factory=dict)
    dirty_catalogue: dict[str, DirtyRecord] = field(default_factory=dict)
    # The dirty comments and rates (``core.seed_remarks``): kinds the bridge does not migrate yet.
    dirty_remarks: dict[str, DirtyRecord] = field(default_factory=dict)
    _totals_cache: dict[str, ProjectTotals] = field(default_factory=dict, init=False, repr=False)
    _tree_orders: dict[str, tuple[int, list[Node]]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.ids = IdFactory(self.seed)

    # -- workspaces and keys ------------------------------------------------------------------------------

    def create_workspace(self, name: str, currency: str = "USD") -> Workspace:
        """A new empty workspace; its id is ``wsp_<name>`` so the control API can name it plainly."""
        workspace = Workspace(id=f"wsp_{name}", name=name, currency=currency)
        self.workspaces[workspace.id] = workspace
        return workspace

    def workspace(self, ref: str) -> Workspace:
        """A workspace by id (``wsp_source``) or name (``source``)."""
        found = self.workspaces.get(ref) or self.workspaces.get(f"wsp_{ref}")
        if found is None:
            raise NotFound("workspace", ref)
        return found

    def add_api_key(self, workspace_ref: str, key: str, *, restricted: bool = False) -> ApiKey:
        """Register a legacy API key for a workspace; a restricted key is refused with 403 on every call."""
        api_key = ApiKey(key=key, workspace_id=self.workspace(workspace_ref).id, restricted=restricted)
        self.api_keys[key] = api_key
        return api_key

    def revoke_api_key(self, key: str) -> bool:
        """Delete a key (the second half of a rotation): its next call is 401. False when the key is unknown."""
        return self.api_keys.pop(key, None) is not None

    def restrict_api_key(self, key: str, *, restricted: bool = True) -> None:
        """Close (or reopen) the workspace to a key, as an admin restricting API access would."""
        if key not in self.api_keys:
            raise NotFound("api key", "<redacted>")
        self.api_keys[key].restricted = restricted

    # -- change tracking ----------------------------------------------------------------------------------

    def touch(self, project: Project) -> None:
        """Record a change to a project: bumps its version (totals cache, ETags) and its updatedAt."""
        project.version += 1
        project.updated_at = self.clock()
