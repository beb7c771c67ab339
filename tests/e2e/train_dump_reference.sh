#!/usr/bin/env bash
# End-to-end: attnscope-cli train --dump-init writes step 0 of several models
# (plain, cross-attention, residual stream with MLP on the induction task), and
# tests/scripts/check_train_dump.py recomputes its loss and every gradient in
# PyTorch. A dump with one gradient altered must be refused.
# Usage: train_dump_reference.sh PATH/TO/attnscope-cli PYTHON   (exit 77: no torch, skipped)
set -euo pipefail
cli=$1
python=${2:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
check=$here/../scripts/check_train_dump.py
"$python" -c 'import torch, numpy' 2>/dev/null || { echo "skipped: $python has no torch/numpy"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

i=0
while read -r args; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$cli" train $args --steps 0 --quiet --dump-init "$dir/init$i.npz"
done <<'CASES'
--task copy --seq-len 6 --vocab 6 --d-model 8 --d-k 4 --heads 2 --batch 5
--task translate --mechanism additive --seq-len 6 --vocab 8 --d-model 12 --d-k 4 --heads 2 --layers 2 --temperature 1.5 --entropy-weight 0.2
--task induction --seq-len 12 --vocab 10 --d-model 16 --d-k 4 --heads 2 --layers 2 --residual --mlp 8 --batch 6
--task brackets --mechanism general --seq-len 8 --d-model 8 --d-k 4 --layers 2 --residual --causal
CASES

"$python" "$check" "$dir"/init*.npz

# The check can fail: one gradient entry off by 1% is caught.
"$python" - "$dir/init3.npz" "$dir/tampered.npz" <<'PY'
import sys, numpy as np
z = dict(np.load(sys.argv[1]))
g = z["grad.layer1.head0.w_k"]
g.flat[np.abs(g).argmax()] *= 1.01
np.savez(sys.argv[2], **z)
PY
if "$python" "$check" "$dir/tampered.npz" 2>"$dir/err"; then
  echo "FAIL: a tampered gradient passed the check" >&2
  exit 1
fi
grep -q "grad.layer1.head0.w_k" "$dir/err" || { echo "FAIL: the refusal does not name the gradient" >&2; cat "$dir/err" >&2; exit 1; }
echo "train --dump-init: $i dumps agree with PyTorch; a tampered one is refused"
