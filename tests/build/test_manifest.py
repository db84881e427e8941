"""Build manifests: what is kept of a build, and every bad manifest refused naming the file and the key."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from hil.build.manifest import BuildError, bzimage_release, load_build

DATA = Path(__file__).parent.parent / "data" / "build"
BZIMAGE_HEAD = DATA / "vmlinuz-6.1.0-56-amd64.head"
ZEROS = "0" * 64


def manifest(directory: Path, text: str, **files: bytes) -> Path:
    for name, data in files.items():
        (directory / name).write_bytes(data)
    path = directory / "build.yaml"
    path.write_text(text)
    return path


def test_a_build_keeps_its_images_hashes_and_arguments(tmp_path):
    path = manifest(
        tmp_path,
        "name: rc1\nversion: '2026.11-rc1'\nimages: {kernel: Image, dtb: {file: board.dtb}}\n"
        "kernel_args: 'usb-storage.quirks=1d6b:0104:m quiet'\nexpect: {kernel_release: 6.6.0-rk}\n",
        Image=b"arm64 kernel",
        **{"board.dtb": b"\xd0\x0d\xfe\xed"},
    )
    build = load_build(path)
    assert build.label == "rc1 2026.11-rc1"
    assert build.kernel_args == ("usb-storage.quirks=1d6b:0104:m", "quiet", "hil.build=rc1")
    assert build.kernel_release == "6.6.0-rk"  # an arm64 Image does not say it: the manifest does
    identity = build.identity()
    assert identity["images"]["kernel"] == {
        "file": "Image",
        "sha256": hashlib.sha256(b"arm64 kernel").hexdigest(),
        "bytes": 12,
    }
    assert identity["kernel_args"].endswith("quiet hil.build=rc1")


def test_an_x86_kernel_says_its_release_itself():
    assert bzimage_release(BZIMAGE_HEAD.read_bytes()) == "6.1.0-56-amd64"
    assert bzimage_release(b"\0" * 0x4000) is None  # no setup header: not a bzImage
    truncated = BZIMAGE_HEAD.read_bytes()[:0x44C0]  # the header points past what was read
    assert bzimage_release(truncated) is None


def test_an_x86_kernel_release_fills_in_and_must_agree_with_the_manifest(tmp_path):
    head = BZIMAGE_HEAD.read_bytes()
    assert load_build(manifest(tmp_path, "name: a\nimages: {kernel: vmlinuz}\n", vmlinuz=head)).kernel_release == (
        "6.1.0-56-amd64"
    )
    path = manifest(tmp_path, "name: a\nimages: {kernel: vmlinuz}\nexpect: {kernel_release: 6.1.0-9-amd64}\n")
    with pytest.raises(BuildError, match=r"expect/kernel_release: 6.1.0-9-amd64, but the kernel image .* is 6.1.0-56"):
        load_build(path)


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("name: a\nimages: {kernel: gone}\n", "images/kernel", "gone: no such file"),
        ("name: a\nimages: {kernel: empty}\n", "images/kernel", "empty: empty"),
        ("name: a\nimages: {kernel: sub}\n", "images/kernel", "sub: not a file"),
        (f"name: a\nimages: {{kernel: {{file: k, sha256: '{ZEROS}'}}}}\n", "images/kernel/sha256", "manifest pins"),
        ("name: a\nimages: {kernel: k, zimage: k}\n", "images", "unknown image zimage"),
        ("name: a\nimages: {}\n", "images", "at least 1"),
        ("name: 'a b'\nimages: {kernel: k}\n", "name", "should match pattern"),
        ("name: a\nimages: {kernel: k}\nkernl_args: x\n", "kernl_args", "unknown key (typo?)"),
        ("name: a\nimages: {kernel: k}\nkernel_args: 'hil.build=b'\n", "kernel_args", "hil's own"),
        ("name: a\nimages: {kernel: k}\nkernel_args: 'a=\"b c\"'\n", "kernel_args", "printable ASCII"),
        ("name: a\nimages: {kernel: k}\nkernel_args: 'a=\"b'\n", "kernel_args", "not a list of words"),
        ("name: a\nimages: {kernel: k}\nexpect: {kernel_release: ''}\n", "expect/kernel_release", "pattern"),
        ("name: a\nimages: [k]\n", "images", "dictionary"),
        ("- a\n", "", "a build manifest is a mapping"),
        ("name: [a\n", "line 2", "not valid YAML"),
    ],
)
def test_a_bad_manifest_names_the_file_the_key_and_the_problem(tmp_path, text, key, problem):
    (tmp_path / "sub").mkdir()
    path = manifest(tmp_path, text, k=b"kernel", empty=b"")
    with pytest.raises(BuildError) as raised:
        load_build(path)
    assert raised.value.path == str(path)
    assert raised.value.key == key
    assert problem in raised.value.problem


def test_a_missing_manifest_is_named(tmp_path):
    with pytest.raises(BuildError, match=f"{tmp_path}/none.yaml: cannot read"):
        load_build(tmp_path / "none.yaml")


def test_a_pinned_hash_that_matches_is_accepted(tmp_path):
    digest = hashlib.sha256(b"kernel").hexdigest()
    text = f"name: a\nimages: {{kernel: {{file: k, sha256: '{digest}'}}}}\n"
    build = load_build(manifest(tmp_path, text, k=b"kernel"))
    assert build.images["kernel"].sha256 == digest
