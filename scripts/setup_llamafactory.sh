#!/usr/bin/env bash
# LLaMA-Factory for `porter smoke --backend llamafactory`, in a virtual environment of its own (default .venv-lf):
# LLaMA-Factory 0.9.3 needs numpy<2, which porter's own environment does not.  Installs torch at the version of
# porter's .venv (else 2.13.0, the CPU build setup.sh installs), then porter with its [llamafactory] extra under
# constraints/llamafactory.txt (the versions tested together) and a constraint holding that torch, then DeepSpeed
# for ZeRO-3 at the versions LLaMA-Factory accepts (its hparams/parser.py: deepspeed>=0.10.0,<=0.16.9), where pip
# can install it without touching that torch; on a CPU-only torch it also builds DeepSpeed's CPU communication op
# (deepspeed_shm_comm, which DeepSpeed otherwise builds lazily at the first ZeRO-3 run: about 2 minutes here).
#   bash scripts/setup_llamafactory.sh [DIR]
# It ends by printing the command to run (DIR/bin/porter finds DIR/bin/llamafactory-cli beside its interpreter).
# About 75 s and 2.3 GB on a 2-core machine without DeepSpeed (README, under "Installing the optional extras").
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${1:-.venv-lf}
PY=${PYTHON:-python3}
tv=$(.venv/bin/python -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null || echo 2.13.0)
[ -x "$DEST/bin/python" ] || "$PY" -m venv "$DEST"
DEST=$(cd "$DEST" && pwd)
"$DEST/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
"$DEST/bin/python" -c 'import torch' 2>/dev/null || "$DEST/bin/python" -m pip install -q "torch==$tv"
held=$("$DEST/bin/python" -c 'import torch; print(torch.__version__)')
cons=$(mktemp)
trap 'rm -f "$cons"' EXIT
echo "torch==$held" > "$cons"
"$DEST/bin/python" -m pip install -q -c "$cons" -c constraints/llamafactory.txt -e '.[llamafactory]'
"$DEST/bin/llamafactory-cli" version | grep -o 'version [0-9.]*'
# DeepSpeed (ZeRO-3): the bound LLaMA-Factory checks before training, read from its own source
ds_spec=$("$DEST/bin/python" - <<'EOF'
import importlib.util, re
src = open(importlib.util.find_spec("llamafactory").submodule_search_locations[0] + "/hparams/parser.py").read()
m = re.search(r'check_version\(\s*"(deepspeed[^"]*)"', src)
print(m.group(1) if m else "deepspeed>=0.10.0,<=0.16.9")
EOF
)
if "$DEST/bin/python" -m pip install -q -c "$cons" -c constraints/llamafactory.txt "$ds_spec"; then
    "$DEST/bin/python" -c 'import importlib.metadata as m; print("deepspeed", m.version("deepspeed"))'
    case "$held" in
        *+cpu*)
            # the op DeepSpeed's CPU accelerator builds at its first distributed run (g++, ninja); cached under
            # ~/.cache/torch_extensions (TORCH_EXTENSIONS_DIR), keyed by the torch version
            # (2.5 minutes on a 2-core machine)
            # torch's build lock is a plain file: a build killed midway leaves it, and every later build waits on
            # it forever. The build takes minutes, so a lock older than 20 minutes is stale and is removed.
            ext=${TORCH_EXTENSIONS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/torch_extensions}
            find "$ext" -path '*deepspeed_shm_comm/lock' -mmin +20 -print -delete 2>/dev/null \
                | sed 's/^/deepspeed: removed a stale build lock: /' || true
            if timeout 1200 "$DEST/bin/python" -c "from deepspeed.comm.torch import build_shm_op  # what DeepSpeed runs at init
build_shm_op()" > "$DEST/deepspeed_shm_comm_build.log" 2>&1; then
                echo "deepspeed: CPU communication op (deepspeed_shm_comm) built (log: $DEST/deepspeed_shm_comm_build.log)"
            else
                echo "deepspeed: its CPU communication op did not build here, or not within 20 minutes (log: $DEST/deepspeed_shm_comm_build.log);" \
                     "ZeRO-3 runs build it at their start"
            fi
            ;;
    esac
else
    echo "deepspeed: pip could not install $ds_spec beside torch==$held here; --deepspeed will say what to install"
fi
echo "then: $DEST/bin/porter smoke --backend llamafactory --model MODEL_DIR   (or --config YOUR_LLAMAFACTORY.yaml)"
