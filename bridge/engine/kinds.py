"""Every kind of record the bridge carries, declared once (dlt's resources are the model).

A ``KindSpec`` says all there is to know about one kind: where its legacy ids are unique (``scope``), what
must be read before its records can be listed (``reads``) and how they are listed and mapped (``records``,
pure functions in ``engine.wanted`` over the mappings), the published v1 operations that create and update
it (their routes, bulk limits and list fields are the client's operation table's), the kinds whose v1 ids it
needs first, how the target lists it and the fields that recognise one of its records there without its id
(``natural``: the stale lookup and verify's duplicate check), and where its money is.

Everything that lists kinds derives the list from ``KINDS``: the run's order and waves (``stages``,
``waves``), the writers of the workspace stage and of each project's pipeline, the held-back counts of a
refused project, the stale lookup, verify's targets, the plan's tables and the tests' census. Adding a kind
is a mapping, a declaration here, its request model and its emulator resource: there is no other table to
remember.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from bridge.engine import remarks, wanted
from bridge.engine.wanted import Records
from mappings.actuals import BULK_KIND as TRANSACTION_BULK_KIND
from mappings.actuals import actual_of
from mappings.documents import CARRIED, Carried, record_of
from mappings.kinds import Kind
from mappings.lines import BULK_KIND as LINE_BULK_KIND


class Scope(StrEnum):
    """Where a kind's legacy ids are unique: across the workspace or within one project."""

    WORKSPACE = "workspace"
    PROJECT = "project"


class Reads(StrEnum):
    """What must be read from the source before a kind's records can be listed."""

    # The workspace's lists and every project's library, read once before the run writes anything.
    LIBRARY = "library"
    # A project's budget tree, read when its lines' turn comes and held (``TreeRoom``) while they are written.
    TREE = "tree"
    # Files hanging on records another kind reads (an actual's receipts, a contact's attachments): uploaded
    # and linked by the documents step (``engine.documents``).
    FILES = "files"
    # A project's actuals, streamed window by window by a step of their own (``engine.actuals``).
    ACTUALS = "actuals"
    # A project's purchase orders (with their items, contact and actuals), read and written by a step of their
    # own (``engine.purchase_orders``): the orders, then their links to the transactions made from the actuals.
    ORDERS = "orders"


@dataclass(frozen=True, slots=True)
class Natural:
    """How the target lists a kind and the fields (as the create body names them) that recognise one of its
    records there without its id.

    ``filters`` are entry fields the list takes as query parameters (a transaction's ``projectId``); ``rows``
    names the answer's field that holds the records when the listing is one object (a transaction's items).
    """

    listed_by: str
    fields: tuple[str, ...]
    filters: tuple[str, ...] = ()
    rows: str | None = None
    # Query parameters the stale lookup always sends: where a lost create's record waits (a document not
    # linked yet is among the unassigned ones).
    query: tuple[tuple[str, str], ...] = ()
    # Filters naming one record (a purchase order's number): the stale lookup of one lost create adds them;
    # adoption (``engine.adopt``) lists a whole scope once, so it leaves them out.
    narrow: tuple[str, ...] = ()
    # Which rows of the listing are this kind's, when kinds share one listing (documents, by link and
    # description); every row when None.
    holds: Callable[[Mapping[str, object]], bool] | None = None
    # The listing's field holding a hash of a file's bytes (a document's ``contentHash``): the stale lookup
    # compares it with the spooled file's SHA-256 when a row holds one shaped so (A103).
    hashed: str | None = None


