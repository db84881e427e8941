"""Results stored before their metric gained a parameter are given it, at the value they were measured at
(hil.catalogue.params_added: usb.resume.time timing=default, pcie.bar.* mapping=device, nvme.* target=raw).

Revision ID: 0003
Revises: 0002
"""

from hil.db.migrations.params_added import downgrade, upgrade

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None
__all__ = ["downgrade", "upgrade"]
