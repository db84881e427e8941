"""Capture the descriptor blobs umtprd writes to FunctionFS ep0, on the virtual board (see ../README.md).

    flock /tmp/hil-vlab.lock env PYTHONPATH=. .venv/bin/python tests/data/ffs/capture.py

For each virtual pair it starts umtprd the way hil.lab.usb_gadget.mtp does, under hil's ffs_superspeed with
HIL_FFS_DUMP set, so the library copies the blob exactly as umtprd wrote it (before adding anything) to a
file on the board; the gadget then enumerates at the pair's speed. The blob comes back through the console
as `od` hex and is stored as umtprd-<speed>.bin, with its sidecar umtprd-<speed>.source.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from hil.inventory.loader import load_inventory
from hil.lab.board import shell
from hil.lab.environments import Environments
from hil.lab.pair import BoardPair
from hil.lab.usb_gadget.mtp import MtpResponder
from hil.lab.usb_gadget.on_link import gadget_on
from hil.vlab import set_vlab_image_env
from hil.vlab.image import ensure_image

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
DUMP = "/tmp/hil-ffs-descriptors.bin"
PAIRS = {"vlab-hs": "high", "vlab-ss": "super"}


def capture(pair: BoardPair, speed: str) -> None:
    responder = MtpResponder(speed=speed, descriptor_dump=DUMP)
    with gadget_on(pair, responder) as gadget:
        hex_dump = pair.device.run(shell.cmd("od", "-An", "-v", "-tx1", DUMP))
        version = responder.version(pair.device)
        link = f"{gadget.usb_device.speed_mbps:g} Mb/s"
    blob = bytes.fromhex("".join(hex_dump.split()))
    name = f"umtprd-{speed}"
    (HERE / f"{name}.bin").write_bytes(blob)
    config = " ".join(line for line in responder.config().splitlines() if line.startswith("usb_max_packet_size"))
    (HERE / f"{name}.source").write_text(
        f"command: env LD_PRELOAD={responder.superspeed_shim} HIL_FFS_DUMP={DUMP} umtprd -conf umtprd.conf "
        f"(hil.lab.usb_gadget.mtp.MtpResponder(speed={speed!r}), {config}); the blob is what umtprd wrote to ep0, "
        "before ffs_superspeed changed it\n"
        f"tool: {version}\n"
        f"exit: umtprd kept running (the gadget enumerated at {link} on {pair.name})\n"
        f"captured: {time.strftime('%Y-%m-%d')} on the virtual board (hil vlab image: Debian 12 umtp-responder "
        f"1.3.10, Linux {pair.device.run('uname -r').strip()}, dummy_hcd), {len(blob)} bytes\n"
    )
    print(f"{pair.name}: {len(blob)} bytes, {version}, link {link}")


def main() -> int:
    set_vlab_image_env(ensure_image().directory)
    inventory = load_inventory(ROOT / "boards.yaml")
    environments = Environments()
    try:
        for name, speed in PAIRS.items():
            pair = environments.open(inventory.boards[name])
            pair.prepare()
            capture(pair, speed)
    finally:
        environments.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
