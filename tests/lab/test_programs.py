"""hil/tools built per architecture with its Makefile: cached by content, rebuilt on a change, and a binary of
another architecture refused by name (real compilers, real ELF files)."""

from __future__ import annotations

import shutil

import pytest

from hil import programs, rootfs
from hil.errors import LabError


@pytest.fixture
def sources(tmp_path, monkeypatch):
    """A copy of hil/tools the test may change."""
    copy = tmp_path / "tools"
    shutil.copytree(programs.SOURCE_DIR, copy)
    monkeypatch.setattr(programs, "SOURCE_DIR", copy)
    return copy


def test_each_program_and_library_is_built_for_the_boards_architecture(tmp_path):
    build = programs.build("aarch64", root=tmp_path)
    assert set(build.files) == {f"bin/{n}" for n in programs.names()} | {f"lib/{n}.so" for n in programs.libraries()}
    assert {rootfs.elf_machine(path) for path in build.files.values()} == {183}  # EM_AARCH64
    assert build.directory.name == f"aarch64-{build.digest}"


def test_an_unchanged_source_reuses_the_build_and_a_changed_one_builds_again(tmp_path, sources):
    first = programs.build("x86_64", root=tmp_path)
    assert programs.build("x86_64", root=tmp_path) == first
    source = sources / "v4l2_fps.c"
    source.write_text(source.read_text() + "\n/* changed */\n")
    second = programs.build("x86_64", root=tmp_path)
    assert second.digest != first.digest and second.directory.is_dir()


def test_a_binary_of_another_architecture_in_the_build_is_refused(tmp_path):
    build = programs.build("aarch64", root=tmp_path)
    x86 = programs.build("x86_64", root=tmp_path)
    shutil.copy(x86.files["bin/v4l2_fps"], build.files["bin/v4l2_fps"])
    with pytest.raises(
        LabError, match=r"v4l2_fps is not an aarch64 binary \(ELF machine 62, aarch64 is 183\): refused"
    ):
        programs.build("aarch64", root=tmp_path)


def test_a_source_that_does_not_build_is_an_error_with_the_compilers_words(tmp_path, sources):
    (sources / "broken.c").write_text("int main(void) { return undefined_name; }\n")
    with pytest.raises(LabError, match=r"(?s)does not build with .*undefined_name"):
        programs.build("x86_64", root=tmp_path)


def test_an_architecture_without_a_compiler_is_named():
    with pytest.raises(LabError, match=r"architecture 'mips' \(`uname -m`\)"):
        programs.compiler_for("mips")
