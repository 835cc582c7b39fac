#!/usr/bin/env bash
# One GPU smoke check for a session that has a lent GPU (NVIDIA or AMD): doctor, a single-process bf16 LoRA
# smoke run on cuda (= ROCm GPUs too), then sample_projects/torch_ext with its own kernels in the loop
# (`porter smoke --project`: on NVIDIA the CUDA original, on ROCm the HIP port from `porter convert`).
# Reports into $OUT.  Run once from the repo root:
#     OUT=/some/dir bash benchmarks/gpu_smoke.sh
# Needs a torch build with GPU support in .venv (or PYTHON=...); the torch_ext part also needs the toolkit
# torch.utils.cpp_extension builds with (nvcc under CUDA_HOME, or ROCm's hipcc) and ninja, and says so when
# they are missing.  About 5 minutes: torch import, 50 + 30 steps, the extension build for this GPU's arch only
# (cached in $PORTER_SMOKE_BUILD_CACHE, default ~/.cache/porter/smoke-ext), 2 x 30 steps.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/porter-gpu-smoke}
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
CACHE=${PORTER_SMOKE_BUILD_CACHE:-$HOME/.cache/porter/smoke-ext}
mkdir -p "$OUT" "$CACHE"
"$PY" -m porter doctor --json "$OUT/doctor.json" > "$OUT/doctor.txt" 2>&1
"$PY" -c "import torch; print(torch.__version__, torch.version.cuda, torch.version.hip, torch.cuda.is_available())" \
    > "$OUT/torch.txt" 2>&1
timeout 180 "$PY" -m porter smoke --device cuda --dtype bf16 --steps 50 --json "$OUT/smoke_bf16.json" \
    > "$OUT/smoke_bf16.txt" 2>&1
rc=$?
# a larger per-step workload, so the achieved TFLOP/s is not all launch overhead
timeout 180 "$PY" -m porter smoke --device cuda --dtype bf16 --steps 30 --batch-size 32 --seq-len 512 \
    --json "$OUT/smoke_bf16_b32.json" > "$OUT/smoke_bf16_b32.txt" 2>&1

# torch_ext with its ops swapped into the model: build (this GPU's arch only, MAX_JOBS = all cores), parity,
# reference and port runs from the same seed
flavour=$("$PY" -c "
import shutil, torch
from torch.utils import cpp_extension as c
if torch.version.hip:
    print('rocm' if c.ROCM_HOME and shutil.which('ninja') else 'missing: ROCm (ROCM_HOME) or ninja for the HIP build')
elif torch.version.cuda:
    print('cuda' if c.CUDA_HOME and shutil.which('ninja') else 'missing: nvcc (CUDA_HOME) or ninja for the CUDA build')
else:
    print('missing: a GPU build of torch')" 2>&1 | tail -n 1)
project=sample_projects/torch_ext
if [ "$flavour" = rocm ]; then
  rm -rf "$OUT/torch_ext_hip"
  "$PY" -m porter convert sample_projects/torch_ext -o "$OUT/torch_ext_hip" > "$OUT/convert_torch_ext.txt" 2>&1
  project=$OUT/torch_ext_hip
fi
if [ "$flavour" = cuda ] || [ "$flavour" = rocm ]; then
  MAX_JOBS=$(nproc) timeout 360 "$PY" -m porter smoke --project "$project" --device cuda --steps 30 --timeout 300 \
      --build-cache "$CACHE" --json "$OUT/smoke_torch_ext.json" > "$OUT/smoke_torch_ext.txt" 2>&1
  rc_ext=$?
else
  echo "torch_ext: not run: $flavour" > "$OUT/smoke_torch_ext.txt"
  rc_ext=skipped
fi

echo "smoke exit $rc (0 pass, 1 fail)"; tail -n 12 "$OUT/smoke_bf16.txt"; tail -n 3 "$OUT/smoke_bf16_b32.txt"
echo "torch_ext --project exit $rc_ext (0 pass, 1 fail, 3 port not exercised)"
if [ -f "$OUT/smoke_torch_ext.json" ]; then
  "$PY" - "$OUT/smoke_torch_ext.json" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
port = rep.get("port") or {}
for e in port.get("extensions", []):
    print(f"extension {e['name']} ({e['language']}): built={e['built']} cached={e['cached']} build_s={e['build_s']}"
          + (f" skipped: {e['skipped']}" if e.get("skipped") else ""))
for op in port.get("ops", []):
    for p in op.get("parity", []):
        f, b = p.get("forward") or {}, p.get("backward") or {}
        print(f"parity {op['slot']} {p['dtype']}: fwd max abs {f.get('max_abs')} rel {f.get('max_rel')}"
              + "".join(f", bwd d{k} max abs {g['max_abs']} rel {g['max_rel']}" for k, g in (b.get("grads") or {}).items())
              + (f" error {p['error']}" if p.get("error") else ""))
    print(f"  {op['slot']}: training ran it in {len(op.get('used_in', []))} modules, "
          f"the no-gradient batch in {len(op.get('eval_used_in', []))}")
print(f"dtype {rep['dtype']}, max |dloss| {port.get('max_abs_dloss')} (tolerance {port.get('loss_tolerance')}), "
      f"eval loss port {port.get('eval_loss_port')} ref {port.get('eval_loss_reference')}, "
      f"median step {rep.get('step_time_s')} s")
print(f"verdict {rep['verdict']}: {'; '.join(rep['reasons'])[:600]}")
EOF
else
  tail -n 5 "$OUT/smoke_torch_ext.txt"
fi
exit $rc
