#!/usr/bin/env bash
# The main job: an end-to-end, fully offline demo assessment. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec "${EVENHAND_VENV:-.venv}/bin/evenhand" demo "$@"
