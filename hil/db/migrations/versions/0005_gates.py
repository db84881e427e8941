"""Each build's release gate per board, stored when its runs are in (hil.db.gates): the dashboard's matrix cells.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gates",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("build", sa.String(length=255), nullable=False),
        sa.Column("board", sa.String(length=255), nullable=False),
        sa.Column("reference", sa.String(length=255), nullable=True),
        sa.Column("gate", sa.String(length=16), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("decided", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("build", "board", name="uq_gates_build_board"),
    )


def downgrade() -> None:
    op.drop_table("gates")