@dataclass(frozen=True, slots=True)
class Derived:
    """A second crosswalk entry read from a create's answer, e.g. a new project's default phase.

    When the answer is lost and the key expired, the record is found again in ``listed_by`` (taking the new
    record's id as its path parameter) as the one row whose fields hold the values ``where`` names."""

    kind: str
    pointer: tuple[str, ...]
    listed_by: str
    where: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class KindSpec:
    """One kind, declared once."""

    kind: Kind
    label: str
    scope: Scope
    create: str
    update: str | None
    natural: Natural
    records: Records | None = None
    reads: Reads = Reads.LIBRARY
    needs: tuple[Kind, ...] = ()
    # The crosswalk kind its records are stored under (a project's copy of a fringe is keyed as a fringe, with
    # the project as scope: how the mappings look it up); its own kind when None.
    stored_as: Kind | None = None
    # Written by another kind's step (split parts right behind their transaction bulk).
    written_with: Kind | None = None
    # Drawn from the projects' libraries: with only some projects selected the source seen is partial, so an
    # item the crosswalk knows may belong to a project not selected; removals count on a whole run only.
    from_projects: bool = False
    # One record merges the records of several projects (a library item: the first project that defines it
    # sets it, A18): a run that sees only some projects cannot decide its values either, so it leaves the
    # records the crosswalk knows as they are (each project's copy holds that project's own values).
    merged: bool = False
    derived: tuple[Derived, ...] = ()
    # The kind its Idempotency-Keys are derived under (a bulk's differs from one record's); the kind's name
    # when empty. Never change one: a resumed run must derive the keys the stopped run sent.
    key_kind: str = ""
    # Where a v1 record of the kind holds its amount (a published Money object), for verify's sums.
    money: tuple[str, ...] = ()
    # (crosswalk kind, legacy id) of the one record in the kind's scope whose v1 id its operations take as
    # their first path parameter (a rate pack's items are written and listed under the pack).
    within: tuple[Kind, str] | None = None
    # What a carried record of the kind loses on the way (the plan prints the kind as carried with losses).
    losses: str = ""
    # The v1 plan feature the kind needs (``engine.features``): on a plan without it the kind is not carried.
    feature: str = ""
    # The published operation that deletes one record: bridge mode (``engine.guard``) deletes a record gone
    # from the source that nobody changed on v1; a kind without one keeps `run`'s rule (left on the target).
    delete: str | None = None
    # The published operation that reads one record by its v1 id: bridge mode's guard reads the few records a
    # cycle updates or wrote one by one instead of listing their kind (``engine.guard``).
    fetch: str | None = None
    # The legacy id of the record (of the first of ``needs``) a record of the kind hangs on, read from its own
    # legacy id: its v1 id is the parent a split item is read and written under.
    parent_of: Callable[[str], str] | None = None
    # Deleted by bridge mode only with the record it hangs on (``parent_of``), as legacy deletes an actual's files
    # with it: a document gone while its record stays is left on the target, since the guard cannot read
    # documents back (A130).
    cascade: bool = False

    @property
    def stored(self) -> str:
        """The crosswalk kind its records are stored under."""
        return (self.stored_as or self.kind).value

    @property
    def keyed_as(self) -> str:
        return self.key_kind or self.kind.value


def _copy(kind: Kind, item: Kind, label: str, collection: str, name: str) -> KindSpec:
    """A project's copy of a workspace library item (the four published copy routes share their shape)."""
    return KindSpec(
        kind,
        label,
        Scope.PROJECT,
        create=f"library_addProject{name}",
        update=f"library_updateProject{name}",
        natural=Natural(f"library_listProject{collection}", ("sourceId",)),
        fetch=f"library_getProject{name}",
        records=wanted.project_copies(kind),
        needs=(Kind.PROJECT, item),
        stored_as=item,
    )


def _item(kind: Kind, label: str, collection: str, name: str, natural: str) -> KindSpec:
    """A workspace library item, keyed in the crosswalk by its name (A18)."""
    return KindSpec(
        kind,
        label,
        Scope.WORKSPACE,
        create=f"library_create{name}",
        update=f"library_update{name}",
        natural=Natural(f"library_list{collection}", (natural,)),
        fetch=f"library_get{name}",
        records=wanted.library_items(kind),
        from_projects=True,
        merged=True,
    )


