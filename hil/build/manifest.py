"""A build manifest (docs/release-gate.md): the named set of images a release is made of, checked and hashed
before any board is touched. Every problem is a BuildError naming the file, the key and what is wrong. hil
appends `hil.build=NAME` to the kernel arguments so that the board itself can say which build it booted; an x86
bzImage says its kernel release in its header, which then must agree with `expect.kernel_release`.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from hil.build.identity import BuildIdentity, build_label
from hil.inventory import yamlfile

IMAGE_KINDS = ("kernel", "initramfs", "dtb", "rootfs", "bootloader")
RESERVED_ARG = "hil.build="  # the board's own proof of what it booted (hil.build.boardview)

BuildName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")]
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


class BuildError(ValueError):
    """A manifest hil cannot use: the file, the key, what is wrong."""

    def __init__(self, path: Path | str, key: str, problem: str) -> None:
        self.path, self.key, self.problem = str(path), key, problem
        super().__init__(f"{path}: {key}: {problem}" if key else f"{path}: {problem}")


class _PinnedImage(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    file: Annotated[str, StringConstraints(min_length=1)]
    sha256: Sha256 | None = None


class _Expect(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    kernel_release: Annotated[str, StringConstraints(pattern=r"^\S+$")] | None = None


class _Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: BuildName
    version: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None
    images: dict[str, Annotated[str, StringConstraints(min_length=1)] | _PinnedImage] = Field(min_length=1)
    kernel_args: str = ""
    expect: _Expect = _Expect()

    @field_validator("images")
    @classmethod
    def _known_kinds(cls, images: dict[str, Any]) -> dict[str, Any]:
        if unknown := sorted(set(images) - set(IMAGE_KINDS)):
            raise ValueError(f"unknown image {', '.join(unknown)} (images are {', '.join(IMAGE_KINDS)})")
        return images

    @field_validator("kernel_args")
    @classmethod
    def _plain_words(cls, text: str) -> str:
        try:
            words = shlex.split(text)
        except ValueError as exc:
            raise ValueError(f"not a list of words: {exc}") from None
        for word in words:
            if word.startswith(RESERVED_ARG):
                raise ValueError(f"{RESERVED_ARG}... is hil's own (it names the build the board booted)")
            if not re.fullmatch(r"[\x21-\x7e]+", word):
                raise ValueError(f"{word!r}: a kernel argument is printable ASCII without quotes or spaces")
        return text


@dataclass(frozen=True)
class Image:
    """One image of a build: where it is, its SHA-256 and size, read when the manifest was loaded."""

    kind: str
    path: Path
    sha256: str
    size: int


@dataclass(frozen=True)
class Build:
    name: str
    version: str | None
    manifest: Path
    images: dict[str, Image]
    kernel_args: tuple[str, ...]  # the manifest's, then hil.build=NAME
    kernel_release: str | None  # what `uname -r` must say (expected, or read from the kernel image)

    @property
    def label(self) -> str:
        return build_label(self.identity())

    def identity(self) -> BuildIdentity:
        """What results.json keeps of the build (run.build)."""
        return {
            "name": self.name,
            "version": self.version,
            "manifest": str(self.manifest),
            "images": {
                kind: {"file": image.path.name, "sha256": image.sha256, "bytes": image.size}
                for kind, image in self.images.items()
            },
            "kernel_args": " ".join(self.kernel_args),
            "kernel_release": self.kernel_release,
        }


def load_build(path: Path | str) -> Build:
    """The manifest at `path`, its images read and hashed; BuildError on any problem."""
    path = Path(path)
    try:
        data = yaml.safe_load(yamlfile.check_file(path))
    except yamlfile.YamlProblem as exc:
        raise BuildError(path, f"line {exc.line}" if exc.line else "", exc.message) from None
    if not isinstance(data, dict):
        raise BuildError(path, "", "a build manifest is a mapping (name, images, ...)")
    try:
        manifest = _Manifest.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = "/".join(str(part) for part in error["loc"] if not _is_union_branch(part))
        extra = error["type"] == "extra_forbidden"
        message = "unknown key (typo?)" if extra else error["msg"].removeprefix("Value error, ")
        raise BuildError(path, key, message) from None
    images = {kind: _image(path, kind, spec) for kind, spec in manifest.images.items()}
    release = manifest.expect.kernel_release
    if "kernel" in images:
        release = _agreeing_release(path, images["kernel"], release)
    return Build(
        name=manifest.name,
        version=manifest.version,
        manifest=path,
        images=images,
        kernel_args=(*shlex.split(manifest.kernel_args), f"{RESERVED_ARG}{manifest.name}"),
        kernel_release=release,
    )


def _is_union_branch(part: str | int) -> bool:
    return isinstance(part, str) and (part.startswith("constrained-str") or part in ("str", "_PinnedImage"))


def _image(manifest: Path, kind: str, spec: str | _PinnedImage) -> Image:
    pinned = spec if isinstance(spec, _PinnedImage) else _PinnedImage(file=spec)
    file = (manifest.parent / pinned.file).resolve()
    key = f"images/{kind}"
    if not file.is_file():
        raise BuildError(manifest, key, f"{file}: no such file" if not file.exists() else f"{file}: not a file")
    try:
        with file.open("rb") as stream:
            sha256, size = hashlib.file_digest(stream, "sha256").hexdigest(), stream.tell()
    except OSError as exc:
        raise BuildError(manifest, key, f"{file}: cannot read: {exc.strerror}") from None
    if size == 0:
        raise BuildError(manifest, key, f"{file}: empty")
    if pinned.sha256 is not None and pinned.sha256 != sha256:
        raise BuildError(manifest, f"{key}/sha256", f"{file} has SHA-256 {sha256}, the manifest pins {pinned.sha256}")
    return Image(kind, file, sha256, size)


def _agreeing_release(manifest: Path, kernel: Image, expected: str | None) -> str | None:
    """The kernel release the image says of itself (an x86 bzImage does), which the manifest must not contradict."""
    with kernel.path.open("rb") as stream:
        said = bzimage_release(stream.read(0x10000))
    if said is None:
        return expected
    if expected is not None and expected != said:
        raise BuildError(manifest, "expect/kernel_release", f"{expected}, but the kernel image {kernel.path} is {said}")
    return said


def bzimage_release(head: bytes) -> str | None:
    """The kernel release in an x86 boot image's header (the first word of its version string), or None when
    `head` (the image's first 64 KiB) is not a bzImage that has one (an arm64 Image does not)."""
    if len(head) < 0x210 or head[0x202:0x206] != b"HdrS":
        return None
    pointer = int.from_bytes(head[0x20E:0x210], "little")
    if pointer == 0:
        return None
    start = pointer + 0x200
    end = head.find(b"\0", start, start + 256)
    if start >= len(head) or end < 0:
        return None
    words = head[start:end].decode("ascii", errors="replace").split()
    return words[0] if words and re.fullmatch(r"[0-9][\w.+~-]*", words[0]) else None
