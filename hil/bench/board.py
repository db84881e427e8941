"""One board on the rehearsal bench: an arm64 QEMU machine that lives as long as the bench, like an EVB on a desk.
Its power is a relay of the bench's network power switch (hil.bench.pdu): off stops the machine at once (no
shutdown, as when its outlet opens), on resets it and lets it run from U-Boot, as a cold start does. Its SD card,
NVMe drive and boot flash (a file flashrom's dummy programmer writes, the board's second virtio disk) keep what
was written. Its UART is a pty that exists whether the board is powered or not (the USB-serial cable), served by
ser2net; its Ethernet is QEMU's user network with SSH forwarded to a port of this PC. A board `network: false`
has no Ethernet at all: files go over its console.
"""

from __future__ import annotations

import ctypes
import logging
import shutil
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from labgrid.util.qmp import QMPError, QMPMonitor

from hil import services
from hil.errors import LabError

log = logging.getLogger("hil.bench.board")
PR_SET_PDEATHSIG = 1


def _die_with_the_bench() -> None:
    """In the child before exec: SIGKILL when the bench process that started it dies (even by SIGKILL)."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@dataclass
class BenchBoard:
    name: str
    run_dir: Path
    sd_card: Path  # this board's own copy of the card
    uboot: Path
    ssh_port: int | None  # None: the board has no network
    nvme_mb: int = 1024
    flash_mb: int = 64  # its boot flash (a SPI NOR on an EVB): what the lab's flash programmer writes
    memory_mb: int = 1024
    process: subprocess.Popen | None = None
    qmp: QMPMonitor | None = None
    uart: str | None = None  # the pty QEMU's UART is on
    powered: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def command(self) -> list[str]:
        nvme = self.run_dir / f"{self.name}-nvme.img"
        user = f"user,id=eth,ipv6=off,hostfwd=tcp:127.0.0.1:{self.ssh_port}-:22,tftp={self.tftp_root}"
        net = (
            ["-netdev", user, "-device", "virtio-net-pci,netdev=eth"] if self.ssh_port is not None else ["-nic", "none"]
        )
        return [
            shutil.which("qemu-system-aarch64") or "qemu-system-aarch64",
            *("-M", "virt", "-cpu", "cortex-a72", "-smp", "2", "-m", f"{self.memory_mb}M"),
            *("-accel", "tcg,thread=multi", "-bios", str(self.uboot)),
            *("-drive", f"if=none,file={self.sd_card},format=raw,id=sd", "-device", "virtio-blk-pci,drive=sd"),
            # U-Boot's second virtio disk (`virtio dev 1`), after the card so that Linux's vda stays the card
            *("-drive", f"if=none,file={self.boot_flash},format=raw,id=flash", "-device", "virtio-blk-pci,drive=flash"),
            *("-drive", f"if=none,file={nvme},format=raw,id=nvm", "-device", f"nvme,serial={self.name}-nvme,drive=nvm"),
            *net,
            *("-chardev", "pty,id=uart", "-serial", "chardev:uart"),
            *("-display", "none", "-monitor", "none", "-qmp", f"unix:{self.qmp_socket},server=on,wait=off"),
            # named as the lab's emulator: the lab PC's load guard does not count it as foreign work
            *("-name", services.emulator_name(self.name)),
            "-S",  # stopped before the first instruction: the outlet is off
        ]

    @property
    def tftp_root(self) -> Path:
        """The lab's TFTP server's folder for this board (QEMU's user network serves it)."""
        return self.run_dir / "tftp" / self.name

    @property
    def boot_flash(self) -> Path:
        """The contents of the board's boot flash: a chip the lab PC writes through flashrom (its dummy
        programmer emulates the chip on this file) while the board is off; the board reads it as a disk."""
        return self.run_dir / f"{self.name}-flash.bin"

    @property
    def qmp_socket(self) -> Path:
        return self.run_dir / f"{self.name}.qmp"

    def start(self) -> None:
        """Put the board on the bench: its machine exists, powered off (stopped before the first instruction)."""
        if shutil.which("qemu-system-aarch64") is None:
            raise LabError("qemu-system-aarch64 is missing on the lab PC: apt-get install qemu-system-arm")
        with (self.run_dir / f"{self.name}-nvme.img").open("wb") as disk:
            disk.truncate(self.nvme_mb * 1024 * 1024)
        with self.boot_flash.open("wb") as flash:  # erased, as a new chip; a MiB at a time, not the chip in memory
            for _ in range(self.flash_mb):
                flash.write(b"\xff" * (1024 * 1024))
        self.qmp_socket.unlink(missing_ok=True)
        self.tftp_root.mkdir(parents=True, exist_ok=True)
        with (self.run_dir / f"{self.name}.qemu.log").open("ab") as output:
            self.process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_the_bench,  # prctl must run in the child, before exec
            )
        deadline = time.monotonic() + 30
        while not self.qmp_socket.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise LabError(f"{self.name}: QEMU did not start (see {self.name}.qemu.log)")
            time.sleep(0.05)
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(str(self.qmp_socket))
        stream = connection.makefile("rwb")
        self.qmp = QMPMonitor(stream, stream)
        chardevs = self.qmp.execute("query-chardev")
        self.uart = next(c["filename"].removeprefix("pty:") for c in chardevs if c["label"] == "uart")
        log.info("%s: on the bench (QEMU pid %d, UART %s), power off", self.name, self.process.pid, self.uart)

    def power(self, on: bool) -> None:
        """The outlet's relay: on = cold start from U-Boot, off = the machine stops where it is."""
        with self.lock:
            if self.qmp is None or self.process is None or self.process.poll() is not None:
                raise LabError(f"{self.name}: its machine is gone (see {self.name}.qemu.log)")
            try:
                if on and not self.powered:
                    self.qmp.execute("system_reset")
                    self.qmp.execute("cont")
                elif not on and self.powered:
                    self.qmp.execute("stop")
            except (QMPError, OSError, ValueError) as exc:
                raise LabError(f"{self.name}: QEMU did not switch power: {exc}") from exc
            self.powered = on
            log.info("%s: power %s", self.name, "on" if on else "off")

    def remove(self) -> None:
        """Take the board off the bench: its machine ends (SIGTERM, SIGKILL after 5 s)."""
        process, self.process, self.qmp = self.process, None, None
        services.terminate(process, 5)
