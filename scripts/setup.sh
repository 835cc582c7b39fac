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
  # clang-19/lld-19/llvm-19 (Debian 12 main): gfx942 (MI300X) code generation over the same ROCm 5.2
  # headers and device libraries, which hipcc 5.2 (clang 15) cannot do; g++ and ninja-build:
  # torch.utils.cpp_extension builds a project's extension for `porter smoke --project` (and its tests);
  # iproute2: the two-host smoke test (two network namespaces joined by a veth pair)
  pkgs=(hipcc libamdhip64-dev rocm-device-libs libhipsparse-dev librocsparse-dev libhiprand-dev librocrand-dev librocprim-dev cmake make tmux
        clang-19 lld-19 llvm-19 g++ ninja-build iproute2)
  # libomp-19-dev: the OpenMP runtime clang-19 links for a Makefile's -fopenmp (HeCBench's host reference
  # loops); Debian installs one libomp-N-dev at a time, so one already there (e.g. libomp-15-dev, hipcc 5.2's)
  # is left as it is rather than replaced
  dpkg-query -W -f='${Status} ${Package}\n' 'libomp-*-dev' 2>/dev/null | grep -q '^install ok installed' \
    || pkgs+=(libomp-19-dev)
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
  # the tests also run the Hugging Face smoke path (transformers + peft, on a tiny model the test
  # builds: no download); the constraint keeps the torch installed above, whatever peft would like
  tv=$(.venv/bin/python -c 'import torch; print(torch.__version__.split("+")[0])')
  .venv/bin/python -m pip install -q -e '.[test,hf]' "torch==$tv"
  # and the LLaMA-Factory backend, in .venv-lf (LLaMA-Factory 0.9.3 needs numpy<2): the tests train a tiny
  # model through llamafactory-cli; about 1.5 minutes and 2.3 GB (its own torch of the same version)
  bash scripts/setup_llamafactory.sh .venv-lf
  # the headers of hipBLAS, hipSOLVER, hipFFT, rocBLAS and rocSOLVER (Debian 12 packages none), for the tests that
  # compile ports against them: Debian 13's -dev .deb files, pinned by SHA256, extracted into .test-headers/
  # (nothing installed, no root needed; nothing fetched when present). Under PORTER_REQUIRE_LIBRARY_HEADERS=1 (CI)
  # a failure stops here; elsewhere those tests skip
  if ! timeout 600 .venv/bin/python scripts/fetch_library_headers.py; then
    if [ "${PORTER_REQUIRE_LIBRARY_HEADERS:-}" = 1 ]; then
      echo "porter: could not fetch the library headers (scripts/fetch_library_headers.py), required here" >&2
      exit 1
    fi
    echo "porter: could not fetch the library headers (scripts/fetch_library_headers.py): their compile checks will skip" >&2
  fi
else
  .venv/bin/python -m pip install -q -e .
fi
# the device-library folder clang-19 needs for gfx942 (porter's cache, never /usr; idempotent)
.venv/bin/python -c 'import sys; from porter.build.devicelibs import main; sys.exit(main())' || echo "porter: could not prepare the gfx942 device libraries (porter doctor says why)" >&2
