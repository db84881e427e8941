"""hil's board-side programs put on a board by hil itself, before the board's first sample.

hil/tools built for the board's `uname -m` (hil.programs) go over as one xz-compressed tar through the
target's SSHDriver, else its serial console (hil.lab.board.console_transfer), into DEPLOY_ROOT/<build hash>/,
checked file by file with sha256sum on the board; a board that already holds the build gets nothing copied.
The role puts the deployed bin/ first on the PATH of every command (hil.lab.board.role). On the lab PC
(LocalShellDriver) the build is used where it was built.
"""

from __future__ import annotations

import hashlib
import io
import lzma
import platform
import tarfile
import tempfile
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from labgrid import Target
from labgrid.binding import BindingState
from labgrid.driver import SSHDriver

from hil import programs
from hil.errors import CommandFailed, LabError
from hil.facts import Facts
from hil.lab.board import console_transfer, shell
from hil.lab.board.local import LocalShellDriver
from hil.lab.board.shell import Shell

DEPLOY_ROOT = "/var/lib/hil/programs"
BUNDLE = "hil-programs.tar.xz"
TRANSFER_TIMEOUT_S = 600.0  # 0.5 MB at a 115200-baud UART's XMODEM rate (~9 KB/s) takes about a minute


_DEPLOYED: weakref.WeakKeyDictionary[Target, Deployment] = weakref.WeakKeyDictionary()


def on(target: Target) -> Deployment | None:
    return _DEPLOYED.get(target)


def remember(target: Target, deployment: Deployment | None) -> None:
    if deployment is None:
        _DEPLOYED.pop(target, None)
    else:
        _DEPLOYED[target] = deployment


@dataclass(frozen=True)
class Deployment:
    arch: str
    digest: str
    directory: str  # on the board
    sha256: dict[str, str]  # relative path -> sha256, as checked on the board
    copied: bool  # False: the board already held this build
    via: str  # the file transfer used, or why nothing was copied
    seconds: float
    boot: int  # the strategy's power-cycle count when it was checked (a new boot checks again)

    @property
    def bin_dir(self) -> str:
        return f"{self.directory}/bin"

    def library(self, name: str) -> str:
        relative = f"lib/{name}.so"
        if relative not in self.sha256:
            raise LabError(f"hil/tools has no preload library {name!r} (built: {', '.join(sorted(self.sha256))})")
        return f"{self.directory}/{relative}"

    def describe(self) -> str:
        action = f"copied via {self.via}" if self.copied else self.via
        return f"hil programs {self.digest} ({self.arch}, {len(self.sha256)} files) {action} in {self.seconds:.1f} s"


def ensure(role: Shell) -> Deployment:
    """The role's board holds hil's programs for its architecture, checked, on its PATH (see module doc)."""
    boot = role.power_cycles
    known = role.deployment
    if known is not None and known.boot == boot:
        return known
    started = time.monotonic()
    if isinstance(role.command_driver(), LocalShellDriver):
        build = programs.build(platform.machine())
        found = (build.arch, build.digest, str(build.directory), build.sha256(), False, "built on the lab PC")
    else:
        found = _on_a_board(role)
    deployment = Deployment(*found, seconds=time.monotonic() - started, boot=boot)
    role.deployment = deployment
    return deployment


def require_tools(pair: str, roles: Mapping[str, Shell], needed: dict[str, list[str]], facts: Facts) -> None:
    """Every program a test runs is on its role's board: hil's own are deployed there first (each board's
    `programs` fact), and all missing others are one LabError naming `pair` before any sample (a role the
    pair does not have is left to the test)."""
    missing = []
    own, libraries = set(programs.names()), set(programs.libraries())
    for role_name, wanted in needed.items():
        role = roles.get(role_name)
        if role is None or not wanted:
            continue
        if (own | libraries) & set(wanted):
            facts.board(role.target.name).programs = ensure(role).describe()
        tools = [name for name in wanted if name not in libraries]  # a library is no command to look for
        probe = " ".join(f"command -v {shell.quote(t)} >/dev/null 2>&1 || echo {shell.quote(t)};" for t in tools)
        absent = role.run(probe, timeout=30).split() if tools else []
        if absent:
            missing.append(f"{role.label} lacks {', '.join(absent)}")
    if missing:
        raise LabError(f"{pair}: tools missing on the board, nothing measured: {'; '.join(missing)}")


def _on_a_board(role: Shell) -> tuple[str, str, str, dict[str, str], bool, str]:
    """Deployment's arch, digest, directory, sha256, copied and via, the build checked (and copied) there."""
    arch = role.run("uname -m", timeout=30).strip()
    build = programs.build(arch)
    expected = build.sha256()
    directory = f"{DEPLOY_ROOT}/{build.digest}"
    copied, via = False, "already on the board"
    if _sha256_on_board(role, directory, expected) != expected:
        bundle = _bundle(build)
        _require_room(role, len(bundle), sum(path.stat().st_size for path in build.files.values()))
        via = _transfer(role, bundle, directory)
        found = _sha256_on_board(role, directory, expected)
        if found != expected:
            wrong = sorted(name for name in expected if found.get(name) != expected[name])
            raise LabError(
                f"{role.label}: hil's programs arrived damaged in {directory}: sha256 differs for {', '.join(wrong)}"
            )
        copied = True
    _check_runs(role, directory, arch)
    role.run(f'export PATH={shell.quote(directory + "/bin")}:"$PATH"', timeout=30)
    return arch, build.digest, directory, expected, copied, via


