#!/usr/bin/python3
"""AttnScope's whole `attnscope-cli run --model FILE.gguf` process against llama.cpp's prompt
processing alone, on the same random Llama-3.2-1B-shaped GGUF files, in one run.

Usage (from the repository root; not run by CI):

    /usr/bin/python3 scripts/bench/gguf_vs_llamacpp.py [--cli build/lean/bin/attnscope-cli]
        [--types Q8_0,Q4_K_M] [--tokens 128] [--threads 2] [--reps 3] [--workdir /work/bench/gguf]
        [--llamacpp /work/bench/llamacpp]

  1. writes the models once into --workdir (kept and reused; not in git): Llama 3.2 1B's shapes
     (16 layers, d_model 2048, 32 heads, 8 KV heads, FFN 8192, vocabulary 128256, tied head,
     Llama 3 RoPE scaling) with seeded random weights, quantized by tests/scripts/gguf_ref.py as
     Q8_0 (every matrix) and as llama.cpp's Q4_K_M recipe (llama-quant.cpp: the tied
     token_embd and, on the "more bits" layers, attn_v and ffn_down as Q6_K; the rest Q4_K), with
     a byte-level `gpt2` / `llama-bpe` vocabulary padded to 128256 ids; --types F16,BF16 writes
     every matrix unquantized in that type (the shape the forward's own comparison names);
  2. per type and per rep: llama.cpp (node-llama-cpp 3.21.1, `npm i -E node-llama-cpp@3.21.1` in
     --llamacpp; scripts/bench/llamacpp_prompt.mjs) loads the file (timed apart) and evaluates a
     --tokens prompt as one batch, three times in the process (its logits: the last token's);
     then AttnScope's whole process `run --model FILE --text T --out R.npz --next-tokens last`
     (load, tokenize, forward, every layer's and head's map written, the top 5 after the last
     position: the same output head work) on a text of --tokens tokens (checked in R.npz), and
     the default run (the top 5 after every position too);
  3. prints how much of each file the page cache holds in 2 MB folios (--refresh-page-cache
     makes it all: see huge_mapped_share), the medians, the ratio llama.cpp prompt time /
     AttnScope whole-process time (target >= 1.5; also with the top 5 at every position), the
     same ratio of CPU seconds (llama.cpp's process.cpuUsage() around the prompt,
     AttnScope's user + sys: what still means something on a loaded machine), peak RSS of both
     processes (/usr/bin/time -v; llama.cpp's includes node's ~50 MB) and the file size (RSS
     target: AttnScope <= file + 1 GB).
The machine is shared: the load average before and after each type is printed; run it when
`uptime` shows a load below 1 and repeat.
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "scripts"))
import gguf_ref as G  # noqa: E402
from gen_gguf_models import llama_rope_freqs  # noqa: E402

CFG = {"hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
       "intermediate_size": 8192, "vocab_size": 128256, "rope_theta": 500000.0, "rms_norm_eps": 1e-5,
       "max_position_embeddings": 131072,
       "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                        "original_max_position_embeddings": 8192}}
FILE_TYPE = {"Q8_0": 7, "Q4_K_M": 15, "F16": 1, "BF16": 32}  # llama.cpp's llama_ftype


def to_bf16_bytes(x):
    """BF16 by round to nearest even, as ggml_fp32_to_bf16 (no NaN here: the values are N(0, 1/cols))."""
    u = np.asarray(x, np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2").tobytes()


QUANTIZE = {"Q8_0": G.quantize_q8_0, "Q4_K": G.quantize_q4_K, "Q6_K": G.quantize_q6_K,
            "F16": lambda x: G.to_f16_bytes(x).tobytes(), "BF16": to_bf16_bytes}
BOS, EOS = 128000, 128001


def more_bits(layer, layers):
    """llama-quant.cpp use_more_bits: the first and last eighth of the layers and every third between."""
    return layer < layers // 8 or layer >= 7 * layers // 8 or (layer - layers // 8) % 3 == 2


def tensor_type(variant, name, layer, layers):
    if variant in ("Q8_0", "F16", "BF16"):  # every matrix in that type (llama.cpp's converter's --outtype)
        return variant
    if name == "token_embd.weight":  # the tied output head: Q6_K in Q4_K_M
        return "Q6_K"
    if ("attn_v" in name or "ffn_down" in name) and more_bits(layer, layers):
        return "Q6_K"
    return "Q4_K"


def quantized(rng, rows, cols, qtype):
    """rows x cols N(0, 1/cols) values quantized in chunks of rows (bounded memory)."""
    parts, step = [], max(1, (8 << 20) // cols)
    for r0 in range(0, rows, step):
        n = min(step, rows - r0)
        x = rng.standard_normal(n * cols, dtype=np.float32) * np.float32(1 / math.sqrt(cols))
        parts.append(QUANTIZE[qtype](x))
    return b"".join(parts)


def vocabulary():
    """A byte-level BPE vocabulary (GPT-2's byte characters, ids 0..255, three merges), Llama 3's
    special ids, padded to the embedding's rows as llama.cpp's converter pads (type unused)."""
    table = {b: chr(b) for b in range(256)}
    n = 0
    for b in range(256):  # GPT-2's bytes_to_unicode
        if not (33 <= b <= 126 or 161 <= b <= 172 or 174 <= b <= 255):
            table[b] = chr(256 + n)
            n += 1
    tokens = [table[b] for b in range(256)]
    merges = ["Ġ t", "h e", "i n"]
    tokens += ["Ġt", "he", "in"]
    types = [1] * len(tokens)
    while len(tokens) < CFG["vocab_size"]:
        i = len(tokens)
        tokens.append({BOS: "<|begin_of_text|>", EOS: "<|end_of_text|>"}.get(i, f"[PAD{i}]"))
        types.append(3 if i in (BOS, EOS) else 5)
    return [("tokenizer.ggml.model", "str", "gpt2"), ("tokenizer.ggml.pre", "str", "llama-bpe"),
            ("tokenizer.ggml.tokens", "arr:str", tokens), ("tokenizer.ggml.token_type", "arr:i32", types),
            ("tokenizer.ggml.merges", "arr:str", merges), ("tokenizer.ggml.bos_token_id", "u32", BOS),
            ("tokenizer.ggml.eos_token_id", "u32", EOS), ("tokenizer.ggml.add_bos_token", "bool", True)]


def write_model(path, variant):
    c = CFG
    d, f, L, V = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"], c["vocab_size"]
    hd = d // c["num_attention_heads"]
    kv = c["num_key_value_heads"] * hd
    rng = np.random.default_rng(1)
    norm = lambda: (1 + 0.1 * rng.standard_normal(d)).astype("<f4").tobytes()  # noqa: E731
    tensors = []

    def matrix(name, rows, cols, layer=0):
        qtype = tensor_type(variant, name, layer, L)
        tensors.append((name, [cols, rows], qtype, quantized(rng, rows, cols, qtype)))

    matrix("token_embd.weight", V, d)
    tensors.append(("rope_freqs.weight", [hd // 2], "F32", llama_rope_freqs(c, hd).astype("<f4").tobytes()))
    for i in range(L):
        p = f"blk.{i}."
        tensors.append((p + "attn_norm.weight", [d], "F32", norm()))
        for name, rows, cols in (("attn_q", d, d), ("attn_k", kv, d), ("attn_v", kv, d), ("attn_output", d, d)):
            matrix(p + name + ".weight", rows, cols, i)
        tensors.append((p + "ffn_norm.weight", [d], "F32", norm()))
        for name, rows, cols in (("ffn_gate", f, d), ("ffn_up", f, d), ("ffn_down", d, f)):
            matrix(p + name + ".weight", rows, cols, i)
    tensors.append(("output_norm.weight", [d], "F32", norm()))
    a = "llama"
    meta = [("general.architecture", "str", a), ("general.name", "str", f"random-llama-3.2-1b-{variant}"),
            ("general.file_type", "u32", FILE_TYPE[variant]),
            (f"{a}.context_length", "u32", c["max_position_embeddings"]), (f"{a}.embedding_length", "u32", d),
            (f"{a}.block_count", "u32", L), (f"{a}.feed_forward_length", "u32", f),
            (f"{a}.attention.head_count", "u32", c["num_attention_heads"]),
            (f"{a}.attention.head_count_kv", "u32", c["num_key_value_heads"]),
            (f"{a}.rope.freq_base", "f32", c["rope_theta"]),
            (f"{a}.attention.layer_norm_rms_epsilon", "f32", c["rms_norm_eps"]),
            (f"{a}.rope.dimension_count", "u32", hd), (f"{a}.vocab_size", "u32", V)]
    tmp = path + ".part"
    G.write_gguf(tmp, meta + vocabulary(), tensors)
    os.replace(tmp, path)


def timed(cmd, env=None):
    """(wall seconds, peak RSS bytes, user + system CPU seconds, stdout) of cmd under /usr/bin/time -v."""
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1)) * 1024
    cpu = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", r.stderr).group(1)) for k in ("User", "System"))
    return wall, rss, cpu, r.stdout


def load_average():
    return open("/proc/loadavg").read().split()[0]


MADV_POPULATE_READ = 22  # linux/mman.h; Python's mmap module does not name it


def huge_mapped_share(path):
    """The share of the file that a read-only mapping of it gets in 2 MB page-table entries
    (FilePmdMapped / Rss of that mapping in /proc/self/smaps): the page cache's folio sizes.
    Pages that came into the cache from disk through a mapping asking for huge pages (as
    AttnScope's does) are 2 MB folios; a file written moments ago (these models, a fresh
    download) sits in small ones. Under a shadow-paging hypervisor (this VM) each new
    4 KB entry costs about 1 us on first touch, 0.3-0.4 s for a 1.3 GB file in every process;
    llama.cpp's prompt figure (third evaluation in one process) never pays it."""
    import mmap
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as mm:
        try:
            mm.madvise(mmap.MADV_HUGEPAGE)
            mm.madvise(MADV_POPULATE_READ)
        except OSError:
            pass
        rss = pmd = 0
        inside = False
        with open("/proc/self/smaps") as smaps:
            for line in smaps:
                if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                    inside = line.rstrip().endswith(os.path.realpath(path))
                elif inside and line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif inside and line.startswith("FilePmdMapped:"):
                    pmd += int(line.split()[1])
        return pmd / rss if rss else 0.0


def refresh_page_cache(path):
    """Drops the file's cached pages and reads it back through a mapping that asks for huge
    pages, so the cache holds it in 2 MB folios (as after a reboot and a first AttnScope run)."""
    import mmap
    with open(path, "rb") as f:
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        with mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as mm:
            mm.madvise(mmap.MADV_HUGEPAGE)
            mm.madvise(MADV_POPULATE_READ)


def prompt_text(tokens):
    """tokens - 1 digits: llama-bpe splits digits into groups of up to three and no merge joins
    them, so each is one token; with BOS, `tokens` tokens."""
    return "".join(str(i % 10) for i in range(tokens - 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "lean", "bin", "attnscope-cli"))
    ap.add_argument("--types", default="Q8_0,Q4_K_M")
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--workdir", default="/work/bench/gguf")
    ap.add_argument("--llamacpp", default="/work/bench/llamacpp", help="where npm i -E node-llama-cpp@3.21.1 ran")
    ap.add_argument("--skip-llamacpp", action="store_true")
    ap.add_argument("--cli-args", default="",
                    help="more arguments for attnscope-cli run, e.g. '--quantized-dot off'")
    ap.add_argument("--refresh-page-cache", action="store_true",
                    help="drop each file's cached pages and read it back in 2 MB folios first")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads))
    cpu = sorted(set(re.findall(r"avx512\w*", open("/proc/cpuinfo").read())))
    print(f"CPU: {os.cpu_count()} cores, {' '.join(cpu) or 'no AVX-512'}")
    info = subprocess.run([a.cli, "info", "--system"], capture_output=True, text=True, env=env).stdout
    level = re.search(r"Kernel level:\s*(.*)", info)
    print(f"AttnScope engine: {level.group(1) if level else '?'}; {a.threads} threads; {a.tokens} tokens")
    rows = []
    for variant in a.types.split(","):
        path = os.path.join(a.workdir, f"random-llama-3.2-1b-{variant}.gguf")
        if not os.path.exists(path):
            t0 = time.perf_counter()
            write_model(path, variant)
            print(f"wrote {path} in {time.perf_counter() - t0:.0f} s")
        size = os.path.getsize(path)
        if a.refresh_page_cache:
            refresh_page_cache(path)
        huge = huge_mapped_share(path)
        load0 = load_average()
        ll_load, ll_pp, ll_cpu, ll_rss, at_wall, at_cpu, at_rss = [], [], [], [], [], [], []
        every_wall, every_cpu = [], []
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.npz")
            for _ in range(a.reps):
                if not a.skip_llamacpp:
                    script = os.path.join(HERE, "llamacpp_prompt.mjs")
                    _, rss, _, stdout = timed(["node", script, a.llamacpp, path, str(a.tokens), str(a.threads), "3"])
                    j = json.loads(stdout.strip().splitlines()[-1])
                    ll_load.append(j["load_s"] + j["context_s"])
                    best = min(range(len(j["prompt_s"])), key=lambda i: j["prompt_s"][i])
                    ll_pp.append(j["prompt_s"][best])
                    ll_cpu.append(j["prompt_cpu_s"][best])
                    ll_rss.append(rss)
                if os.path.exists(out):
                    os.remove(out)
                # The same work as llama.cpp's prompt figure: every layer, and the output head at the
                # last position only (llama.cpp computes the logits of the tokens it is asked for,
                # the last); then the default run, the top 5 after every position as well.
                for every in (False, True):
                    if os.path.exists(out):
                        os.remove(out)
                    cmd = [a.cli, "run", "--model", path, "--text", prompt_text(a.tokens), "--out", out]
                    cmd += ([] if every else ["--next-tokens", "last"]) + a.cli_args.split()
                    wall, rss, cpu, _ = timed(cmd, env)
                    (every_wall if every else at_wall).append(wall)
                    (every_cpu if every else at_cpu).append(cpu)
                    at_rss.append(rss)
            with np.load(out) as z:
                n = len(z["tokens"])
                shape = z["weights"].shape
            if n != a.tokens:
                raise SystemExit(f"AttnScope ran {n} tokens, not {a.tokens}")
        med = statistics.median
        print(f"\n{variant}: {size / 1e9:.3f} GB, load average {load0} -> {load_average()}, AttnScope wrote "
              f"weights {list(shape)}")
        print(f"  page cache: {100 * huge:.0f}% of the file mapped in 2 MB pages"
              + (" (refreshed)" if a.refresh_page_cache else ""))
        print(f"  AttnScope whole process, next tokens at the last position: {med(at_wall):.2f} s "
              f"(runs {', '.join(f'{t:.2f}' for t in at_wall)}), CPU {med(at_cpu):.2f} s, "
              f"peak RSS {max(at_rss) / 1e9:.2f} GB (target <= {(size + 1e9) / 1e9:.2f})")
        print(f"  AttnScope whole process, next tokens at every position (the default): {med(every_wall):.2f} s "
              f"(runs {', '.join(f'{t:.2f}' for t in every_wall)}), CPU {med(every_cpu):.2f} s")
        if ll_pp:
            ratio = med(ll_pp) / med(at_wall)
            print(f"  llama.cpp prompt processing: {med(ll_pp):.2f} s (best of 3 per process: "
                  f"{', '.join(f'{t:.2f}' for t in ll_pp)}), CPU {med(ll_cpu):.2f} s, load + context {med(ll_load):.2f} s, "
                  f"peak RSS {max(ll_rss) / 1e9:.2f} GB")
            cpu_ratio = med(ll_cpu) / med(at_cpu)
            print(f"  ratio llama.cpp prompt / AttnScope whole: {ratio:.2f}x wall (target >= 1.5), "
                  f"{cpu_ratio:.2f}x CPU seconds (what a loaded machine still measures)")
            every = med(ll_pp) / med(every_wall)
            print(f"  with the top 5 at every position: {every:.2f}x wall")
            rows.append((variant, size, huge, med(at_wall), med(every_wall), med(ll_pp), ratio, cpu_ratio, every))
    if rows:
        print("\n| file | size | 2 MB-mapped | AttnScope whole process (last / every position) | "
              "llama.cpp prompt only | ratio (wall) | ratio (CPU s) | ratio, every position |")
        print("|---|---|---|---|---|---|---|---|")
        for v, size, huge, at, ev, ll, ratio, cpu_ratio, every in rows:
            print(f"| {v} | {size / 1e9:.2f} GB | {100 * huge:.0f}% | {at:.2f} / {ev:.2f} s | {ll:.2f} s | "
                  f"{ratio:.2f}x | {cpu_ratio:.2f}x | {every:.2f}x |")


if __name__ == "__main__":
    main()
