"""hil's board-side programs (hil/tools: one C file per program, preload/*.c LD_PRELOAD libraries), built for a
board's architecture with hil/tools/Makefile: the one build the deployment (hil.lab.board.deploy), the tests and
a lab admin by hand (`make -C hil/tools CC=... OUT=...`) share.

    build = programs.build("aarch64")   # cached under ~/.cache/hil/programs/aarch64-<hash>/
    build.files                          # {"bin/v4l2_fps": Path, ..., "lib/ffs_superspeed.so": Path}

Programs are static (no library to find on the board); the preload libraries link against the board's glibc. A
build is named by a hash of the sources, the Makefile and the compiler's version.
"""

from __future__ import annotations

import hashlib
import platform
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hil import cache, rootfs
from hil.errors import LabError

SOURCE_DIR = Path(__file__).resolve().parent / "tools"
# `uname -m` -> (compiler, ELF e_machine of what it builds, Debian's package of it)
ARCHITECTURES = {
    "x86_64": ("x86_64-linux-gnu-gcc", 62, "gcc-x86-64-linux-gnu"),
    "aarch64": ("aarch64-linux-gnu-gcc", 183, "gcc-aarch64-linux-gnu"),
    "armv7l": ("arm-linux-gnueabihf-gcc", 40, "gcc-arm-linux-gnueabihf"),
    "riscv64": ("riscv64-linux-gnu-gcc", 243, "gcc-riscv64-linux-gnu"),
}
# The PC's own gcc builds for the PC's architecture: no cross compiler needed there.
NATIVE_COMPILER = "gcc"


@dataclass(frozen=True)
class ProgramsBuild:
    arch: str
    digest: str  # names the build: sources, Makefile, compiler
    directory: Path
    files: dict[str, Path]  # path relative to the board's deployment directory ("bin/x", "lib/y.so") -> file

    def sha256(self) -> dict[str, str]:
        return {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in self.files.items()}


def sources() -> list[Path]:
    wanted = {".c", ".h"}
    return sorted(p for p in SOURCE_DIR.rglob("*") if p.is_file() and (p.suffix in wanted or p.name == "Makefile"))


def names() -> list[str]:
    """The programs' names (what a test runs on the board's PATH)."""
    return sorted(path.stem for path in SOURCE_DIR.glob("*.c"))


def libraries() -> list[str]:
    """The LD_PRELOAD libraries' names (hil/tools/preload/NAME.c -> lib/NAME.so on the board)."""
    return sorted(path.stem for path in (SOURCE_DIR / "preload").glob("*.c"))


def compiler_for(arch: str) -> str:
    try:
        cross, _, package = ARCHITECTURES[arch]
    except KeyError:
        raise LabError(
            f"hil cannot build its board programs for architecture {arch!r} (`uname -m`): known are "
            f"{', '.join(ARCHITECTURES)}"
        ) from None
    if platform.machine() == arch and shutil.which(NATIVE_COMPILER):
        return NATIVE_COMPILER
    if shutil.which(cross) is None:
        raise LabError(f"no compiler for {arch} boards on this PC: {cross} is missing (apt-get install {package})")
    return cross


def build(arch: str, *, root: Path | None = None) -> ProgramsBuild:
    """hil/tools built for `arch` (cached); a build error or a binary of another architecture is a LabError."""
    compiler = compiler_for(arch)
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True, check=True).stdout
    digest = hashlib.sha256()
    for path in sources():
        digest.update(path.relative_to(SOURCE_DIR).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(version.encode())
    name = digest.hexdigest()[:16]
    root = root or cache.root("programs", "HIL_PROGRAMS_CACHE")
    directory = root / f"{arch}-{name}"
    with cache.locked(root):  # parallel workers build once
        if not (directory / ".complete").is_file():
            _make(compiler, directory)
    files = {
        path.relative_to(directory).as_posix(): path
        for path in sorted(directory.rglob("*"))
        if path.is_file() and not path.name.startswith(".")
    }
    _, machine, _ = ARCHITECTURES[arch]
    for path in files.values():
        found = rootfs.elf_machine(path)
        if found != machine:
            raise LabError(f"{path} is not an {arch} binary (ELF machine {found}, {arch} is {machine}): refused")
    return ProgramsBuild(arch=arch, digest=name, directory=directory, files=files)


def _make(compiler: str, directory: Path) -> None:
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=directory.parent))
    try:
        out = staging / "out"
        proc = subprocess.run(
            ["make", "-s", "-C", str(SOURCE_DIR), f"CC={compiler}", f"OUT={out}", "all"],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise LabError(f"hil/tools does not build with {compiler}:\n{(proc.stdout + proc.stderr)[-3000:]}")
        # The Makefile puts programs in OUT and libraries in OUT/lib: on the board they go to bin/ and lib/.
        final = staging / "final"
        (final / "bin").mkdir(parents=True)
        for path in out.iterdir():
            if path.is_file():
                path.rename(final / "bin" / path.name)
        if (out / "lib").is_dir():
            (out / "lib").rename(final / "lib")
        (final / ".complete").write_text(compiler + "\n")
        if directory.exists():
            shutil.rmtree(directory)
        final.rename(directory)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
