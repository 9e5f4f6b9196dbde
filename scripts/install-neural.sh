#!/usr/bin/env bash
# Install the optional neural extra (COMET) into its own environment, .venv-neural.
#   bash scripts/install-neural.sh
# MTLENS_WITH_RAY=1 adds Ray (requirements-ray.txt), for neural jobs on a Ray cluster.
# MTLENS_TORCH chooses torch (default: torch, the build pip finds; on a GPU machine the CUDA build).
# mtlens finds .venv-neural by itself; MTLENS_NEURAL_PYTHON names another interpreter instead.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv-neural/bin/python ]; then
  "$PY" -m venv .venv-neural
fi
.venv-neural/bin/python -m pip install --quiet --upgrade pip
.venv-neural/bin/python -m pip install --quiet "${MTLENS_TORCH:-torch}"
.venv-neural/bin/python -m pip install --quiet -r requirements-neural.txt
if [ "${MTLENS_WITH_RAY:-0}" = "1" ]; then  # neural jobs on a Ray cluster (docs/deploy.md)
  .venv-neural/bin/python -m pip install --quiet -r requirements-ray.txt
fi
.venv-neural/bin/python -I -c "import comet, torch; print('neural extra ready: unbabel-comet', comet.__version__, '· torch', torch.__version__, '· GPU' if torch.cuda.is_available() else '· CPU')"
