"""The metric catalogue: one definition per metric hil gates (unit, direction, field, ceiling, source),
and the typed settings each family reads from boards.yaml.

    from hil.catalogue import CATALOGUE
    CATALOGUE.metric("usb.msc.read").unit        # 'MB/s'

Adding a family: a module here with a `FAMILIES` tuple, listed in FAMILY_MODULES; a parser in
hil/measure; a thin test in testcases/. `python -m hil.catalogue` prints the listing docs/catalogue.md shows.
"""

from __future__ import annotations

from importlib import import_module

from hil.catalogue.ceilings import CeilingRule, PcieBus, UsbBus, UsbNetwork
from hil.catalogue.model import Family, Metric, Setting
from hil.catalogue.registry import Catalogue, UnknownName

FAMILY_MODULES = (
    "hil.catalogue.usb_device",
    "hil.catalogue.usb_network",
    "hil.catalogue.storage",
    "hil.catalogue.pcie",
    "hil.catalogue.usb_camera",
    "hil.catalogue.usb_host",
    "hil.catalogue.modem",
)


def load() -> Catalogue:
    return Catalogue(tuple(family for name in FAMILY_MODULES for family in import_module(name).FAMILIES))


CATALOGUE = load()

__all__ = [
    "CATALOGUE",
    "Catalogue",
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