KINDS: tuple[KindSpec, ...] = (
    KindSpec(
        Kind.SPACE,
        "spaces",
        Scope.WORKSPACE,
        create="spaces_create",
        update="spaces_update",
        natural=Natural("spaces_list", ("name", "slug")),
        records=wanted.spaces,
    ),
    KindSpec(
        Kind.CONTACT,
        "contacts",
        Scope.WORKSPACE,
        create="contacts_create",
        update="contacts_update",
        natural=Natural("contacts_list", ("name", "email")),
        records=wanted.contacts,
        delete="contacts_delete",
        fetch="contacts_get",
    ),
    _item(Kind.CURRENCY, "currencies", "Currencies", "Currency", "code"),
    _item(Kind.FRINGE, "fringes", "Fringes", "Fringe", "name"),
    _item(Kind.GLOBAL, "globals", "Globals", "Global", "symbol"),
    KindSpec(
        Kind.TAG,
        "tags",
        Scope.WORKSPACE,
        create="library_createTag",
        update="library_updateTag",
        natural=Natural("library_listTags", ("name",)),
        fetch="library_getTag",
        records=wanted.tags,
        from_projects=True,
        merged=True,
    ),
    KindSpec(
        Kind.PROJECT,
        "projects",
        Scope.WORKSPACE,
        create="projects_create",
        update="projects_update",
        natural=Natural("projects_list", ("name", "slug")),
        fetch="projects_get",
        records=wanted.projects,
        needs=(Kind.SPACE, Kind.TAG),
        from_projects=True,
        derived=(
            Derived(
                wanted.DEFAULT_PHASE, ("defaultBudget", "estimatePhaseId"), "budget_listPhases", (("type", "estimate"),)
            ),
        ),
    ),
    _copy(Kind.PROJECT_CURRENCY, Kind.CURRENCY, "project currencies", "Currencies", "Currency"),
    _copy(Kind.PROJECT_FRINGE, Kind.FRINGE, "project fringes", "Fringes", "Fringe"),
    _copy(Kind.PROJECT_GLOBAL, Kind.GLOBAL, "project globals", "Globals", "Global"),
    KindSpec(
        Kind.PHASE,
        "phases",
        Scope.PROJECT,
        create="budget_createPhase",
        update="budget_updatePhase",
        natural=Natural("budget_listPhases", ("name", "type")),
        records=wanted.phases,
        needs=(Kind.PROJECT, Kind.PROJECT_CURRENCY),
        delete="budget_deletePhase",
        fetch="budget_getPhase",
    ),
    KindSpec(
        Kind.LINE,
        "budget lines",
        Scope.PROJECT,
        create="budget_createLinesBulk",
        update="budget_updateLine",
        natural=Natural("budget_listLines", ("parentId", "description", "accountId", "type")),
        records=wanted.lines,
        reads=Reads.TREE,
        needs=(Kind.PHASE, Kind.PROJECT_FRINGE, Kind.PROJECT_GLOBAL, Kind.CONTACT, Kind.TAG),
        key_kind=LINE_BULK_KIND,
        delete="budget_deleteLine",
        fetch="budget_getLine",
    ),
    KindSpec(
        Kind.ACTUAL,
        "transactions",
        Scope.PROJECT,
        create="transactions_createBulk",
        update="transactions_update",
        natural=Natural(
            "transactions_list",
            ("timestamp", "amount", "description", "number", "ref", "projectId"),
            filters=("projectId",),
        ),
        reads=Reads.ACTUALS,
        needs=(Kind.LINE, Kind.CONTACT),
        key_kind=TRANSACTION_BULK_KIND,
        money=("amount",),
        delete="transactions_delete",
        fetch="transactions_get",
    ),
    KindSpec(
        Kind.SPLIT,
        "transaction items",
        Scope.PROJECT,
        create="transactions_createItem",
        update="transactions_updateItem",
        # A split item's fields as a fan-out entry sends them; GET /transactions/{id} lists them under `items`.
        natural=Natural("transactions_get", ("description", "budgetLineId", "amount", "tagIds"), rows="items"),
        reads=Reads.ACTUALS,
        needs=(Kind.ACTUAL,),
        written_with=Kind.ACTUAL,
        key_kind="split.fanout",
        money=("amount",),
        parent_of=actual_of,
    ),
    KindSpec(
        Kind.PURCHASE_ORDER,
        "purchase orders",
        Scope.PROJECT,
        create="purchase-orders_create",
        # None for the one record step: the published PATCH takes no items, so an order edited at source is
        # brought up to date by ``engine.order_updates`` (purchase-orders_update and the item writes, each sent
        # only where v1 differs), never by a PATCH of its full state.
        update=None,
        # The list's `number` filter is an exact match (published), scoped by the project's v1 id.
        natural=Natural(
            "purchase-orders_list", ("number", "name", "projectId"), filters=("projectId",), narrow=("number",)
        ),
        reads=Reads.ORDERS,
        needs=(Kind.LINE, Kind.CONTACT),
        money=("amount",),
    ),
    KindSpec(
        Kind.PO_LINK,
        "purchase order links",
        Scope.PROJECT,
        # Keyed by the actual whose transaction is linked; its v1 id is the transaction's.
        create="purchase-orders_linkTransaction",
        update=None,
        # A link shows as its transaction's purchaseOrderId (a transaction not linked is no link).
        natural=Natural("transactions_list", ("purchaseOrderId",), filters=("purchaseOrderId",)),
        reads=Reads.ORDERS,
        needs=(Kind.PURCHASE_ORDER, Kind.ACTUAL),
    ),
    KindSpec(
        Kind.COMMENT,
        # A project's root budget note is posted as a comment too (A85), counted here.
        "comments",
        Scope.PROJECT,
        create="comments_create",
        update=None,
        # The content holds the provenance header with the legacy id: target and content recognise a comment.
        natural=Natural("comments_list", ("target", "content")),
        records=remarks.comments,
        # A comment's target is its budget line (or the project).
        needs=(Kind.LINE,),
        losses="the author and the time (v1 sets the token's user and the time of the run; both are kept in "
        "the comment's first line), and HTML formatting Markdown has no form for",
    ),
    KindSpec(
        Kind.RATE_PACK,
        "workspace rate pack",
        Scope.WORKSPACE,
        create="library_createRatePack",
        update=None,
        natural=Natural("library_listRatePacks", ("name",)),
        records=remarks.rate_packs,
        feature="rate packs",
    ),
    KindSpec(
        Kind.RATE,
        "workspace rates",
        Scope.WORKSPACE,
        create="library_createRatePackItem",
        update=None,
        natural=Natural("library_listRatePackItems", ("title", "rate", "unit")),
        records=remarks.rates,
        needs=(Kind.RATE_PACK,),
        within=remarks.PACK,
        money=("rate",),
        feature="rate packs",
    ),
)


