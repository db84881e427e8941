"""The MJPEG frames of hil's cameras (uvc_source and uvc_gadgetfs) are real JPEGs: their shared generator
(hil/tools/uvc_frames.h) is compiled into a small harness on the PC and what it writes is decoded by Pillow."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

HEADER = Path(__file__).resolve().parents[2] / "hil" / "tools" / "uvc_frames.h"
HARNESS = f"""
#include <stdlib.h>
#include "{HEADER}"
int main(int argc, char **argv)
{{
	static uint8_t out[1 << 20];
	size_t n;

	(void)argc;
	n = uvc_frame(out, sizeof(out), 1, (unsigned)atoi(argv[1]), (unsigned)atoi(argv[2]), (uint32_t)atoi(argv[3]));
	return n == 0 || fwrite(out, 1, n, stdout) != n;
}}
"""


@pytest.fixture(scope="module")
def generator(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.fail("gcc is missing: the virtual lab image needs it too (scripts/setup.sh installs it)")
    work = tmp_path_factory.mktemp("uvc_source")
    (work / "harness.c").write_text(HARNESS)
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", str(work / "harness"), str(work / "harness.c")], check=True)
    return work / "harness"


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1920, 1080), (642, 482)])
def test_mjpeg_frames_decode_to_a_flat_grey_picture_of_the_size(generator, width, height):
    data = subprocess.run([str(generator), str(width), str(height), "7"], capture_output=True, check=True).stdout
    assert data[:2] == b"\xff\xd8" and data[-2:] == b"\xff\xd9", "SOI and EOI, as v4l2_fps checks"
    image = Image.open(io.BytesIO(data))
    assert (image.format, image.size, image.mode) == ("JPEG", (width, height), "L")
    image.load()  # decodes every block: a broken scan raises here
    assert image.getextrema() == (128, 128)
    assert image.info.get("comment") == b"hil frame     7"
