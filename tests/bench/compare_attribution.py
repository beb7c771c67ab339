#!/usr/bin/python3
"""What the forward-only explanations cost: attention norms and ALTI, the logit lens, activation
patching (and one backward, from compare_gradients.py), AttnScope against a vectorized
plain-PyTorch implementation of the same quantities, on the random GPT-2-small-sized model of
compare_models.py (12 layers, 12 heads, d_model 768, vocab 50257, F32) at --tokens tokens.

Usage (from the repository root; Debian's python3-torch with OpenBLAS):

    /usr/bin/python3 tests/bench/compare_attribution.py [--cli build/lean/bin/attnscope-cli]
        [--tokens 128] [--patch-tokens N] [--reps 3] [--threads 2] [--workdir DIR] [--no-full-patch]
        [--no-gradient] [--no-fixture-check]

  1. prints the BLAS torch and numpy run on, the CPU flags and AttnScope's engine copy;
  2. checks on the small repository fixture (tests/fixtures/models/gpt2) that the PyTorch
     versions below give AttnScope's own files (attention_norms, attention_norms_resln, alti,
     alti_rollout, the lens probabilities and ranks, every patching fraction) within 1e-4, and the
     patching map also against tests/scripts/gen_patch_fixtures.py's one-patch-at-a-time hooks;
  3. AttnScope, whole CLI processes, --reps times each (median and best): (a) `run --profile`
     (forward and every map), (b) the same with --contributions, (c) `lens`, (d) `patch --sites
     residual` and `--sites residual,heads,mlp` on two texts of --tokens tokens that differ in one
     word (--patch-tokens: shorter patch texts, the sweep growing with their square), and
     `gradients --profile` (its forward and one gradient, timed in its process).
     `run --profile` prints its stages; `lens` and `patch` do not, so their extra cost over the
     forward is a whole-process difference (lens process minus run process);
  4. PyTorch in this process on the same weights and token ids (read back from the CLI's files),
     torch.no_grad, batched matmuls only (no per-token Python loop): the reference forward with
     attention weights (gen_model_fixtures.gpt2_forward); the contributions as docs/attribution.md
     defines them, per layer as [N, N, d] tensors; the lens (ln_f + the tied unembedding of every
     hidden state, softmax, top-5); patching from the corrupt run's cached per-layer K/V: the
     patches at layer l start at layer l, a block of 16 positions p at a time as one batch, and
     compute only the rows from the block's first position on (rows before p cannot change), as
     AttnScope skips the layers before l; the backward by compare_gradients.torch_seconds;
     AttnScope's files from step 3 are compared with these (max abs difference printed);
  5. prints a table: each item's times, PyTorch / AttnScope (target >= 3x) and the targets:
     contributions and lens each at most 30% over the forward, the residual map at most 10 s,
     one backward at most 2.5x the forward; the load average before and after.
The machine is shared: the load average is printed; compare ratios from one run.
"""
import os
import sys


def _threads_from_argv(default=2):
    for i, a in enumerate(sys.argv):
        if a == "--threads" and i + 1 < len(sys.argv):
            return sys.argv[i + 1]
        if a.startswith("--threads="):
            return a.split("=", 1)[1]
    return str(default)


# OpenBLAS and OpenMP (AttnScope's threads) read these once, when they load: set from --threads
# before numpy and torch are imported and before any CLI process starts.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = _threads_from_argv()

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_models as cm  # noqa: E402
import compare_gradients as cg  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.join(cm.REPO, "tests", "scripts"))
import gen_patch_fixtures as gp  # noqa: E402
from gen_model_fixtures import gelu_new, gpt2_forward, load_weights  # noqa: E402

FIXTURE = os.path.join(cm.REPO, "tests", "fixtures", "models", "gpt2")
CHUNK = 16  # patch positions batched together: rows from the block's first position are computed


# ---------------------------------------------------------------------------
# PyTorch side (vectorized)

def cfg_of(folder):
    c = json.load(open(os.path.join(folder, "config.json")))
    return dict(model_type="gpt2", n_embd=c["n_embd"], n_head=c["n_head"], n_layer=c["n_layer"],
                layer_norm_epsilon=c.get("layer_norm_epsilon", 1e-5))


