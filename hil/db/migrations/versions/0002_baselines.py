"""Baselines in the database (they were files, one per board, under baselines/).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "baselines",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("board", sa.String(length=255), nullable=False),
        sa.Column("params_key", sa.Text(), nullable=False),
        sa.Column("unit", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("result_id", sa.Integer(), nullable=True),
        sa.Column("samples", sa.JSON(), nullable=False),
        sa.Column("median", sa.Float(), nullable=False),
        sa.Column("set_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("set_by", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["result_id"], ["results.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("board", "params_key", "run_id", name="uq_baselines_board_key_run"),
    )


def downgrade() -> None:
    op.drop_table("baselines")
