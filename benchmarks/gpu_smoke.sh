#!/usr/bin/env bash
# One GPU smoke check for a session that has a lent GPU (NVIDIA or AMD): doctor, then a single-process
# bf16 LoRA smoke run on cuda (= ROCm GPUs too), reports into $OUT.  Run once from the repo root:
#     OUT=/some/dir bash benchmarks/gpu_smoke.sh
# Needs a torch build with GPU support in .venv (or PYTHON=...).  About a minute: torch import, 50 steps.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/porter-gpu-smoke}
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
mkdir -p "$OUT"
"$PY" -m porter doctor --json "$OUT/doctor.json" > "$OUT/doctor.txt" 2>&1
"$PY" -c "import torch; print(torch.__version__, torch.version.cuda, torch.version.hip, torch.cuda.is_available())" \
    > "$OUT/torch.txt" 2>&1
timeout 300 "$PY" -m porter smoke --device cuda --dtype bf16 --steps 50 --json "$OUT/smoke_bf16.json" \
    > "$OUT/smoke_bf16.txt" 2>&1
rc=$?
# a larger per-step workload, so the achieved TFLOP/s is not all launch overhead
timeout 300 "$PY" -m porter smoke --device cuda --dtype bf16 --steps 30 --batch-size 32 --seq-len 512 \
    --json "$OUT/smoke_bf16_b32.json" > "$OUT/smoke_bf16_b32.txt" 2>&1
echo "smoke exit $rc (0 pass, 1 fail)"; tail -n 12 "$OUT/smoke_bf16.txt"; tail -n 3 "$OUT/smoke_bf16_b32.txt"
exit $rc
