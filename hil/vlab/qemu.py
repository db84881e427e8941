"""QEMUDriver for the virtual board, tolerant of a QEMU that died or hangs (docs/virtual-lab.md says why).

labgrid's QEMUDriver powers off through QMP `quit`; when the emulator crashed or its monitor stopped answering,
that raises and leaves the driver believing the board is still on, so no power cycle can ever succeed again.
This one pulls the plug as a PDU does. QEMU runs under `setpriv --pdeathsig KILL` (util-linux): it dies with the
process that powered it on, even one killed with SIGKILL (a Jenkins abort), never left running with parent 1.

The board's scratch disks (`scratch_disks: {nvme.img: 1024}`, MiB; `@scratch@/nvme.img` in `extra_args`) are
memory files (memfd) this process holds, one set per QEMU: a virtual drive's figures then do not depend on the
PC's disk, and the memory is freed when the driver and QEMU are gone, even killed.

The board runs on the pair's `clock` (CLOCKS, set by hil.lab.board.provision.use_clock): `virtual` is QEMU's
instruction counter on one vCPU (two hang at "Booting SMP configuration" on QEMU 7.2).

QEMU boots the kernel's ELF directly (hil.vlab.kernel), and a bzImage for a test that suspends the board to RAM
(docs/virtual-lab.md says why).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import attr
import pexpect
from labgrid.driver.qemudriver import QEMUDriver
from labgrid.factory import target_factory
from labgrid.step import step

from hil.build.manifest import Build
from hil.errors import LabError
from hil.lab.board.provision import BootBuildProtocol, ClockProtocol
from hil.services import terminate
from hil.vlab.kernel import direct_boot

BUILD_KERNEL = "hil-build-kernel"  # the images key of a build's kernel


@attr.s(frozen=True)
class Clock:
    qemu: tuple[str, ...] = attr.ib()  # QEMU arguments ({shift}: the virtual clock's)
    kernel_args: str = attr.ib()  # after the board's and the build's


CLOCKS = {
    "real": Clock(("-accel", "tcg,thread=multi", "-smp", "2"), ""),
    "virtual": Clock(
        ("-accel", "tcg,thread=single", "-smp", "1", "-icount", "shift={shift},sleep=off"), "nokaslr norandmaps"
    ),
}
ICOUNT_SHIFT = {125: 3, 250: 2, 500: 1, 1000: 0}  # virtual MIPS -> -icount shift (an instruction is 2**shift ns)


@target_factory.reg_driver
@attr.s(eq=False)
class VlabQEMUDriver(QEMUDriver, BootBuildProtocol, ClockProtocol):
    QUIT_TIMEOUT_S = 5.0
    SCRATCH = "@scratch@"

    scratch_disks = attr.ib(factory=dict, validator=attr.validators.instance_of(dict))
    clock = attr.ib(default="real", validator=attr.validators.in_(CLOCKS))
    virtual_mips = attr.ib(default=125, validator=attr.validators.in_(ICOUNT_SHIFT))
    suspends = attr.ib(default=False, validator=attr.validators.instance_of(bool))  # booted to wake from S3
    _scratch_fds: list[int] = attr.ib(factory=list, init=False, repr=False)

    @QEMUDriver.check_bound  # the command line is fixed when the driver is activated
    @step(args=["build"])
    def boot_build(self, build: Build) -> None:
        """Boot `build` (hil.build): its kernel, its initramfs in place of the image's, its kernel arguments after
        the board's own."""
        unused = sorted(set(build.images) - {"kernel", "initramfs"})
        if "kernel" not in build.images or unused:
            raise LabError(
                f"{self.target.name}: the virtual board boots a kernel and an initramfs; build {build.label} "
                f"{'has no kernel' if 'kernel' not in build.images else f'also has {unused}'} ({build.manifest})"
            )
        self.target.env.config.data.setdefault("images", {})[BUILD_KERNEL] = str(build.images["kernel"].path)
        self.kernel = BUILD_KERNEL
        if "initramfs" in build.images:
            args = shlex.split(self.extra_args)
            if "-initrd" not in args:
                raise LabError(f"{self.target.name}: its extra_args boot no initramfs to replace with the build's")
            args[args.index("-initrd") + 1] = str(build.images["initramfs"].path)
            self.extra_args = shlex.join(args)
        self.boot_args = " ".join([self.boot_args or "", *build.kernel_args]).strip()

    @property
    def idle_time_warps(self) -> bool:
        """On the virtual clock (sleep=off) the board's idle time passes in an instant: a program on it that waits
        for the PC with a timeout sees it run out (hil.lab.board.console_transfer keeps the board busy)."""
        return self.clock == "virtual"

    def use_clock(self, clock: str, mips: int = 125, suspends: bool = False) -> None:
        """Run the board on `clock` (the virtual one at `mips`) from its next power-on, booted to wake from a suspend
        to RAM when it `suspends` (a board that is on is powered off first)."""
        if clock not in CLOCKS or mips not in ICOUNT_SHIFT:
            raise LabError(
                f"{self.target.name}: no clock {clock!r} at {mips} MIPS (clocks: {', '.join(CLOCKS)}; "
                f"virtual MIPS: {', '.join(map(str, ICOUNT_SHIFT))})"
            )
        if self.status and (clock, mips, suspends) != (self.clock, self.virtual_mips, self.suspends):
            booted = ", booted to wake from RAM" if self.suspends else ""
            raise LabError(f"{self.target.name}: runs on the {self.clock} clock{booted}: power it off before a change")
        self.clock, self.virtual_mips, self.suspends = clock, mips, suspends

    def on_activate(self) -> None:
        self._check_files()
        super().on_activate()
        # Not named as one of the lab's emulators (hil.services.EMULATOR_PREFIX, the lab services' boards): this run's
        # own board is in its process tree, and another run's board on this PC is foreign load for this run.
        self._cmd += ["-name", self.target.name]
        self._create_scratch_disks()
        setpriv = shutil.which("setpriv")  # the kernel kills QEMU when the thread that started it dies
        if setpriv is None:
            raise LabError(f"{self.target.name}: setpriv not found (util-linux): apt-get install util-linux")
        self._cmd = [setpriv, "--pdeathsig", "KILL", "--", *self._cmd]

    def on(self) -> None:
        """Power on with the clock's arguments (the command line is made on activation, the clock chosen later)."""
        made, clock = self._cmd, CLOCKS[self.clock]
        self._cmd = [*made, *(arg.format(shift=ICOUNT_SHIFT[self.virtual_mips]) for arg in clock.qemu)]
        if "-kernel" in self._cmd and not self.bios and not self.suspends:  # QEMU boots it (a boot loader wants the
            # bzImage): its ELF, without the 6-7 s a bzImage spends decompressing itself under TCG (hil.vlab.kernel)
            at = self._cmd.index("-kernel") + 1
            self._cmd[at] = str(direct_boot(Path(self._cmd[at])))
        if clock.kernel_args and "-append" in self._cmd:
            self._cmd[self._cmd.index("-append") + 1] += f" {clock.kernel_args}"
        try:
            super().on()
        finally:
            self._cmd = made

    def _create_scratch_disks(self) -> None:
        """Memory files for the disks extra_args names under @scratch@ (QEMU opens them read-write)."""
        self._close_scratch_disks()
        paths = {}
        for name, size_mb in self.scratch_disks.items():
            if "/" in name or not isinstance(size_mb, int) or size_mb < 1:
                raise LabError(f"{self.target.name}: scratch disk {name!r}: give a plain file name and a size in MiB")
            fd = os.memfd_create(f"hil-vlab-{name}")
            self._scratch_fds.append(fd)
            os.ftruncate(fd, size_mb * 1024 * 1024)
            paths[f"{self.SCRATCH}/{name}"] = f"/proc/{os.getpid()}/fd/{fd}"
        pattern = re.compile("|".join(re.escape(token) for token in sorted(paths, key=len, reverse=True)))
        self._cmd = [pattern.sub(lambda found: paths[found.group(0)], arg) if paths else arg for arg in self._cmd]
        leftover = [arg for arg in self._cmd if self.SCRATCH in arg]
        if leftover:
            raise LabError(f"{self.target.name}: extra_args name scratch disks that scratch_disks lacks: {leftover}")

    def _close_scratch_disks(self) -> None:
        for fd in self._scratch_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._scratch_fds.clear()

    def on_deactivate(self) -> None:
        super().on_deactivate()
        self._close_scratch_disks()

    def _check_files(self) -> None:
        """Name what is missing before QEMU is started, instead of a FileNotFoundError from deep inside."""
        config = self.target.env.config
        qemu = config.get_tool(self.qemu_bin)
        if not qemu or not os.access(qemu, os.X_OK):
            raise LabError(
                f"{self.target.name}: QEMU binary {qemu!r} not found: apt-get install qemu-system-x86 "
                f"(or fix tools/{self.qemu_bin} in {config.filename})"
            )
        files = {"kernel": config.get_image_path(self.kernel)} if self.kernel else {}
        if self.bios:
            files["bios"] = config.get_image_path(self.bios)
        args = shlex.split(self.extra_args)
        if "-initrd" in args and args.index("-initrd") + 1 < len(args):
            files["initrd"] = args[args.index("-initrd") + 1]
        for what, path in files.items():
            if not Path(path).is_file():
                fix = (
                    "apt-get install u-boot-qemu"
                    if what == "bios"
                    else "build the virtual lab image: python -m hil.vlab.image"
                )
                raise LabError(f"{self.target.name}: {what} image {path} does not exist ({fix})")

    @step()
    def off(self) -> None:
        """Pull the plug: SIGTERM (QEMU quits as on QMP `quit`), SIGKILL after a grace period. Not QMP: a frozen
        emulator never answers its monitor, and labgrid's QMP read has no timeout."""
        if not self.status:
            return
        child, timeout = self._child, self.QUIT_TIMEOUT_S
        killing = f"QEMU did not quit within {timeout:.0f} s: killing it"
        terminate(child, timeout, on_kill=lambda: self.logger.warning(killing))
        for stream in (child.stdout, child.stdin):
            if stream:
                stream.close()
        if self._clientsocket:
            self._clientsocket.close()
            self._clientsocket = None
        self._child = None
        self.status = 0

    def _read(self, size: int = 1, timeout: float = 10, max_size: int | None = None) -> bytes:
        """labgrid's read, except that a dead QEMU's console is EOF at once (the board is then power-cycled), not
        empty data polled until the command's timeout runs out."""
        data = super()._read(size=size, timeout=timeout, max_size=max_size)
        if data == b"":
            status = self._child.poll() if self._child is not None else None
            how = f"exited with status {status}" if status is not None else "closed the socket"
            raise pexpect.EOF(f"console closed: QEMU {how}")
        return data

    def pause(self) -> None:
        """Freeze the emulated CPUs: the console stops answering, as a hung board's would."""
        self.monitor_command("stop")

    def kill(self) -> None:
        """Kill the emulator without telling the driver, as a crash would (for recovery tests)."""
        if self._child is not None:
            self._child.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._child.wait(timeout=self.QUIT_TIMEOUT_S)
