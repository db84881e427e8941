"""The initial schema: runs, their results, and each result's samples.

Revision ID: 0001
Revises: nothing (the first)
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("started", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
        sa.Column("exit_status", sa.Integer(), nullable=True),
        sa.Column("aborted_by", sa.String(length=32), nullable=True),
        sa.Column("result_count", sa.Integer(), nullable=True),
        sa.Column("complete", sa.Boolean(), nullable=False),
        sa.Column("hil_version", sa.String(length=64), nullable=False),
        sa.Column("command", sa.Text(), nullable=False),
        sa.Column("host", sa.JSON(), nullable=False),
        sa.Column("tests", sa.JSON(), nullable=False),
        sa.Column("build_name", sa.String(length=255), nullable=True),
        sa.Column("build_version", sa.String(length=255), nullable=True),
        sa.Column("build", sa.JSON(), nullable=True),
        sa.Column("inventory_path", sa.Text(), nullable=True),
        sa.Column("inventory_sha256", sa.String(length=64), nullable=True),
        sa.Column("inventory_bands", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.create_index("ix_runs_build_name", ["build_name", "started"], unique=False)
        batch_op.create_index("ix_runs_started", ["started"], unique=False)

    op.create_table(
        "results",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("run_started", sa.DateTime(timezone=True), nullable=False),
        sa.Column("board", sa.String(length=255), nullable=False),
        sa.Column("board_identity", sa.JSON(), nullable=True),
        sa.Column("metric", sa.String(length=255), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("params_key", sa.Text(), nullable=False),
        sa.Column("unit", sa.String(length=64), nullable=False),
        sa.Column("direction", sa.String(length=16), nullable=False),
        sa.Column("stats", sa.JSON(), nullable=True),
        sa.Column("median", sa.Float(), nullable=True),
        sa.Column("band", sa.JSON(), nullable=True),
        sa.Column("max_cv", sa.Float(), nullable=False),
        sa.Column("min_effect", sa.Float(), nullable=False),
        sa.Column("min_run_spread", sa.Float(), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("stop_reason", sa.String(length=32), nullable=False),
        sa.Column("side", sa.String(length=8), nullable=True),
        sa.Column("ceiling", sa.JSON(), nullable=True),
        sa.Column("efficiency", sa.Float(), nullable=True),
        sa.Column("baseline", sa.JSON(), nullable=True),
        sa.Column("facts", sa.JSON(), nullable=False),
        sa.Column("started", sa.Float(), nullable=False),
        sa.Column("finished", sa.Float(), nullable=False),
        sa.Column("test_id", sa.Text(), nullable=False),
        sa.Column("error_output", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_id", "ordinal", name="uq_results_run_ordinal"),
    )
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.create_index("ix_results_history", ["board", "metric", "params_key", "run_started"], unique=False)

    op.create_table(
        "samples",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("result_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("warmup", sa.Boolean(), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("started", sa.Float(), nullable=False),
        sa.Column("duration_s", sa.Float(), nullable=False),
        sa.Column("raw", sa.Text(), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("observed", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["result_id"], ["results.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("result_id", "warmup", "position", name="uq_samples_result_position"),
    )
    with op.batch_alter_table("samples", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_samples_result_id"), ["result_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("samples", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_samples_result_id"))

    op.drop_table("samples")
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.drop_index("ix_results_history")

    op.drop_table("results")
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_index("ix_runs_started")
        batch_op.drop_index("ix_runs_build_name")

    op.drop_table("runs")
