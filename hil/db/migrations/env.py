"""Alembic's entry: migrate the connection hil.db.migrate hands over (never a URL from a config file)."""

from alembic import context

from hil.db.schema import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
