"""Results stored before their metric gained a parameter are given it, at the value they were measured at
(hil.catalogue.params_added: the isochronous UVC cases' streaming_interval=1, streaming_maxburst=0).

Revision ID: 0004
Revises: 0003
"""

from hil.db.migrations.params_added import downgrade, upgrade

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None
__all__ = ["downgrade", "upgrade"]
