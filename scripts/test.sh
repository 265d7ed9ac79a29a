#!/usr/bin/env bash
# The test command: installs what it needs, then lint (ruff), types (mypy), the layer contract (lint-imports) and the
# test suite (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Headless Chromium for the HTML-report browser test (Debian package); skipped quietly where apt is unavailable.
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "warning: could not install chromium; browser tests will be skipped"
fi
V=${EVENHAND_VENV:-.venv}/bin
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1
echo "==> ruff";  "$V/ruff" check evenhand evenhand_training scripts tests benchmarks
echo "==> mypy";  "$V/mypy" evenhand evenhand_training
# The layer contract ([tool.importlinter] in pyproject.toml, docs/architecture.md); --no-cache writes nothing here.
echo "==> lint-imports"; "$V/lint-imports" --no-cache
echo "==> pytest"
set +e
"$V/python" -m pytest "$@"
rc=$?
set -e
# Exit code 5 means "no tests collected": not a failure in itself.
if [ "$rc" = 5 ]; then rc=0; fi
exit "$rc"
