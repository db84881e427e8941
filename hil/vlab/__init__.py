"""The virtual lab: a QEMU board (Debian kernel, TCG) that labgrid powers and logs into."""

import os
from pathlib import Path

ENV_FILE = Path(__file__).resolve().parent / "env.yaml"  # its labgrid environment


def set_vlab_image_env(directory: Path) -> None:
    """labgrid substitutes LG_* variables into !template values: the vlab env file reads this one."""
    os.environ["LG_HIL_VLAB_IMAGE"] = str(directory)
