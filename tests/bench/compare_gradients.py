#!/usr/bin/python3
"""One backward pass's cost: AttnScope's `gradients` against its own forward and against
PyTorch autograd on the plain-PyTorch reference, on the random GPT-2-small-sized model of
compare_models.py (12 layers, 12 heads, d_model 768, vocab 50257, F32).

Usage (from the repository root; Debian's python3-torch with OpenBLAS):

    /usr/bin/python3 tests/bench/compare_gradients.py [--cli build/lean/bin/attnscope-cli]
        [--tokens 128] [--reps 3] [--threads 2] [--workdir DIR]

  1. prints which BLAS torch and numpy run on (compare_models.blas_report);
  2. writes (or reuses, with --workdir) the GPT-2 small folder;
  3. PyTorch, in this process, medians of --reps after a warm-up: the reference forward without
     gradients (gen_model_fixtures.gpt2_forward: every layer's maps, the lm_head logits of every
     position) and one gradient as tests/scripts/gen_gradient_fixtures.py takes it (the same
     forward with autograd, backward from the last position's target logit to the input
     embeddings, every layer's attention weights' gradient retained);
  4. `attnscope-cli gradients --profile` on a text cut to --tokens tokens: its forward (as
     `run --model` computes it) and one gradient (taped forward + backward, attention x gradient
     kept), medians of 3 in its process;
  5. prints the times and the ratios: AttnScope's gradient / its forward (target: one backward at
     most 2.5x the forward) and PyTorch's gradient / AttnScope's (target: >= 3x). The forward
     computes the lm_head over every position and every layer's maps, the gradient only the
     target's row: "gradient / forward" bounds the backward's ratio from above.
The machine is shared: run it a few times and compare ratios.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_models as cm  # noqa: E402  (sets the thread variables before torch loads)
import torch  # noqa: E402

sys.path.insert(0, os.path.join(cm.REPO, "tests", "scripts"))
import gen_gradient_fixtures as gg  # noqa: E402
from gen_model_fixtures import gpt2_forward  # noqa: E402

CFG = dict(model_type="gpt2", n_embd=768, n_head=12, n_layer=12, layer_norm_epsilon=1e-5)


def median_seconds(fn, reps):
    fn()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def torch_seconds(weights, tokens, reps):
    ids = torch.randint(0, 50257, (tokens,), generator=torch.Generator().manual_seed(0)).tolist()
    emb = weights["wte.weight"][torch.tensor(ids)]

    def forward():
        with torch.no_grad():
            gpt2_forward(weights, CFG, ids)

    forward_s = median_seconds(forward, reps)
    gradient_s = median_seconds(lambda: gg.logit_and_grads(weights, CFG, ids, emb, 1), reps)
    return forward_s, gradient_s


def cli_seconds(cli, folder, tokens):
    text = " ".join(f"w{i}" for i in range(4 * tokens))  # more than enough tokens, cut by --max-tokens
    cmd = [cli, "gradients", "--model", folder, "--text", text, "--max-tokens", str(tokens), "--target", "#1",
           "--profile"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd[:4])} ... failed: {out.stderr.strip()}")
    print(out.stdout.splitlines()[0])
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1]
    got = json.loads(line)
    return got["forward_s"], got["gradient_s"], got["tokens"]


def main():
    ap = argparse.ArgumentParser(description="AttnScope's backward pass against its forward and PyTorch autograd")
    ap.add_argument("--cli", default=os.path.join(cm.REPO, "build", "lean", "bin", "attnscope-cli"))
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=cm.THREADS_DEFAULT)
    ap.add_argument("--workdir", help="write (or reuse) the model folder here and keep it")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cm.blas_report()
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(args.workdir or tmp, "gpt2-small")
        os.makedirs(folder, exist_ok=True)
        weights = cm.ensure_gpt2(folder)
        forward_s, gradient_s, tokens = cli_seconds(args.cli, folder, args.tokens)
        t_forward, t_gradient = torch_seconds(weights, tokens, args.reps)
    print(f"GPT-2 small, {tokens} tokens, {args.threads} threads")
    print(f"  AttnScope: forward {forward_s * 1e3:.1f} ms, gradient (forward + backward) {gradient_s * 1e3:.1f} ms: "
          f"{gradient_s / forward_s:.2f}x its forward (the backward alone is less; target: backward <= 2.5x)")
    print(f"  PyTorch:   forward {t_forward * 1e3:.1f} ms, gradient (autograd) {t_gradient * 1e3:.1f} ms: "
          f"{t_gradient / t_forward:.2f}x its forward")
    print(f"  gradient speed-up over PyTorch autograd: {t_gradient / gradient_s:.2f}x (target >= 3x)")


if __name__ == "__main__":
    main()
