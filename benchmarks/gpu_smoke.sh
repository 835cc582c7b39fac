#!/usr/bin/env bash
# One GPU smoke check for a session that has a lent GPU (NVIDIA or AMD): doctor (with the xGMI topology check),
# single-process bf16 LoRA smoke runs on cuda (= ROCm GPUs too), the full Llama-3-8B shape, --nproc over every
# GPU (up to 8), LLaMA-Factory with a user's own YAML (flash_attn: fa2: which attention ran) and with ZeRO-3,
# then sample_projects/torch_ext with its own kernels in the loop
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
ROOT_PY=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")   # the same interpreter from another folder
DEVICE=${DEVICE:-cuda}   # DEVICE=cpu runs the same script on a CPU (to check it, not for figures)
CACHE=${PORTER_SMOKE_BUILD_CACHE:-$HOME/.cache/porter/smoke-ext}
mkdir -p "$OUT" "$CACHE"
"$PY" -m porter doctor --json "$OUT/doctor.json" > "$OUT/doctor.txt" 2>&1
"$PY" -c "import torch; print(torch.__version__, torch.version.cuda, torch.version.hip, torch.cuda.is_available())" \
    > "$OUT/torch.txt" 2>&1
timeout 180 "$PY" -m porter smoke --device "$DEVICE" --dtype bf16 --steps 50 --json "$OUT/smoke_bf16.json" \
    > "$OUT/smoke_bf16.txt" 2>&1
rc=$?
# a larger per-step workload, so the achieved TFLOP/s is not all launch overhead
timeout 180 "$PY" -m porter smoke --device "$DEVICE" --dtype bf16 --steps 30 --batch-size 32 --seq-len 512 \
    --json "$OUT/smoke_bf16_b32.json" > "$OUT/smoke_bf16_b32.txt" 2>&1

# the full Meta-Llama-3-8B shape (random weights, fp32 weights with bf16 autocast: 32 GB of weights), the
# memory and MFU a review's LLaMA-3-8B LoRA figures can be set against
timeout 240 "$PY" -m porter smoke --device "$DEVICE" --dtype bf16 --size llama3-8b --steps 10 --batch-size 4 --seq-len 512 \
    --json "$OUT/smoke_8b.json" > "$OUT/smoke_8b.txt" 2>&1

# several ranks (all-reduce probe, transports, scaling) when this machine has several GPUs
ngpu=$("$PY" -c "import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)" 2>/dev/null || echo 0)
if [ "${ngpu:-0}" -ge 2 ]; then
  NP=$(( ngpu < 8 ? ngpu : 8 ))
  timeout 300 "$PY" -m porter smoke --device "$DEVICE" --dtype bf16 --nproc "$NP" --steps 30 --timeout 280 \
      --json "$OUT/smoke_nproc.json" > "$OUT/smoke_nproc.txt" 2>&1
else
  echo "--nproc: not run: $ngpu GPU(s)" > "$OUT/smoke_nproc.txt"
fi

# LLaMA-Factory (the environment scripts/setup_llamafactory.sh makes, or LF_VENV): a user's own YAML (bf16,
# flash_attn: fa2, their dataset folder), then the same with porter's ZeRO-3 config; the report says which
# attention ran.  porter.smoke.tinymodel's random tiny Llama, no download.
LF_VENV=${LF_VENV:-.venv-lf}
if [ -x "$LF_VENV/bin/llamafactory-cli" ]; then
  LF="$OUT/lf"; rm -rf "$LF"; mkdir -p "$LF/data"
  PYTHONPATH=. "$LF_VENV/bin/python" -m porter.smoke.tinymodel "$LF/tiny-llama" > "$OUT/lf_model.txt" 2>&1
  cp porter/smoke/data/alpaca_sample.json "$LF/data/alpaca_mini.json"
  echo '{"alpaca_mini": {"file_name": "alpaca_mini.json"}}' > "$LF/data/dataset_info.json"
  cat > "$LF/user.yaml" <<YAML
model_name_or_path: $LF/tiny-llama
stage: sft
do_train: true
finetuning_type: lora
lora_rank: 8
lora_target: all
flash_attn: fa2
dataset: alpaca_mini
dataset_dir: data
template: default
cutoff_len: 256
output_dir: saves/tiny/lora/sft
per_device_train_batch_size: 4
learning_rate: 2.0e-3
lr_scheduler_type: constant
bf16: true
YAML
  (cd "$LF" && timeout 400 "$ROOT_PY" -m porter smoke --backend llamafactory --device "$DEVICE" --config user.yaml \
      --steps 10 --timeout 380 --json "$OUT/smoke_lf.json" > "$OUT/smoke_lf.txt" 2>&1)
  (cd "$LF" && timeout 400 "$ROOT_PY" -m porter smoke --backend llamafactory --device "$DEVICE" --config user.yaml \
      --deepspeed --nproc "$(( ngpu >= 2 ? 2 : 1 ))" --steps 10 --timeout 380 --json "$OUT/smoke_lf_zero3.json" \
      > "$OUT/smoke_lf_zero3.txt" 2>&1)
else
  echo "LLaMA-Factory: not run: no $LF_VENV/bin/llamafactory-cli (bash scripts/setup_llamafactory.sh)" > "$OUT/smoke_lf.txt"
fi

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
tail -n 6 "$OUT/smoke_8b.txt"
for f in smoke_nproc smoke_lf smoke_lf_zero3; do [ -f "$OUT/$f.txt" ] && { echo "== $f"; tail -n 8 "$OUT/$f.txt"; }; done
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
