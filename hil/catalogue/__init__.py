"""The metric catalogue: one definition per metric hil gates (unit, direction, field, ceiling, source),
and the typed settings each family reads from boards.yaml.

    from hil.catalogue import CATALOGUE
    CATALOGUE.metric("usb.msc.read").unit        # 'MB/s'

Adding a family: its metrics and settings in families.yaml, its settings view (and any cross-checks of its
settings) in a module here that the data names; a parser in hil/measure; a thin test in testcases/.
`python -m hil.catalogue` prints the listing docs/catalogue.md shows.
"""

from __future__ import annotations

from hil.catalogue.ceilings import CeilingRule, PcieBus, UsbBus, UsbNetwork
from hil.catalogue.loader import CatalogueError, load
from hil.catalogue.model import Family, Metric, Setting
from hil.catalogue.registry import Catalogue, UnknownName

CATALOGUE = load()

__all__ = [
    "CATALOGUE",
    "Catalogue",
    "CatalogueError",
    "CeilingRule",
    "Family",
    "Metric",
    "PcieBus",
    "Setting",
    "UnknownName",
    "UsbBus",
    "UsbNetwork",
    "load",
]
