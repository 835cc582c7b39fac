#!/usr/bin/env bash
# Set up porter on a fresh Debian 12 / Ubuntu machine: system packages, a virtual
# environment in .venv, a CPU build of torch (never replaces a ROCm torch you
# already have in another environment), and porter itself in editable mode.
#   bash scripts/setup.sh          # run porter
#   bash scripts/setup.sh --test   # also the test tools
set -euo pipefail
cd "$(dirname "$0")/.."
want_test=0
[ "${1:-}" = "--test" ] && want_test=1

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  pkgs=(hipcc libamdhip64-dev rocm-device-libs libhipsparse-dev libhiprand-dev librocrand-dev librocprim-dev cmake make tmux)
  missing=()
  for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
  fi
fi

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
# torch first, pinned to the CPU build, so nothing below pulls a CUDA build.
.venv/bin/python -c 'import torch' 2>/dev/null || .venv/bin/python -m pip install -q torch==2.13.0
if [ $want_test = 1 ]; then
  .venv/bin/python -m pip install -q -e '.[test]'
else
  .venv/bin/python -m pip install -q -e .
fi
