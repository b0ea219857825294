"""Schema 0003: an intent names the published v1 operation it is (operationId), not only its path.

Intents journalled before 0003 get their operation from their method and path, once, here: the engine reads a
bulk's entries and finds an old write's records on the target by operation from now on.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None

# The writes bridge versions before 0003 journalled, as (method, SQL LIKE pattern on the path, operationId);
# the first match wins, so the more specific patterns come first. Project-scoped paths match on their tail,
# since the earliest files journalled budget paths without the /projects/{id} prefix; a project's library
# paths need a segment before /library, so a workspace library write is not taken for one.
EARLIER_WRITES = (
    ("POST", "%/budget/lines/phase-data/bulk", "budget_updateLinePhaseDataBulk"),
    ("POST", "%/budget/lines/bulk", "budget_createLinesBulk"),
    ("POST", "%/budget/lines", "budget_createLine"),
    ("PATCH", "%/budget/lines/%", "budget_updateLine"),
    ("PUT", "%/budget/lines/%/phase-data/%", "budget_updateLinePhaseData"),
    ("POST", "%/budget/phases", "budget_createPhase"),
    ("PATCH", "%/budget/phases/%", "budget_updatePhase"),
    ("POST", "/%/library/currencies", "library_addProjectCurrency"),
    ("PATCH", "/%/library/currencies/%", "library_updateProjectCurrency"),
    ("POST", "/%/library/fringes", "library_addProjectFringe"),
    ("PATCH", "/%/library/fringes/%", "library_updateProjectFringe"),
    ("POST", "/%/library/globals", "library_addProjectGlobal"),
    ("PATCH", "/%/library/globals/%", "library_updateProjectGlobal"),
    ("POST", "/projects", "projects_create"),
    ("PATCH", "/projects/%", "projects_update"),
    ("POST", "/spaces", "spaces_create"),
    ("PATCH", "/spaces/%", "spaces_update"),
    ("POST", "/contacts", "contacts_create"),
    ("PATCH", "/contacts/%", "contacts_update"),
    ("POST", "/library/tags", "library_createTag"),
    ("PATCH", "/library/tags/%", "library_updateTag"),
    ("POST", "/library/currencies", "library_createCurrency"),
    ("PATCH", "/library/currencies/%", "library_updateCurrency"),
    ("POST", "/library/fringes", "library_createFringe"),
    ("PATCH", "/library/fringes/%", "library_updateFringe"),
    ("POST", "/library/globals", "library_createGlobal"),
    ("PATCH", "/library/globals/%", "library_updateGlobal"),
    ("POST", "/transactions/bulk", "transactions_createBulk"),
    ("POST", "/transactions/%/items", "transactions_createItem"),
    ("POST", "/transactions", "transactions_create"),
    ("PATCH", "/transactions/%", "transactions_update"),
)


def upgrade() -> None:
    with op.batch_alter_table("intents") as batch:
        batch.add_column(sa.Column("operation", sa.String(100), nullable=False, server_default=""))
    intents = sa.table("intents", sa.column("method"), sa.column("path"), sa.column("operation"))
    # One UPDATE whose CASE takes the first match (one per pattern cost a new state 31 statements for nothing).
    named = sa.case(
        *((sa.and_(intents.c.method == method, intents.c.path.like(pattern)), operation)
          for method, pattern, operation in EARLIER_WRITES),
        else_=intents.c.operation,
    )  # fmt: skip
    op.execute(intents.update().where(intents.c.operation == "").values(operation=named))


def downgrade() -> None:
    with op.batch_alter_table("intents") as batch:
        batch.drop_column("operation")
