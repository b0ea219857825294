"""The records of the remarks a run carries (``engine.kinds`` declares them): a project's comments and root
budget note as v1 comments, the workspace rates as the items of one workspace rate pack.

Pure, as ``engine.wanted``: each function turns the ``View`` into ``Wanted``, each record mapped when its turn
comes (``mappings.remarks``). Comments come last in a project (their targets are its lines); the rate items
wait for their pack, and are all held back when the pack could not be written.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TypeVar

from bridge.engine.source import WorkspaceSource
from bridge.engine.wanted import WORKSPACE_CURRENCY, Desired, Find, View, Want, Wanted
from mappings.errors import MappingError
from mappings.inventory import Stock, amount
from mappings.kinds import Kind
from mappings.records import BudgetNote, Comment, Rate
from mappings.refs import WORKSPACE
from mappings.remarks import RATE_PACK, ROOT_NOTE, has_note, map_comment, map_rate, map_root_note, rate_pack
from mappings.results import Mapped
from mappings.shapes import refusal_of

# Where the rate items go: the one pack (its crosswalk kind and id), the first path parameter of their writes.
PACK = (Kind.RATE_PACK, RATE_PACK)


B = TypeVar("B", bound=Mapping[str, object])
R = TypeVar("R", Comment, Rate)


def _desired(mapped: Mapped[B]) -> Desired:
    return Desired(mapped.ref.legacy_id, dict(mapped.body), notes=mapped.notes)


def _split(records: tuple[R, ...]) -> tuple[list[R], list[MappingError]]:
    """Records read whole, and the refusals of those the read refused."""
    errors = [error for record in records if (error := refusal_of(record)) is not None]
    return [record for record in records if refusal_of(record) is None], errors


def comments(view: View, _lookup: Find) -> Wanted:
    """The project's comments, then its root budget note (when it has one), each a v1 comment (A84, A85)."""
    library = view.inside
    project_id, v1_project = library.project.id, view.v1_project

    def comment(record: Comment) -> Want:
        return Want(record.id, lambda lookup: _desired(map_comment(project_id, v1_project, record, lookup)))

    def note(record: BudgetNote) -> Want:
        return Want(ROOT_NOTE, lambda _: _desired(map_root_note(project_id, v1_project, record)))

    found, refused = _split(library.comments)
    wants = [comment(record) for record in found]
    root = library.root_note
    if root is not None and (error := refusal_of(root)) is not None:
        refused.append(error)
    elif root is not None and has_note(root):
        wants.append(note(root))
    group = (tuple(wants),) if wants else ()
    return Wanted(group, tuple(refused), 0, tuple(w.legacy_id for w in wants))


def rate_packs(view: View, _lookup: Find) -> Wanted:
    """The one workspace rate pack the rates go in, when the workspace has rates (A86)."""
    if not view.source.rates:
        return Wanted()
    want = Want(RATE_PACK, lambda _: _desired(rate_pack()))
    return Wanted(((want,),), (), 0, (RATE_PACK,))


def rates_stock(source: WorkspaceSource) -> Stock:
    """The workspace rates as the inventory counts what is not carried: how many, their sum in the workspace
    currency (A72), and how many hold no readable rate."""
    amounts = [amount(rate.rate) for rate in source.rates]
    money = sum((found for found in amounts if found is not None), Decimal(0))
    held = {WORKSPACE_CURRENCY: money} if source.rates else {}
    return Stock(Kind.RATE.value, len(amounts), held, unreadable=sum(found is None for found in amounts))


def rates(view: View, lookup: Find) -> Wanted:
    """The workspace rates as items of the pack; held back, all of them, when the pack has no v1 id."""
    found, refused = _split(view.source.rates)
    seen = tuple(record.id for record in found)
    if lookup(PACK[0], WORKSPACE, PACK[1]) is None:
        return Wanted((), tuple(refused), len(found), seen)

    def rate(record: Rate) -> Want:
        return Want(record.id, lambda _: _desired(map_rate(record, WORKSPACE_CURRENCY)))

    wants = tuple(rate(record) for record in found)
    return Wanted((wants,) if wants else (), tuple(refused), 0, seen)
