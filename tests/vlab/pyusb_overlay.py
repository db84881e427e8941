"""The virtual board with Python, pyusb and libusb on it, for tests/vlab/test_pyusb_vlab.py only.

The suite's image has no Python (a board never runs hil). This test needs one to run hil's pyusb check
against the board's own USB devices, so it boots the cached image with a second cpio archive appended
(the kernel unpacks concatenated archives in order): this PC's python3.11 with its standard library
(minus what the check never imports), its libusb-1.0 and libraries, pyusb from hil's environment, and the
few hil modules the check imports. Everything goes below /usr and /opt: the image's /lib is a symlink.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import usb

from hil.rootfs import write_cpio
from hil.vlab.image import VlabImage, _shared_libraries

REPO = Path(__file__).resolve().parents[2]
PYTHON = Path("/usr/bin/python3.11")
STDLIB = Path("/usr/lib/python3.11")
LIBUSB = Path("/lib/x86_64-linux-gnu/libusb-1.0.so.0")
# Large parts of the standard library the check never imports.
NOT_NEEDED = {
    "test",
    "idlelib",
    "tkinter",
    "turtledemo",
    "ensurepip",
    "lib2to3",
    "pydoc_data",
    "distutils",
    "site-packages",
    "dist-packages",
    "unittest",
    "asyncio",
    "email",
    "http",
    "sqlite3",
    "xmlrpc",
    "wsgiref",
    "curses",
    "dbm",
    "venv",
}
HIL_MODULES = ("hil/__init__.py", "hil/errors.py", "hil/lab/__init__.py", "hil/lab/usb_host/pyusb_enumeration.py")
SITE = "/opt/hil-pyusb"  # PYTHONPATH on the board
GUEST_SCRIPT = f"{SITE}/pyusb_guest.py"


def _put(source: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, dest)


def _under_usr(library: str) -> str:
    """/lib/x86_64-linux-gnu/libc.so.6 -> usr/lib/x86_64-linux-gnu/libc.so.6 (the image's /lib is usr/lib)."""
    path = library.lstrip("/")
    return path if path.startswith("usr/") else f"usr/{path}"


def build(root: Path) -> None:
    libraries = _shared_libraries(PYTHON) | _shared_libraries(LIBUSB) | {str(LIBUSB.resolve())}
    _put(PYTHON, root / "usr/bin/python3.11")
    for item in STDLIB.iterdir():
        if item.name in NOT_NEEDED or item.name.startswith("config-"):
            continue
        if item.is_dir():
            shutil.copytree(item, root / "usr/lib/python3.11" / item.name, symlinks=True)
        else:
            _put(item, root / "usr/lib/python3.11" / item.name)
    for extension in (STDLIB / "lib-dynload").glob("*.so"):
        libraries |= _shared_libraries(extension)
    for library in sorted(libraries):
        _put(Path(library), root / _under_usr(library))
    _put(LIBUSB.resolve(), root / _under_usr(str(LIBUSB)))  # the soname the loader looks for
    shutil.copytree(Path(usb.__file__).parent, root / SITE.lstrip("/") / "usb")
    for module in HIL_MODULES:
        _put(REPO / module, root / SITE.lstrip("/") / module)
    _put(Path(__file__).with_name("pyusb_guest.py"), root / GUEST_SCRIPT.lstrip("/"))


def image_with_python(base: VlabImage, directory: Path) -> Path:
    """A directory laid out like a vlab image (vmlinuz, initramfs.cpio): the base image plus the overlay."""
    root = directory / "overlay-root"
    build(root)
    overlay = directory / "overlay.cpio"
    write_cpio(root, overlay)
    shutil.rmtree(root)
    image = directory / "image"
    image.mkdir()
    (image / "vmlinuz").symlink_to(base.kernel)
    with (image / "initramfs.cpio").open("wb") as combined:
        for part in (base.initramfs, overlay):
            with part.open("rb") as source:
                shutil.copyfileobj(source, combined)
    overlay.unlink()
    return image