def contributions(trace):
    """attention_norms [L, H, N, N], attention_norms_resln [L, N, N], alti [L, N, N],
    alti_rollout [N, N] from gpt2_forward's trace (pre-norm: no LayerNorm after the residual)."""
    norms, resln, alti = [], [], []
    buf = None  # [j, i, d], reused across layers: fresh 50 MB temporaries per layer cost more than the math
    for t in trace:
        x, pw, v, wo, bo = t["x"], t["pw"], t["v"], t["wo"], t["bo"]
        H, N, dh = v.shape
        fx = torch.bmm(v, wo.view(H, dh, -1))  # f^h(x_j) = v_j^h W_O^h: [H, N, d]
        norms.append(pw * fx.norm(dim=-1)[:, None, :])
        # T_i(x_j) = sum_h pw[h, i, j] f^h(x_j), batched over j: [j, i, h] @ [j, h, d] -> [j, i, d]
        if buf is None or buf.shape != (N, N, fx.shape[-1]):
            buf = torch.empty(N, N, fx.shape[-1])
        torch.bmm(pw.permute(2, 1, 0), fx.transpose(0, 1), out=buf)
        idx = torch.arange(N)
        buf[idx, idx] += x  # the residual is token i's own
        y = buf.sum(0) + bo  # the block's output, the residual stream: [i, d]
        resln.append(buf.norm(dim=-1).T)
        y1 = y.abs().sum(-1)
        dist = buf.neg_().add_(y[None]).abs_().sum(-1).T  # ||y_i - T_i(x_j)||_1 as [i, j]
        c = (y1[:, None] - dist).clamp_min(0) * torch.tril(torch.ones(N, N))  # a masked key contributes 0
        alti.append(c / c.sum(-1, keepdim=True))
    roll = alti[0]
    for a in alti[1:]:
        roll = a @ roll
    return torch.stack(norms), torch.stack(resln), torch.stack(alti), roll


def lens(w, hidden, k=5):
    """Top-k ids and probabilities [L+1, N, k], the final top-1's rank [L+1, N]. Rows 0..L-1 go
    through ln_f, row L already has (it is what the lm_head reads)."""
    d = hidden.shape[-1]
    eps = 1e-5
    normed = torch.cat([F.layer_norm(hidden[:-1], (d,), w["ln_f.weight"], w["ln_f.bias"], eps), hidden[-1:]])
    probs = torch.softmax(normed @ w["wte.weight"].T, dim=-1)  # [L+1, N, V]
    top_p, top_i = probs.topk(k, dim=-1)
    final = top_i[-1, :, 0]  # the model's own prediction per position
    pf = probs.gather(-1, final.expand(probs.shape[0], -1)[..., None])
    rank = (probs > pf).sum(-1)
    return top_i, top_p, rank