def _sha256_on_board(role: Shell, directory: str, expected: dict[str, str]) -> dict[str, str]:
    """sha256 of each expected file as the board computes it ({} when the directory is not there)."""
    command = f"cd {shell.quote(directory)} 2>/dev/null && sha256sum " + " ".join(shell.quote(n) for n in expected)
    code, output = role.run_status(command, timeout=120)
    if code != 0:
        return {}
    pairs = (parts for parts in (line.split() for line in output.splitlines()) if len(parts) == 2)
    return {name: digest for digest, name in pairs if name in expected and len(digest) == 64}


def _bundle(build: programs.ProgramsBuild) -> bytes:
    """One xz-compressed tar of the build (fixed owner, mode and time: the same build is the same bytes).
    xz, not gzip: its window spans the files, so the C library the static programs share goes over once
    (0.5 MB instead of 1.7 MB: a serial console's minutes). CRC32: what busybox's unxz checks."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, path in build.files.items():
            info = tarfile.TarInfo(name)
            data = path.read_bytes()
            info.size, info.mode, info.mtime = len(data), 0o755 if name.startswith("bin/") else 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return lzma.compress(buffer.getvalue(), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32, preset=6)


def _require_room(role: Shell, bundle_bytes: int, unpacked_bytes: int) -> None:
    """Enough free space where the programs go (a full filesystem is named, not a half-written program).
    statfs through `stat -f`, not df: df looks the path up in the mount table, which an initramfs lacks."""
    role.run(shell.cmd("mkdir", "-p", DEPLOY_ROOT), timeout=30)
    output = role.run(shell.cmd("stat", "-f", "-c", "%a %S", DEPLOY_ROOT), timeout=30).strip()
    try:
        blocks, block_size = (int(field) for field in output.split())
    except ValueError:
        raise LabError(f"{role.label}: `stat -f {DEPLOY_ROOT}` answered nothing readable: {output!r}") from None
    free_kib = blocks * block_size // 1024
    needed_kib = (bundle_bytes + unpacked_bytes) // 1024 + 64
    if free_kib < needed_kib:
        parent = DEPLOY_ROOT.rsplit("/", 1)[0]
        raise LabError(
            f"{role.label}: no room for hil's programs in {parent}: {needed_kib} KiB needed, {free_kib} KiB free"
        )


def _transfer(role: Shell, bundle: bytes, directory: str) -> str:
    """Copy the bundle with the target's file transfer and unpack it into `directory`; returns how."""
    remote = f"{DEPLOY_ROOT}/.{BUNDLE}"
    target = role.target
    ssh = next((d for d in target.drivers if isinstance(d, SSHDriver)), None)
    if ssh is not None:
        via = f"SSHDriver ({ssh.networkservice.address}:{ssh.networkservice.port})"
        with tempfile.TemporaryDirectory(prefix="hil-deploy-") as scratch:
            local = Path(scratch) / BUNDLE
            local.write_bytes(bundle)
            try:
                target.activate(ssh)
                ssh.put(str(local), remote)
            except Exception as exc:
                raise LabError(f"{role.label}: copying hil's programs over {via} failed: {exc}") from exc
            finally:
                # One active CommandProtocol: the role's commands go on through the shell.
                if ssh.state is BindingState.active:
                    target.deactivate(ssh)
    else:
        via = console_transfer.put(role, bundle, remote)
    digest = hashlib.sha256(bundle).hexdigest()
    staging = f"{directory}.part"
    script = (
        f"echo {digest}'  '{shell.quote(remote)} | sha256sum -c -s && "
        f"rm -rf {shell.quote(staging)} && mkdir -p {shell.quote(staging)} && "
        f"xzcat {shell.quote(remote)} | tar -x -C {shell.quote(staging)} && "
        f"rm -rf {shell.quote(directory)} && mv {shell.quote(staging)} {shell.quote(directory)} && sync"
    )
    try:
        role.run(script, timeout=TRANSFER_TIMEOUT_S)
    except CommandFailed as exc:
        raise LabError(f"{role.label}: hil's programs did not unpack into {directory} (a full disk?): {exc}") from exc
    finally:
        role.run_status(shell.cmd("rm", "-f", remote), timeout=30)
    return via


def _check_runs(role: Shell, directory: str, arch: str) -> None:
    """The board executes what it got: each program, run without arguments, prints its usage and exits 2 (a
    wrong architecture or a missing loader shows here, by name, instead of in a measurement)."""
    for name in programs.names():
        code, output = role.run_status(f"{shell.quote(f'{directory}/bin/{name}')} 2>&1", timeout=30)
        if code != 2 or "usage:" not in output:
            raise LabError(
                f"{role.label}: {name} built for {arch} does not run there (exit {code}): {output.strip()[:500]}"
            )
