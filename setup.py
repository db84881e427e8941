"""The one thing pyproject.toml cannot say: the stock suite, `testcases/` in the repository, is the package
`hil_testcases` in the distribution (`pytest --pyargs hil_testcases`, `hil run`). Everything else is in
pyproject.toml."""

from setuptools import find_namespace_packages, find_packages, setup

STOCK_SUITE = "hil_testcases"

setup(
    packages=[
        *find_namespace_packages(include=["hil", "hil.*"]),  # as packages.find did: data folders too
        *(STOCK_SUITE + name.removeprefix("testcases") for name in find_packages(include=["testcases", "testcases.*"])),
    ],
    package_dir={STOCK_SUITE: "testcases"},
)