def gpt2_layer(w, cfg, i, h, p0, cache_k, cache_v):
    """Layer i on a batch of residual rows h [B, R, d] at positions p0..p0+R-1; the keys and
    values of positions < p0 come from the corrupt run's cache [H, p0, dh]."""
    d, H = cfg["n_embd"], cfg["n_head"]
    dh = d // H
    eps = cfg["layer_norm_epsilon"]
    p = f"h.{i}."
    B, R, _ = h.shape
    a = F.layer_norm(h, (d,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
    qkv = a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
    q, k, v = (t.view(B, R, H, dh).transpose(1, 2) for t in qkv.split(d, dim=-1))  # [B, H, R, dh]
    if p0 > 0:
        k = torch.cat([cache_k[:, :p0].expand(B, -1, -1, -1), k], dim=2)
        v = torch.cat([cache_v[:, :p0].expand(B, -1, -1, -1), v], dim=2)
    s = q @ k.transpose(-1, -2) / (dh ** 0.5)  # [B, H, R, p0 + R]
    allowed = torch.arange(p0 + R)[None, :] <= torch.arange(p0, p0 + R)[:, None]
    s = s.masked_fill(~allowed, torch.finfo(s.dtype).min)
    o = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, R, d)
    h = h + (o @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"])
    m = F.layer_norm(h, (d,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
    m = gelu_new(m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])
    return h + (m @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"])


def record(w, cfg, ids):
    """One run's activations: resid_pre [L+1, N, d] (row L: before ln_f), the residual after
    attention [L, N, d], the MLP outputs [L, N, d], the heads' outputs before c_proj [L, N, d], and
    K, V per layer [L, H, N, dh]."""
    acts = {"resid": [], "heads": [], "mlp": []}

    def hook(site, layer, x):
        acts[site].append(x)
        return x

    trace = []
    logits = gpt2_forward(w, cfg, ids, trace=trace, patch=hook)[2]
    d, H = cfg["n_embd"], cfg["n_head"]
    N = len(ids)
    ks, vs = [], []
    for i, t in enumerate(trace):
        p = f"h.{i}."
        a = F.layer_norm(t["x"], (d,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], cfg["layer_norm_epsilon"])
        k = a @ w[p + "attn.c_attn.weight"][:, d:2 * d] + w[p + "attn.c_attn.bias"][d:2 * d]
        ks.append(k.view(N, H, -1).transpose(0, 1))
        vs.append(t["v"])
    resid = torch.stack(acts["resid"])
    mlp = torch.stack(acts["mlp"])
    mid = torch.stack([t["out"] for t in trace])  # residual after attention (trace's "out")
    final = mid[-1] + mlp[-1]  # the stream after the last layer, before ln_f
    return dict(resid=torch.cat([resid, final[None]]), mid=mid, mlp=mlp, heads=torch.stack(acts["heads"]),
                k=torch.stack(ks), v=torch.stack(vs), logits=logits)


def finish(w, cfg, h, first, p0, cache, target, foil):
    """Runs layers first..L-1 on h [B, R, d] (rows from p0) and returns the last position's
    target - foil logit difference per batch entry."""
    for i in range(first, cfg["n_layer"]):
        h = gpt2_layer(w, cfg, i, h, p0, cache["k"][i], cache["v"][i])
    last = F.layer_norm(h[:, -1], (cfg["n_embd"],), w["ln_f.weight"], w["ln_f.bias"], cfg["layer_norm_epsilon"])
    return last @ (w["wte.weight"][target] - w["wte.weight"][foil])


def patch_maps(w, cfg, clean_ids, corrupt_ids, target, foil, sites=("residual",)):
    """residual [L, N], heads [L, H], mlp [L, N]: the recovered fraction of the clean - corrupt
    logit difference, as docs/attribution.md defines it."""
    L, H, d = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
    N = len(clean_ids)
    clean, bad = record(w, cfg, clean_ids), record(w, cfg, corrupt_ids)
    dc = float(clean["logits"][-1, target] - clean["logits"][-1, foil])
    dx = float(bad["logits"][-1, target] - bad["logits"][-1, foil])
    out = {"clean_diff": dc, "corrupt_diff": dx}

    def positions_map(entering, replaced, first):
        # entering[l]: the corrupt stream entering layer first(l); replaced[l]: its rows with the
        # clean activation in; one batch per block of positions, rows from the block's start
        res = torch.zeros(L, N)
        for layer in range(L):
            for p0 in range(0, N, CHUNK):
                ps = torch.arange(p0, min(p0 + CHUNK, N))
                h = entering[layer][p0:].expand(len(ps), -1, -1).clone()
                h[torch.arange(len(ps)), ps - p0] = replaced[layer][ps]
                if first(layer) < L:
                    diff = finish(w, cfg, h, first(layer), p0, bad, target, foil)
                else:  # the MLP of the last layer: only ln_f and the unembedding are left
                    lst = F.layer_norm(h[:, -1], (d,), w["ln_f.weight"], w["ln_f.bias"], cfg["layer_norm_epsilon"])
                    diff = lst @ (w["wte.weight"][target] - w["wte.weight"][foil])
                res[layer, ps] = (diff - dx) / (dc - dx)
        return res

    if "residual" in sites:
        out["residual"] = positions_map(bad["resid"], clean["resid"], lambda l: l)
    if "mlp" in sites:  # stream after layer l with position p's MLP output taken from the clean run
        out["mlp"] = positions_map(bad["resid"][1:], bad["mid"] + clean["mlp"], lambda l: l + 1)
    if "heads" in sites:
        dh = d // H
        res = torch.zeros(L, H)
        for layer in range(L):
            p = f"h.{layer}."
            o = bad["heads"][layer].expand(H, -1, -1).clone()  # [H (which head), N, d]
            for hh in range(H):
                o[hh, :, hh * dh:(hh + 1) * dh] = clean["heads"][layer][:, hh * dh:(hh + 1) * dh]
            h = bad["resid"][layer] + (o @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"])
            m = F.layer_norm(h, (d,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], cfg["layer_norm_epsilon"])
            m = gelu_new(m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])
            h = h + (m @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"])
            if layer + 1 < L:
                diff = finish(w, cfg, h, layer + 1, 0, bad, target, foil)
            else:
                lst = F.layer_norm(h[:, -1], (d,), w["ln_f.weight"], w["ln_f.bias"], cfg["layer_norm_epsilon"])
                diff = lst @ (w["wte.weight"][target] - w["wte.weight"][foil])
            res[layer] = (diff - dx) / (dc - dx)
        out["heads"] = res
    return out


# ---------------------------------------------------------------------------
# AttnScope side

def cli(args, what):
    t0 = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit(f"{what}: {' '.join(args[:3])} ... failed ({out.returncode}): {out.stderr.strip()[-2000:]}")
    return wall, out.stdout, out.stderr


def profile_stages(stderr):
    """`run --profile`'s "profile STAGE: X s" lines as {stage: seconds}."""
    got = {}
    for line in stderr.splitlines():
        if line.startswith("profile ") and line.rstrip().endswith(" s") and ": " in line:
            stage, val = line[len("profile "):].rsplit(": ", 1)
            got[stage] = float(val.split()[0])
    return got


def engine_copy(cli_path):
    info = subprocess.run([cli_path, "info", "--system"], capture_output=True, text=True).stdout
    for line in info.splitlines():
        if line.strip().startswith("Kernel level:"):
            return line.split(":", 1)[1].strip()
    return "?"


def make_texts(folder, n, seed=0):
    """Two texts of n words, each word one token of the folder's vocabulary (a space-led
    letters-only vocabulary entry), the second with the middle word changed."""
    vocab = json.load(open(os.path.join(folder, "vocab.json")))
    words = sorted(t[1:] for t in vocab if t.startswith("\u0120") and len(t) > 2 and t[1:].isalpha())
    rng = random.Random(seed)
    ws = [rng.choice(words) for _ in range(n)]
    bad = list(ws)
    bad[n // 2] = next(x for x in words if x != ws[n // 2])
    return "".join(" " + x for x in ws), "".join(" " + x for x in bad), vocab


def load_npz(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def maxdiff(a, b):
    return float(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)).max())


def check(name, got, want, tol, rows):
    err = maxdiff(got, want)
    rows.append((name, err, tol))
    return err


def compare_outputs(w, cfg, run_npz, lens_npz, patch_npz, clean_ids, corrupt_ids, target, foil, tag, tol,
                    pm=None, pclean_ids=None):
    """Max abs differences between AttnScope's files and the PyTorch versions (pm: the patching
    maps when already computed, the sweep being the long part)."""
    rows = []
    with torch.no_grad():
        trace = []
        _, hidden, _ = gpt2_forward(w, cfg, clean_ids, trace=trace)
        nm, rl, al, roll = contributions(trace)
        for key, val in (("attention_norms", nm), ("attention_norms_resln", rl), ("alti", al),
                         ("alti_rollout", roll)):
            check(f"{tag} {key}", run_npz[key], val.numpy(), tol, rows)
        ids, probs, rank = lens(w, hidden)
        check(f"{tag} lens_top_probs", lens_npz["lens_top_probs"], probs.numpy(), tol, rows)
        # ids and ranks only where neighbouring probabilities are apart (ties may order either way)
        same = float((lens_npz["lens_top_ids"] == ids.numpy()).mean())
        rows.append((f"{tag} lens_top_ids equal (share)", 1.0 - same, "info"))
        rows.append((f"{tag} lens_final_rank equal (share)",
                     1.0 - float((lens_npz["lens_final_rank"] == rank.numpy()).mean()), "info"))
        sites = [s for s in ("residual", "heads", "mlp") if s in patch_npz]
        if pm is None or any(k not in pm for k in sites):
            pm = patch_maps(w, cfg, pclean_ids or clean_ids, corrupt_ids, target, foil, sites)
        for key in ["clean_diff", "corrupt_diff"] + sites:
            check(f"{tag} patch {key}", patch_npz[key], np.asarray(pm[key]), tol, rows)
    return rows, pm


def fixture_check(cli_path, tmp):
    """On the small fixture: AttnScope's files against the PyTorch versions, and the vectorized
    patching map against gen_patch_fixtures' one hook per patch."""
    w = load_weights(FIXTURE)
    cfg = cfg_of(FIXTURE)
    clean, corrupt, vocab = make_texts(FIXTURE, 40, seed=1)
    run_p, lens_p, patch_p = (os.path.join(tmp, f"fx_{n}.npz") for n in ("run", "lens", "patch"))
    target, foil = 5, 7
    cli([cli_path, "run", "--model", FIXTURE, "--text", clean, "--contributions", "--out", run_p], "fixture run")
    cli([cli_path, "lens", "--model", FIXTURE, "--text", clean, "--out", lens_p], "fixture lens")
    cli([cli_path, "patch", "--model", FIXTURE, "--clean", clean, "--corrupt", corrupt, "--target", f"#{target}",
         "--foil", f"#{foil}", "--out", patch_p], "fixture patch")
    run_npz, lens_npz, patch_npz = load_npz(run_p), load_npz(lens_p), load_npz(patch_p)
    clean_ids = [int(x) for x in lens_npz["ids"]]
    corrupt_ids = ids_of(vocab, patch_npz["corrupt_tokens"])
    rows, pm = compare_outputs(w, cfg, run_npz, lens_npz, patch_npz, clean_ids, corrupt_ids, target, foil,
                               "fixture", 1e-4)
    # the same residual map one patch at a time through gen_patch_fixtures' hooks
    acts, _ = gp.record(w, cfg, clean_ids)
    dc, dx = pm["clean_diff"], pm["corrupt_diff"]
    ref = np.zeros((cfg["n_layer"], len(clean_ids)))
    for layer in range(cfg["n_layer"]):
        for p in range(len(clean_ids)):
            def take(x, layer=layer, p=p):
                x = x.clone()
                x[p] = acts[("resid", layer)][p]
                return x
            with torch.no_grad():
                got = gp.patched_diff(w, cfg, corrupt_ids, "resid", layer, take, target, foil)
                ref[layer, p] = (got - dx) / (dc - dx)
    check("fixture residual map: vectorized vs one hook per patch", pm["residual"].numpy(), ref, 1e-4, rows)
    return rows


def ids_of(vocab, tokens):
    return [int(vocab[t]) for t in tokens]


# ---------------------------------------------------------------------------

def timed(fn, reps, warm=True):
    if warm:
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def cpu_flags():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                flags = line.split(":", 1)[1].split()
                keep = [f for f in flags if f.startswith(("avx", "fma", "f16c", "amx"))]
                return f"{model}; {' '.join(keep)}"
    except OSError:
        pass
    return "unknown"


def main():
    ap = argparse.ArgumentParser(description="AttnScope's attribution, lens and patching against plain PyTorch")
    ap.add_argument("--cli", default=os.path.join(cm.REPO, "build", "lean", "bin", "attnscope-cli"))
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--patch-tokens", type=int, help="patch texts of this many tokens (default --tokens): the sweep "
                    "grows with the square of it")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workdir", help="write (or reuse) the model folder here and keep it")
    ap.add_argument("--no-full-patch", action="store_true", help="skip --sites residual,heads,mlp on both sides")
    ap.add_argument("--no-gradient", action="store_true", help="skip the backward (compare_gradients.py)")
    ap.add_argument("--no-fixture-check", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    load0 = os.getloadavg()
    cm.blas_report()
    print(f"CPU: {cpu_flags()}")
    print(f"AttnScope engine copy: {engine_copy(args.cli)}")
    print(f"threads {args.threads} (OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}, "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}), reps {args.reps}, "
          f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        checks = []
        if not args.no_fixture_check:
            checks += fixture_check(args.cli, tmp)
        folder = os.path.join(args.workdir or tmp, "gpt2-small")
        os.makedirs(folder, exist_ok=True)
        w = cm.ensure_gpt2(folder)
        cfg = cfg_of(folder)
        clean, corrupt, vocab = make_texts(folder, args.tokens)
        pn = args.patch_tokens or args.tokens
        pclean, pcorrupt, _ = make_texts(folder, pn)
        target, foil = int(vocab["\u0120the"]), int(vocab["\u0120of"])
        paths = {n: os.path.join(tmp, f"{n}.npz") for n in ("run", "contrib", "lens", "patch", "patchall")}
        cmds = {
            "run": [args.cli, "run", "--model", folder, "--text", clean, "--profile", "--out", paths["run"]],
            "contrib": [args.cli, "run", "--model", folder, "--text", clean, "--profile", "--contributions",
                        "--out", paths["contrib"]],
            "lens": [args.cli, "lens", "--model", folder, "--text", clean, "--out", paths["lens"]],
            "patch": [args.cli, "patch", "--model", folder, "--clean", pclean, "--corrupt", pcorrupt, "--target",
                      f"#{target}", "--foil", f"#{foil}", "--sites", "residual", "--out", paths["patch"]],
        }
        if not args.no_full_patch:
            cmds["patchall"] = cmds["patch"][:-4] + ["--sites", "residual,heads,mlp", "--out", paths["patchall"]]
        walls = {k: [] for k in cmds}
        stages = {"run": [], "contrib": []}
        for _ in range(args.reps):
            for key, cmd in cmds.items():
                for p in paths.values():
                    if os.path.exists(p) and p == cmd[-1]:
                        os.remove(p)
                wall, out, err = cli(cmd, key)
                walls[key].append(wall)
                if key in stages:
                    stages[key].append(profile_stages(err))
        print("run --profile stages (last rep):", json.dumps(stages["run"][-1]))
        print("run --contributions --profile stages (last rep):", json.dumps(stages["contrib"][-1]))
        lens_npz = load_npz(paths["lens"])
        clean_ids = [int(x) for x in lens_npz["ids"]]
        patch_npz = load_npz(paths["patchall" if "patchall" in cmds else "patch"])
        pclean_ids = ids_of(vocab, patch_npz["clean_tokens"])
        corrupt_ids = ids_of(vocab, patch_npz["corrupt_tokens"])
        n = len(clean_ids)
        if n != args.tokens or len(pclean_ids) != pn or len(corrupt_ids) != pn:
            sys.exit(f"texts came to {n}, {len(pclean_ids)} and {len(corrupt_ids)} tokens, not {args.tokens} / {pn}")
        grad = None
        if not args.no_gradient:
            grad = cg.cli_seconds(args.cli, folder, args.tokens)

        # PyTorch, same weights and ids
        def t_forward():
            with torch.no_grad():
                gpt2_forward(w, cfg, clean_ids)

        def t_contrib():
            with torch.no_grad():
                trace = []
                gpt2_forward(w, cfg, clean_ids, trace=trace)
                contributions(trace)

        def t_lens():
            with torch.no_grad():
                lens(w, gpt2_forward(w, cfg, clean_ids)[1])

        last_pm = {}

        def t_patch(sites):
            def go():
                with torch.no_grad():
                    last_pm.update(patch_maps(w, cfg, pclean_ids, corrupt_ids, target, foil, sites))
            return go

        pt = {"run": timed(t_forward, args.reps), "contrib": timed(t_contrib, args.reps),
              "lens": timed(t_lens, args.reps),
              "patch": timed(t_patch(("residual",)), args.reps, warm=False)}
        if "patchall" in cmds:
            pt["patchall"] = timed(t_patch(("residual", "heads", "mlp")), args.reps, warm=False)
        if grad is not None:
            t_fwd_g, t_grad = cg.torch_seconds(w, n, args.reps)
        checks += compare_outputs(w, cfg, load_npz(paths["contrib"]), lens_npz, patch_npz, clean_ids, corrupt_ids,
                                  target, foil, "gpt2-small", 1e-3, last_pm, pclean_ids)[0]
    load1 = os.getloadavg()
    print(f"patch texts: clean_diff {float(patch_npz['clean_diff']):.4f}, "
          f"corrupt_diff {float(patch_npz['corrupt_diff']):.4f}")

    def med(xs):
        return statistics.median(xs), min(xs)

    print("\nAgreement (max abs difference, AttnScope's file vs the PyTorch version here):")
    for name, err, tol in checks:
        verdict = "" if tol == "info" else ("ok" if err <= tol else "OVER")
        print(f"  {name:58s} {err:10.2e}  {'' if tol == 'info' else f'tol {tol:g}'} {verdict}")

    print(f"\nGPT-2 small, {n} tokens, {args.threads} threads; AttnScope: whole CLI processes (wall, includes "
          f"loading the 0.5 GB file and writing the .npz); PyTorch: in this process, weights loaded; "
          f"median (best) of {args.reps}")
    # the CLI opens the 0.5 GB file in every process and PyTorch holds the weights already: the
    # ratio is taken against the process time less run's "open and encode" stage
    open_s = statistics.median(s.get("open and encode", 0.0) for s in stages["run"])
    print(f"AttnScope's 'less open' = whole process - run's open-and-encode stage ({open_s:.3f} s, median)")
    print(f"{'item':44s} {'AttnScope process':>18s} {'less open':>10s} {'PyTorch s':>16s} {'PyTorch/AS':>10s}")
    names = {"run": "(a) forward + every map (run)", "contrib": "(b) + contributions (run --contributions)",
             "lens": "(c) logit lens (lens)", "patch": f"(d) patch residual map {cfg['n_layer']} x {pn}",
             "patchall": "(d') patch residual,heads,mlp"}
    for key in cmds:
        a_med, a_best = med(walls[key])
        p_med, p_best = pt[key]
        print(f"{names[key]:44s} {a_med:8.3f} ({a_best:7.3f}) {a_med - open_s:10.3f} {p_med:7.3f} ({p_best:6.3f}) "
              f"{p_med / (a_med - open_s):9.2f}x")
    rows = []
    st_run = {k: statistics.median(s.get(k, 0.0) for s in stages["run"]) for k in stages["run"][-1]}
    st_con = {k: statistics.median(s.get(k, 0.0) for s in stages["contrib"]) for k in stages["contrib"][-1]}
    print("in-process stages, median: run", json.dumps({k: round(v, 3) for k, v in st_run.items()}))
    print("                 run --contributions", json.dumps({k: round(v, 3) for k, v in st_con.items()}))
    fwd_keys = [k for k in st_run if "forward" in k]
    fwd = st_run[fwd_keys[0]] if fwd_keys else None
    if fwd:  # --contributions are computed inside run's "forward" stage
        extra = st_con[fwd_keys[0]] - fwd
        rows.append(("contributions / forward (in-process forward-stage difference)", extra / fwd, "<= 0.30"))
    else:
        extra = med(walls["contrib"])[0] - med(walls["run"])[0]
        rows.append(("contributions / forward (whole-process difference)", extra / (fwd or med(walls["run"])[0]),
                     "<= 0.30"))
    lens_extra = med(walls["lens"])[0] - med(walls["run"])[0]
    rows.append(("lens / forward (whole process: lens - run)", lens_extra / (fwd or med(walls["run"])[0]), "<= 0.30"))
    rows.append((f"patch residual map {cfg['n_layer']} x {pn}, seconds (process)", med(walls["patch"])[0], "<= 10 s"))
    rows.append(("PyTorch / AttnScope, forward (in-process stage)", pt["run"][0] / fwd if fwd else float("nan"),
                 ">= 3x"))
    rows.append(("PyTorch / AttnScope, forward + contributions (in-process stage)",
                 pt["contrib"][0] / st_con[fwd_keys[0]] if fwd else float("nan"), ">= 3x"))
    for key in cmds:
        if key not in ("run", "contrib"):
            rows.append((f"PyTorch / AttnScope, {key} (process less open)", pt[key][0] / (med(walls[key])[0] - open_s),
                         ">= 3x"))
    if grad is not None:
        g_fwd, g_grad, _ = grad
        rows.append(("gradient / forward (gradients --profile, in process)", g_grad / g_fwd, "<= 2.5x"))
        rows.append(("PyTorch / AttnScope, gradient", t_grad / g_grad, ">= 3x"))
        print(f"gradient: AttnScope forward {g_fwd:.3f} s, gradient {g_grad:.3f} s; PyTorch forward {t_fwd_g:.3f} s, "
              f"autograd gradient {t_grad:.3f} s")
    print(f"\n{'measure':64s} {'value':>8s} {'target':>8s}")
    for name, val, target in rows:
        print(f"{name:64s} {val:8.3f} {target:>8s}")
    print(f"forward used for the fractions: {fwd if fwd else 'run process wall'} s; "
          f"load average before {load0[0]:.2f}, after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")


if __name__ == "__main__":
    main()
