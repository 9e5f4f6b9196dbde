#!/usr/bin/env bash
# Pearmut (zouharvi/pearmut, the annotation tool) in its own environment, .venv-pearmut: the tests load the campaigns
# mtlens exports in Pearmut itself and read its annotations back (tests/neural/test_campaign.py). Pearmut needs
# Python 3.12 or newer: the first python3.13 / python3.12 found on the PATH or among pyenv's versions
# (PEARMUT_PYTHON_BASE names another).
#   bash scripts/install-pearmut.sh
set -euo pipefail
cd "$(dirname "$0")/.."
find_python() {
  for v in 3.13 3.12; do
    if command -v "python$v" >/dev/null 2>&1 && "python$v" -c "" >/dev/null 2>&1; then
      command -v "python$v"; return
    fi
    for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v"*/bin/"python$v"; do
      if [ -x "$p" ]; then echo "$p"; return; fi
    done
  done
}
PY=${PEARMUT_PYTHON_BASE:-$(find_python)}
if [ -z "$PY" ]; then
  echo "Pearmut needs Python 3.12 or newer, and none was found (set PEARMUT_PYTHON_BASE)" >&2
  exit 1
fi
if [ ! -x .venv-pearmut/bin/python ]; then
  "$PY" -m venv .venv-pearmut
fi
.venv-pearmut/bin/python -m pip install --quiet -r requirements-pearmut.txt
.venv-pearmut/bin/python -I -c "import importlib.metadata as m; print('pearmut ready:', m.version('pearmut'))"
