#!/usr/bin/env bash
# COMET and MetricX on the GPU torch sees, against comet-score and Google's metricx24.predict on the same GPU: the same
# numbers within each mode's tolerance, and the ratios (benchmarks/bench_gpu.py says what runs; docs/speed.md holds a
# run's output). Without a GPU it runs the same on the CPU (the tests run it so, at --shape tiny).
#
#   bash benchmarks/gpu.sh [bench_gpu.py options: --shape large|tiny, --systems 8, --lines 1002, --data DIR, ...]
#
# Interpreters: CORE_PYTHON runs mtlens (default .venv/bin/python, else python3); MTLENS_NEURAL_PYTHON runs COMET,
# MetricX, comet-score and Google's runner (default .venv-neural/bin/python, else python3): one Python with torch,
# transformers 4.x and unbabel-comet serves for both. WHEELS=DIR first installs the wheels in DIR into the neural
# interpreter's own environment (a machine without the package registries: unbabel-comet, transformers 4.57 and their
# needs, docs/speed.md), not into a folder on PYTHONPATH: mtlens's workers run isolated (python -I).
set -euo pipefail
cd "$(dirname "$0")/.."
pick() { if [ -n "$1" ]; then echo "$1"; elif [ -x "$2" ]; then echo "$PWD/$2"; else command -v python3; fi; }
CORE_PYTHON=$(pick "${CORE_PYTHON:-}" .venv/bin/python)
MTLENS_NEURAL_PYTHON=$(pick "${MTLENS_NEURAL_PYTHON:-}" .venv-neural/bin/python)
export MTLENS_NEURAL_PYTHON
if [ -n "${WHEELS:-}" ]; then
  "$MTLENS_NEURAL_PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir "$WHEELS"/*.whl
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi: the CPU path"
exec "$CORE_PYTHON" benchmarks/bench_gpu.py "$@"
