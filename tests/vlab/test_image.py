"""hil.vlab.image, on the shared builder hil.image, without booting anything: inputs, their hash, kernel and
tool discovery, a scratch build."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hil import programs
from hil.cache import inputs_hash
from hil.errors import VlabImageError
from hil.lab.usb_gadget.mtp import SUPERSPEED_SHIM
from hil.vlab import image


@pytest.fixture(scope="module")
def inputs() -> dict:
    return image.build_inputs()  # the real inputs of this machine: kernel, packages, lists, sources


def test_inputs_describe_the_installed_kernel_and_packages(inputs):
    version, vmlinuz = image.find_kernel()
    assert (inputs["kernel_version"], inputs["kernel_image"]) == (version, str(vmlinuz))
    assert f"linux-image-{version}" in inputs["packages"]
    assert {"coreutils", "busybox-static", "kmod"} <= set(inputs["packages"])
    vlab = {f"vlab/{name}" for name in ("image.py", "tool_checks.py", "init.sh", "profile.sh", "android-usb.sh")}
    assert set(inputs["sources"]) == {*vlab, "image.py", "rootfs.py"}  # with the shared builder hil/image.py
    assert "programs" not in inputs  # hil deploys its programs at run time (hil.lab.board.deploy)


def test_the_hash_is_stable_for_equal_inputs(inputs):
    reordered = dict(reversed(list(copy.deepcopy(inputs).items())))
    assert inputs_hash(inputs) == inputs_hash(copy.deepcopy(inputs)) == inputs_hash(reordered)
    assert inputs_hash(inputs) == inputs_hash(image.build_inputs())
    assert len(inputs_hash(inputs)) == 16


def _changes(inputs: dict) -> dict[str, dict]:
    """One variant per input, each differing from the original in exactly that input."""
    variants = {}
    for key, value in inputs.items():
        changed = copy.deepcopy(inputs)
        if isinstance(value, dict) and not value:
            changed[key] = {"added": "changed"}
        elif isinstance(value, dict):
            first = next(iter(value))
            changed[key][first] = f"{value[first]}+changed"
        elif isinstance(value, list):
            changed[key] = value[:-1]
        elif isinstance(value, int):
            changed[key] = value + 1
        else:
            changed[key] = f"{value}+changed"
        variants[key] = changed
    return variants


def test_the_hash_changes_when_any_input_changes(inputs):
    variants = _changes(inputs)
    assert set(variants) == set(inputs) and len(variants) >= 7
    hashes = {key: inputs_hash(variant) for key, variant in variants.items()}
    assert inputs_hash(inputs) not in hashes.values()
    assert len(set(hashes.values())) == len(hashes)


def test_find_kernel_picks_the_newest_kernel_that_has_modules(tmp_path):
    boot, modules = tmp_path / "boot", tmp_path / "modules"
    boot.mkdir()
    for version, has_modules in (("6.1.0-9-amd64", True), ("6.1.0-10-amd64", True), ("6.1.0-11-amd64", False)):
        (boot / f"vmlinuz-{version}").write_bytes(b"kernel")
        if has_modules:
            (modules / version).mkdir(parents=True)
            (modules / version / "modules.dep").write_text("")
    # -10 is newer than -9 (a string comparison would say otherwise); -11 has no modules.
    assert image.find_kernel(boot, modules) == ("6.1.0-10-amd64", boot / "vmlinuz-6.1.0-10-amd64")


def test_no_kernel_is_a_clear_error_naming_the_package(tmp_path):
    (tmp_path / "boot").mkdir()
    (tmp_path / "boot" / "vmlinuz-6.1.0-9-amd64").write_bytes(b"kernel")  # but no modules for it
    with pytest.raises(VlabImageError, match=r"apt-get install linux-image-amd64") as caught:
        image.find_kernel(tmp_path / "boot", tmp_path / "modules")
    assert str(tmp_path / "boot") in str(caught.value)


def test_a_missing_tool_names_its_debian_package(monkeypatch):
    monkeypatch.setitem(image.TOOLS, "hil-no-such-tool", "hil-no-such-package")
    with pytest.raises(VlabImageError, match=r"`hil-no-such-tool` is missing .*apt-get install hil-no-such-package"):
        image.build_inputs()


def test_a_package_that_is_not_installed_is_named():
    with pytest.raises(VlabImageError, match=r"not installed: hil-no-such-package"):
        image._package_versions(["coreutils", "hil-no-such-package"])


def test_shared_libraries_of_a_real_binary_include_libc_and_the_loader():
    libraries = image._shared_libraries(Path("/usr/bin/dd"))
    names = {Path(lib).name for lib in libraries}
    assert "libc.so.6" in names
    assert any(name.startswith("ld-linux") for name in names)
    assert all(Path(lib).is_absolute() and Path(lib).exists() for lib in libraries)


def test_a_static_binary_has_no_shared_libraries():
    assert image._shared_libraries(Path("/bin/busybox")) == set()  # Debian's busybox-static


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One scratch build (about 1 s, 100 MB) and its log; removed afterwards instead of kept by pytest."""
    cache = tmp_path_factory.mktemp("vlab-cache")
    log: list[str] = []
    first = image.ensure_image(cache, log=log.append)
    yield cache, first, log
    shutil.rmtree(cache)


