#!/usr/bin/env bash
# Set up, then run the performance suite (testcases/) on the board pairs of boards.yaml; by default the
# virtual lab. Results: reports/report.html, reports/junit.xml, reports/results.json, reports/trend.html.
# Extra arguments go to pytest, e.g. `scripts/suite.sh --board vlab-ss -k read`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/pytest testcases "$@"
