"""Interrupt latency (seed 002 §6-7): one side raises interrupts back to back from the seed's kernel test thread,
the other counts them; ELBI is counted on the endpoint, MSI on the root complex."""

import pytest

from hil.catalogue.pcie import PcieSettings
from hil.measure import pcie_irq

pytestmark = pytest.mark.hil_metrics("pcie.irq.elbi", "pcie.irq.msi")

COUNTED_ON = {"elbi": "ep", "msi": "rc"}


@pytest.mark.parametrize("kind", pcie_irq.KINDS)
def test_pcie_interrupt_latency(pcie_pair, perf, kind):
    role = pcie_pair.role(COUNTED_ON[kind])
    seconds = pcie_pair.settings(PcieSettings).irq_seconds
    perf.check(
        f"pcie.irq.{kind}",
        facts={"counted_on": COUNTED_ON[kind]},
        cpu_load_on=None,  # the raising thread spins a core by design: its load says nothing
        sample=lambda: pcie_irq.sample(role, kind, seconds=seconds),
    )