def _linked(carried: Carried) -> Callable[[Mapping[str, object]], bool]:
    """Whether a v1 document is of ``carried``'s kind: linked as its kind links, with its description."""

    def holds(row: Mapping[str, object]) -> bool:
        links = row.get("links")
        kinds = {link.get("kind") for link in links if isinstance(link, Mapping)} if isinstance(links, list) else set()
        return carried.link in kinds and row.get("description") == carried.description

    return holds


def _document(carried: Carried, scopes: Mapping[Kind, Scope]) -> KindSpec:
    """The kind of one ``Carried`` attachment: its documents live where the record it hangs on does, are
    uploaded after it, and are found again past key retention among the unlinked documents by name, size and
    content hash (an upload's answer lost before its link: the link comes after; A103)."""
    return KindSpec(
        carried.kind,
        carried.label,
        scopes[carried.target],
        create="documents_upload",
        update=None,
        natural=Natural(
            "documents_list",
            ("name", "size"),
            query=(("unassigned", "true"),),
            holds=_linked(carried),
            hashed="contentHash",
        ),
        reads=Reads.FILES,
        needs=(carried.target,),
        delete="documents_delete",
        parent_of=record_of,
        cascade=True,
    )


KINDS += tuple(_document(carried, {s.kind: s.scope for s in KINDS}) for carried in CARRIED)
_BY_KIND = {spec.kind: spec for spec in KINDS}


