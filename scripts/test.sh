#!/usr/bin/env bash
# Install everything the test suite needs and run it (the README's test command).
#   bash scripts/test.sh [extra pytest arguments]
# Creates .venv (if missing), installs requirements-dev.txt, the neural extra (.venv-neural, for the COMET and MetricX
# tests, with Google's MetricX runner's packages),
# Pearmut (.venv-pearmut) and transformers serve (.venv-serve, the LLM judges' end-to-end test), installs Debian's
# chromium (browser tests) and postgresql (the store's tests on a real server) when they are missing (needs
# root/apt), then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# the neural extra (with Ray, for the tests of jobs on a local Ray cluster), in its own environment while
# the core one installs: this
# machine's CPU build of torch (a plain 'torch' would fetch a CUDA build of several GB); MTLENS_TORCH
# chooses another
MTLENS_WITH_RAY=1 MTLENS_TORCH=${MTLENS_TORCH:-torch==2.13.0} bash scripts/install-neural.sh > .venv-neural.log 2>&1 &
neural=$!
.venv/bin/python -m pip install --quiet -r requirements-dev.txt
# Microsoft's GEMBA, the oracle of the LLM judges' prompts and parsing (tests/judges): without its dependencies, whose
# 'eval' extra pulls the look-alike mt-metrics-eval package
.venv/bin/python -m pip install --quiet --no-deps gemba==0.1.3
# prometheus-eval, the oracle of the M-Prometheus judge's parsing and system prompt (tests/judges/test_prometheus.py): its
# parser and prompts modules are plain Python; without its dependencies (vllm, litellm), which the oracle never needs
.venv/bin/python -m pip install --quiet --no-deps prometheus-eval==0.1.20
# Pearmut (Python 3.12+), for the tests that load mtlens's annotation campaigns in it
if ! bash scripts/install-pearmut.sh > .venv-pearmut.log 2>&1; then
  echo "installing Pearmut failed (its tests will say so):" >&2
  tail -5 .venv-pearmut.log >&2
fi
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "installing Debian's chromium for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "note: /usr/bin/chromium is missing and cannot be installed without root; browser tests will say so" >&2
  fi
fi
# Debian's PostgreSQL server for the store's tests (a real server started on loopback by the tests)
if ! command -v initdb >/dev/null && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "installing Debian's postgresql for the store's tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else
    echo "note: PostgreSQL (initdb) is missing and cannot be installed without root; its tests will say so" >&2
  fi
fi
if ! wait "$neural"; then
  echo "installing the neural extra failed (the COMET tests will say so):" >&2
  tail -5 .venv-neural.log >&2
fi
tail -1 .venv-neural.log
# Google's MetricX-24 runner (the MetricX tests' oracle, vendored in tests/neural/google_metricx) reads its input with
# datasets and predicts through transformers' Trainer (accelerate): test-only packages, into the neural environment
if [ -x .venv-neural/bin/python ] && ! .venv-neural/bin/python -m pip install --quiet -r requirements-metricx-oracle.txt \
    >> .venv-neural.log 2>&1; then
  echo "installing Google's MetricX runner's packages failed (its tests will say so):" >&2
  tail -5 .venv-neural.log >&2
fi
# transformers serve (its own environment), for the LLM judges' end-to-end test: after the neural extra, whose torch
# wheel it takes from pip's cache
if bash scripts/install-serve.sh > .venv-serve.log 2>&1; then
  tail -1 .venv-serve.log
else
  echo "installing transformers serve failed (its test will say so):" >&2
  tail -5 .venv-serve.log >&2
fi
# the suite runs on every core up to 4 (pytest-xdist; each worker builds its own session fixtures: the tiny checkpoints,
# a PostgreSQL server, a Ray cluster); a worker that runs out of tests takes queued ones from a busy worker (work
# stealing); MTLENS_TEST_WORKERS=0 runs it in one process (docs/testing.md)
workers=${MTLENS_TEST_WORKERS:-$(.venv/bin/python -c 'import os; print(min(4, len(os.sched_getaffinity(0))))')}
exec .venv/bin/python -m pytest -n "$workers" --dist worksteal "$@"