def test_a_build_writes_kernel_initramfs_and_manifest(built, inputs):
    cache, first, log = built
    assert first.directory == cache / inputs_hash(inputs)
    assert any("building image" in line for line in log)
    manifest = json.loads((first.directory / "manifest.json").read_text())
    assert {k: v for k, v in manifest.items() if k != "built"} == json.loads(json.dumps(inputs))
    assert first.kernel.read_bytes() == Path(inputs["kernel_image"]).read_bytes()
    listing = subprocess.run(
        ["cpio", "-it", "--quiet"], stdin=first.initramfs.open("rb"), capture_output=True, text=True, check=True
    ).stdout.split()
    # Merged /usr, as on Debian 12: /lib is a link to usr/lib.
    modules = f"usr/lib/modules/{inputs['kernel_version']}"
    assert {"init", "etc/profile", "usr/bin/dd", "usr/bin/dash", "usr/bin/sh", "usr/bin/busybox", "lib"} <= set(listing)
    assert {"usr/bin/android-usb", "usr/bin/setprop", "usr/bin/getprop"} <= set(listing)  # hil/vlab/android-usb.sh
    assert any(name.startswith(f"{modules}/") and name.endswith("/dummy_hcd.ko") for name in listing)
    assert f"{modules}/modules.dep" in listing
    # What _shared_libraries found for the tools went in, the loader included.
    assert {"usr/lib/x86_64-linux-gnu/libc.so.6", "usr/lib64/ld-linux-x86-64.so.2"} <= set(listing)
    assert not [p for p in cache.iterdir() if p.name.startswith(".build-")], "no staging directory is left"


def test_the_image_carries_none_of_hils_programs_but_the_xmodem_receiver_that_deploys_them(built):
    _, first, _ = built
    listing = set(
        subprocess.run(
            ["cpio", "-it", "--quiet"], stdin=first.initramfs.open("rb"), capture_output=True, text=True, check=True
        ).stdout.split()
    )
    assert "usr/bin/rz" in listing
    assert not {f"usr/bin/{name}" for name in programs.names()} & listing
    assert not [name for name in listing if name.endswith(f"{SUPERSPEED_SHIM}.so")]


def test_the_image_carries_the_utf16_converter_libmtp_loads_at_run_time(built):
    _, first, _ = built
    listing = subprocess.run(
        ["cpio", "-it", "--quiet"], stdin=first.initramfs.open("rb"), capture_output=True, text=True, check=True
    ).stdout.split()
    gconv = image.GCONV_DIR.relative_to("/")
    assert {f"{gconv}/UTF-16.so", f"{gconv}/gconv-modules"} <= set(listing)
    config = subprocess.run(
        ["cpio", "-i", "--quiet", "--to-stdout", f"{gconv}/gconv-modules"],
        stdin=first.initramfs.open("rb"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "UTF-16LE//" in config and all(line.split()[0] in ("alias", "module") for line in config.splitlines())


def test_a_second_call_reuses_the_image(built):
    cache, first, log = built
    manifest_before = (first.directory / "manifest.json").stat()
    lines = len(log)
    again = image.ensure_image(cache, log=log.append)
    assert again.directory == first.directory
    assert again.manifest == first.manifest
    assert (first.directory / "manifest.json").stat().st_mtime_ns == manifest_before.st_mtime_ns
    assert len(log) == lines, "nothing was built, so nothing was logged"
    assert [p.name for p in cache.iterdir() if not p.name.startswith(".")] == [first.directory.name]