def spec(kind: Kind) -> KindSpec:
    """The declaration of one kind."""
    return _BY_KIND[kind]


def derived_from(kind: Kind, record: object) -> list[tuple[str, str]]:
    """(crosswalk kind, v1 id) of the second entries one v1 record of ``kind`` names (``Derived``): a create's
    answer, or the record as a list shows it."""
    found: list[tuple[str, str]] = []
    for entry in spec(kind).derived:
        node: object = record
        for part in entry.pointer:
            node = node.get(part) if isinstance(node, Mapping) else None
        if isinstance(node, str):
            found.append((entry.kind, node))
    return found


def crosswalk_kind(kind: Kind) -> str:
    """The crosswalk kind a step's records are stored under."""
    return _BY_KIND[kind].stored


def stages(declared: tuple[KindSpec, ...] | None = None) -> tuple[tuple[Kind, ...], ...]:
    """The kinds grouped into waves: every kind's needs are in earlier waves (Kahn's layering).

    Read from ``KINDS`` at each call (a run derives its order when it starts). A cycle is a programming error
    and raises ValueError naming the kinds left over.
    """
    specs = KINDS if declared is None else declared
    by_kind = {s.kind: s for s in specs}
    done: set[Kind] = set()
    found: list[tuple[Kind, ...]] = []
    remaining = [s.kind for s in specs]
    while remaining:
        wave = tuple(k for k in remaining if all(need in done for need in by_kind[k].needs))
        if not wave:
            raise ValueError(f"kinds {sorted(remaining)} depend on each other in a cycle; fix engine.kinds.KINDS")
        found.append(wave)
        done.update(wave)
        remaining = [k for k in remaining if k not in done]
    return tuple(found)


def order() -> tuple[Kind, ...]:
    """Every kind in the order a run writes them."""
    return tuple(kind for wave in stages() for kind in wave)


def waves(scope: Scope) -> tuple[tuple[Kind, ...], ...]:
    """The waves a run executes for ``scope``'s kinds, each kind by its own writer (``written_with`` aside).

    The workspace's waves all run before any project's, and projects run side by side. ValueError when the
    declarations make that order wrong: a workspace kind needing a project kind, or a kind written with another
    whose needs are not all written before that other kind's wave.
    """
    by_kind = {s.kind: s for s in KINDS}
    for s in KINDS:
        late = [n for n in s.needs if s.scope is Scope.WORKSPACE and by_kind[n].scope is Scope.PROJECT]
        if late:
            raise ValueError(f"workspace kind {s.kind} needs project kinds {late}; fix engine.kinds.KINDS")
    done: set[Kind] = set()
    found: list[tuple[Kind, ...]] = []
    for stage in stages():
        for s in KINDS:
            writer = s.written_with
            if writer in stage and not set(s.needs) <= done | {writer}:
                raise ValueError(f"{s.kind} is written with {writer} but needs kinds written after it; fix KINDS")
        done.update(stage)
        wave = tuple(k for k in stage if by_kind[k].scope is scope and by_kind[k].written_with is None)
        if wave:
            found.append(wave)
    return tuple(found)


def of_scope(scope: Scope) -> tuple[KindSpec, ...]:
    """The kinds of ``scope``, in declaration order."""
    return tuple(s for s in KINDS if s.scope is scope)
