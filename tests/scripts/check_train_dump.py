#!/usr/bin/python3
"""Recomputes step 0 of an attnscope-cli training run in plain PyTorch and
compares it with what the engine computed.

  attnscope-cli train ... --steps 0 --dump-init init.npz
  /usr/bin/python3 tests/scripts/check_train_dump.py init.npz [more.npz ...]

The dump (core/attn/train/initial_state.h) holds the initial parameters, the
first batch, the config.* values that define the model, and the engine's loss
and gradient of every parameter (grad.<name>). The model is rebuilt by
loss_of() of gen_train_fixtures.py (autograd, float64), the same independent
definition the engine's gradient fixtures come from. Exit status: 0 when the
loss and every gradient agree (float32 engine: relative 2e-3 per tensor),
1 when something disagrees, 2 when the file cannot be used, 77 without torch.
"""
import os
import sys

try:
    import numpy as np
    import torch
except ImportError as e:  # the test is skipped, not failed, on a machine without torch
    print(f"check_train_dump: {e}; install python3-torch and python3-numpy", file=sys.stderr)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_train_fixtures import MECHANISMS, loss_of  # noqa: E402

INTS = ("seq_len", "vocab", "output_vocab", "d_model", "d_k", "hidden", "heads", "layers", "batch",
        "causal", "cross", "residual", "mlp_hidden")
NOT_PARAMS = ("inputs", "targets", "loss", "cross_entropy")
GRAD_TOL = 2e-3  # the engine trains in float32: three digits through saturated softmaxes
LOSS_TOL = 1e-4


def load(path):
    try:
        z = np.load(path)
        arrays = {k: z[k] for k in z.files}
    except Exception as e:  # noqa: BLE001 (any unreadable file is one message)
        raise SystemExit(f"{path}: cannot read the dump ({e})")
    missing = [k for k in NOT_PARAMS + tuple("config." + c for c in INTS + ("mechanism",)) if k not in arrays]
    if missing:
        print(f"{path}: not a --dump-init file (missing {', '.join(missing)})", file=sys.stderr)
        sys.exit(2)
    cfg = {k[len("config."):]: float(v.reshape(-1)[0]) for k, v in arrays.items()
           if k.startswith("config.") and v.dtype.kind == "f"}
    for k in INTS:
        cfg[k] = int(round(cfg[k]))
    cfg["mechanism"] = MECHANISMS[int(round(cfg["mechanism"]))]
    params = {k: v for k, v in arrays.items()
              if not k.startswith(("grad.", "config.")) and k not in NOT_PARAMS}
    return arrays, cfg, params


def check(path):
    arrays, cfg, params = load(path)
    P = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in params.items()}
    x = torch.tensor(arrays["inputs"].astype(np.int64))
    y = torch.tensor(arrays["targets"].astype(np.int64))
    loss = loss_of(cfg, P, x, y)
    loss.backward()
    bad = []
    engine_loss = float(arrays["loss"][0])
    if abs(loss.item() - engine_loss) > LOSS_TOL * abs(loss.item()) + 1e-6:
        bad.append(f"loss: torch {loss.item():.9g}, engine {engine_loss:.9g}")
    worst = 0.0
    for name, t in P.items():
        if "grad." + name not in arrays:
            bad.append(f"grad.{name}: missing")
            continue
        ref = t.grad.numpy()
        got = arrays["grad." + name].astype(np.float64)
        if got.shape != ref.shape:
            bad.append(f"grad.{name}: shape {got.shape}, expected {ref.shape}")
            continue
        err = np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-12)
        worst = max(worst, err)
        if err > GRAD_TOL:
            bad.append(f"grad.{name}: relative error {err:.3g} > {GRAD_TOL}")
    task = str(arrays["config.task"].reshape(-1)[0]) if "config.task" in arrays else "?"
    if bad:
        print(f"{path} ({task}): step 0 disagrees with PyTorch:\n  " + "\n  ".join(bad), file=sys.stderr)
        return 1
    print(f"{path} ({task}, {cfg['mechanism']}, {cfg['layers']} layer(s), residual {cfg['residual']}, "
          f"mlp {cfg['mlp_hidden']}): loss {loss.item():.6f} matches; {len(P)} gradients agree "
          f"(worst relative error {worst:.2e})")
    return 0


def main():
    if len(sys.argv) < 2:
        print("usage: check_train_dump.py INIT.npz [MORE.npz ...]", file=sys.stderr)
        return 2
    return max(check(path) for path in sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
