"""The virtual lab: a QEMU board (Debian kernel, TCG) that labgrid powers and logs into."""

from pathlib import Path

ENV_FILE = Path(__file__).resolve().parent / "env.yaml"  # its labgrid environment
