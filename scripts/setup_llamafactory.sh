#!/usr/bin/env bash
# LLaMA-Factory for `porter smoke --backend llamafactory`, in a virtual environment of its own (default .venv-lf):
# LLaMA-Factory 0.9.3 needs numpy<2, which porter's own environment does not.  Installs torch at the version of
# porter's .venv (else 2.13.0, the CPU build setup.sh installs), then porter with its [llamafactory] extra under
# constraints/llamafactory.txt (the versions tested together) and a constraint holding that torch.
#   bash scripts/setup_llamafactory.sh [DIR]
# then: DIR/bin/porter smoke --backend llamafactory --model MODEL_DIR   (or put DIR/bin on PATH)
# About 75 s and 2.3 GB on a 2-core machine (README, under "Installing the optional extras").
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${1:-.venv-lf}
PY=${PYTHON:-python3}
tv=$(.venv/bin/python -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null || echo 2.13.0)
[ -x "$DEST/bin/python" ] || "$PY" -m venv "$DEST"
"$DEST/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
"$DEST/bin/python" -c 'import torch' 2>/dev/null || "$DEST/bin/python" -m pip install -q "torch==$tv"
held=$("$DEST/bin/python" -c 'import torch; print(torch.__version__)')
cons=$(mktemp)
trap 'rm -f "$cons"' EXIT
echo "torch==$held" > "$cons"
"$DEST/bin/python" -m pip install -q -c "$cons" -c constraints/llamafactory.txt -e '.[llamafactory]'
"$DEST/bin/llamafactory-cli" version | grep -o 'version [0-9.]*'
