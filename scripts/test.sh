#!/usr/bin/env bash
# Set up, then check the framework itself: lint, unit tests, and tests that boot the virtual lab
# (gadgets, error paths, a short suite run). Reports of this run go to reports/selftest/.
#
#   bash scripts/test.sh          everything: set-up, lint, the docs, the unit and slow tests on both cores (-n 2),
#                                 then the lab tests in one process (reports/selftest/junit.xml: all of them)
#   bash scripts/test.sh --quick  the inner loop: lint and the unit tests on both cores (no board, no suite
#                                 run, no service; no set-up unless .venv is missing; the parser fuzzing
#                                 with 500 inputs per parser, HIL_PARSER_FUZZ=quick)
#   bash scripts/test.sh --lab    the lab tests alone (boots, suite runs, wheel, Jenkins, services), one process
#
# Which test is which: the `lab`, `slow` and `unit` markers tests/conftest.py sets. Other arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all
args=()
for arg in "$@"; do
    case "$arg" in
        --quick | --lab)
            if [ "$mode" != all ]; then
                echo "usage: scripts/test.sh [--quick | --lab] [pytest's options]" >&2
                exit 2
            fi
            mode=${arg#--}
            ;;
        *) args+=("$arg") ;;
    esac
done

if [ "$mode" != quick ] || [ ! -x .venv/bin/pytest ]; then
    bash scripts/setup.sh --bench
fi
if [ "$mode" != lab ]; then
    .venv/bin/ruff check .
    .venv/bin/ruff format --check .
fi
if [ "$mode" = all ]; then
    # The documentation site, warnings as errors (a broken link or a page left out of the nav fails here).
    .venv/bin/mkdocs build --strict --quiet
fi

out=reports/selftest
# --durations: the slowest tests in the log, where CI time goes.
unit() {  # unit() MARKERS ...: on both cores
    .venv/bin/pytest tests -m "$1" -n 2 --durations=10 \
        --html="$out/unit/report.html" --junitxml="$out/unit/junit.xml" --hil-reports "$out/unit" "${@:2}"
}
lab() {
    # One process: the lab tests share one board (and one bench, one coordinator) at a time, and a board on the
    # real clock measures the PC's load as much as itself.
    .venv/bin/pytest tests -m lab --durations=25 \
        --html="$out/lab/report.html" --junitxml="$out/lab/junit.xml" --hil-reports "$out/lab" "$@"
}

case "$mode" in
    quick)
        # The parser fuzzing with 500 inputs per parser instead of 10 000 (tests/measure/test_parser_fuzz.py,
        # test_parser_validity.py): the full count is what the whole run and CI check.
        HIL_PARSER_FUZZ=${HIL_PARSER_FUZZ:-quick} unit "not lab and not slow" "${args[@]}"
        ;;
    lab) lab "${args[@]}" ;;
    all)
        status=0
        unit "not lab" "${args[@]}" || status=$?
        lab "${args[@]}" || status=$((status ? status : $?))
        # One JUnit file of the whole run, as Jenkins reads it (reports/selftest/junit.xml).
        .venv/bin/python scripts/junit_merge.py "$out/junit.xml" "$out/unit/junit.xml" "$out/lab/junit.xml"
        exit "$status"
        ;;
esac
