#!/usr/bin/env bash
# Set up, then check the framework itself: lint, unit tests, and tests that boot the virtual lab
# (gadgets, error paths, a short suite run). Reports of this run go to reports/selftest/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --bench
.venv/bin/ruff check .
.venv/bin/ruff format --check .
# The documentation site, warnings as errors (a broken link or a page left out of the nav fails here).
.venv/bin/mkdocs build --strict --quiet
# --durations: the slowest tests in the log, where CI time goes.
exec .venv/bin/pytest tests --durations=25 \
    --html=reports/selftest/report.html --junitxml=reports/selftest/junit.xml --hil-reports reports/selftest "$@"
