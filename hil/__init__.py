"""hil: hardware-in-the-loop USB and PCIe performance gates for embedded Linux boards."""

__version__ = "0.1.0"
