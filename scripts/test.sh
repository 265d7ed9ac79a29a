#!/usr/bin/env bash
# The test command: installs what it needs, then lint (ruff), types (mypy), the layer contract (lint-imports) and the
# test suite (pytest), in parallel on this machine's cores (pytest-xdist). Arguments go on to pytest; among them:
#   --fast   the developer's loop (tests/conftest.py): leaves out the tests marked by cost (model, subprocess, ray,
#            server, slow, pipeline: pyproject.toml), that is every test that loads a model, starts a process or a
#            Ray cluster, waits on a server in real time, computes for seconds or runs a whole assessment, and runs
#            each property test with at most 10 examples: 3,714 tests in 107 s on 2 idle cores (2026-11-29).
#            Without it, the whole suite: what CI runs (.ci/run), 4,411 tests, about 8 min on 2 idle cores
#            (2026-11-29: pytest 7 min 52 s in the clean-clone CI run of the merged tree, 4,411 tests).
# EVENHAND_TEST_WORKERS sets the number of pytest workers (default: the CPUs this process may use, at most 4; 0 or 1
# runs the tests in the pytest process itself); `-n N` among the arguments wins over it.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
for arg in "$@"; do
  if [ "$arg" = "--fast" ]; then fast=1; fi
done
bash scripts/setup.sh
# Headless Chromium for the HTML-report browser test (Debian package); skipped quietly where apt is unavailable.
if [ "$fast" = 0 ] && ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
  && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "warning: could not install chromium; browser tests will be skipped"
fi
V=${EVENHAND_VENV:-.venv}/bin
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1
echo "==> ruff";  "$V/ruff" check evenhand evenhand_entry.py evenhand_training scripts tests benchmarks
echo "==> mypy";  "$V/mypy" evenhand evenhand_entry.py evenhand_training
# The layer contract ([tool.importlinter] in pyproject.toml, docs/architecture.md); --no-cache writes nothing here.
echo "==> lint-imports"; "$V/lint-imports" --no-cache
# Workers (--dist loadgroup): a module with a module- or session-scoped fixture runs whole on one worker, and the Ray
# modules one after another (pytest_xdist_make_scheduler in tests/conftest.py). The slowest tests are listed at the
# end, so a slow newcomer is seen.
cpus=$(nproc 2>/dev/null || echo 2)
workers=${EVENHAND_TEST_WORKERS:-$((cpus < 4 ? cpus : 4))}
if [ "$workers" -le 1 ]; then workers=0; fi
echo "==> pytest$([ "$fast" = 1 ] && echo ' --fast') ($workers workers)"
set +e
"$V/python" -m pytest -n "$workers" --dist loadgroup --durations=25 "$@"
rc=$?
set -e
# Exit code 5 means "no tests collected": not a failure in itself.
if [ "$rc" = 5 ]; then rc=0; fi
exit "$rc"
