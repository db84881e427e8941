"""`--boards PATH` (any hil option with a path, space form): give pytest back its rootdir and ini file.

pytest finds its rootdir and ini file before it knows any plugin's options, so in `--boards PATH` it takes PATH
for a test path: the rootdir moves to PATH's directory and the repository's pytest.ini is ignored
(`--boards=PATH` is not affected). Once hil's options are known (pytest_load_initial_conftests), the discovery
is redone without PATH and the right ini file's addopts replace the wrong one's. It uses pytest internals:
pyproject.toml pins pytest, and tests/test_rootdir.py fails if a new pytest breaks this.
"""

from __future__ import annotations

import copy

import pytest
from _pytest.config.findpaths import determine_setup

PATH_OPTIONS = ("--boards", "--hil-reports")


def repair(config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    head = args[: args.index("--")] if "--" in args[:-1] else args[:-1]  # where `option VALUE` may stand
    if not any(option in head for option in PATH_OPTIONS):
        return
    ns = config.known_args_namespace  # parsed with hil's options known: PATH is no test path here
    rootpath, inipath, inicfg, ignored = determine_setup(
        inifile=ns.inifilename,
        override_ini=ns.override_ini,
        args=ns.file_or_dir,
        rootdir_cmd_arg=ns.rootdir or None,
        invocation_dir=config.invocation_params.dir,
    )
    if (rootpath, inipath) == (config.rootpath, config.inipath):
        return
    wrong_addopts = list(config.getini("addopts"))
    config._rootpath = rootpath  # type: ignore[attr-defined]
    config._inipath = inipath  # type: ignore[attr-defined]
    config._inicfg = inicfg  # type: ignore[attr-defined]
    config._ignored_config_files = ignored  # type: ignore[attr-defined]
    config._inicache.clear()  # type: ignore[attr-defined]
    parser.extra_info["rootdir"] = str(rootpath)
    parser.extra_info["inifile"] = str(inipath)
    if wrong_addopts and args[: len(wrong_addopts)] == wrong_addopts:
        del args[: len(wrong_addopts)]
    args[:0] = config.getini("addopts")
    config.known_args_namespace = parser.parse_known_args(args, namespace=copy.copy(config.option))
    config.known_args_namespace.confcutdir = str(inipath.parent if inipath else rootpath)
