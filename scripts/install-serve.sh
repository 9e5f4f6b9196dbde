#!/usr/bin/env bash
# Hugging Face's `transformers serve` (an OpenAI-compatible server mtlens did not write) in its own environment,
# .venv-serve: the end-to-end test of the LLM judges serves a tiny model built offline with it, on loopback
# (tests/judges/test_serve.py).
#   bash scripts/install-serve.sh
# MTLENS_TORCH chooses torch (default: the CPU build scripts/test.sh also gives the neural extra).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv-serve/bin/python ]; then
  "$PY" -m venv .venv-serve
fi
.venv-serve/bin/python -m pip install --quiet --upgrade pip
.venv-serve/bin/python -m pip install --quiet "${MTLENS_TORCH:-torch==2.13.0}"
.venv-serve/bin/python -m pip install --quiet -r requirements-serve.txt
.venv-serve/bin/transformers serve --help > /dev/null
.venv-serve/bin/python -I -c "import transformers; print('transformers serve ready:', transformers.__version__)"
