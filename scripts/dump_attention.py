#!/usr/bin/python3
"""Dump a PyTorch attention layer's Q/K/V, inputs, weights and attention maps
to an .npz that AttnScope opens (File > Open, or `attnscope-cli info/run --input`).

Runs offline with Debian's python3-torch: a small stack of
torch.nn.MultiheadAttention layers on seeded random embeddings, no downloads.

    /usr/bin/python3 scripts/dump_attention.py --out dump.npz
    attnscope-cli info dump.npz
    attnscope-cli run --input dump.npz --out result.npz

Arrays written (names and shapes are AttnScope's file contract, README "Input arrays"):
    tokens [N]                     token strings
    x [N, d_model]                 layer-1 input embeddings
    w_q, w_k, w_v, w_o [d_in, d_out]  layer-1 projections (x @ w_q = queries)
    q, k, v [H, N, d_k]            layer-1 per-head projected queries/keys/values
    attn [L, H, N, N]              each layer's attention weights (rows sum to 1)

With a Hugging Face model the same file comes from output_attentions (needs
`transformers` and the model files; not run here):

    from transformers import AutoModel, AutoTokenizer
    tok = AutoTokenizer.from_pretrained("bert-base-uncased")
    model = AutoModel.from_pretrained("bert-base-uncased", output_attentions=True).eval()
    enc = tok("The cat sat on the mat.", return_tensors="pt")
    with torch.no_grad():
        out = model(**enc)
    attn = torch.stack(out.attentions)[:, 0]          # L x [1, H, N, N] -> [L, H, N, N]
    tokens = tok.convert_ids_to_tokens(enc["input_ids"][0])
    np.savez("bert.npz", attn=attn.numpy(), tokens=np.array(tokens))

    # Q/K/V of one layer: hook the projections and split heads.
    qkv = {}
    layer = model.encoder.layer[0].attention.self
    for name in ("query", "key", "value"):
        getattr(layer, name).register_forward_hook(lambda m, i, o, n=name: qkv.__setitem__(n, o[0]))
    with torch.no_grad():
        model(**enc)
    H = layer.num_attention_heads
    heads = lambda t: t.view(t.shape[0], H, -1).transpose(0, 1).numpy()  # [N, H*dk] -> [H, N, dk]
    np.savez("bert_layer0.npz", q=heads(qkv["query"]), k=heads(qkv["key"]), v=heads(qkv["value"]),
             tokens=np.array(tokens))

(BERT's projections have biases, so dump q/k/v as above rather than x + w_*; GPT-2
uses one fused c_attn: split its output in three along the last axis.)
"""
import argparse

import numpy as np
import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="dump.npz")
    ap.add_argument("--text", default="The animal didn't cross the street because it was too tired .")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--d-model", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    tokens = args.text.split()
    n, d, h = len(tokens), args.d_model, args.heads
    x = torch.randn(n, d)
    # No biases, so x @ w_q etc. reproduce the projections exactly in AttnScope.
    layers = [torch.nn.MultiheadAttention(d, h, bias=False, batch_first=True) for _ in range(args.layers)]

    maps, hidden = [], x.unsqueeze(0)
    with torch.no_grad():
        for mha in layers:
            out, w = mha(hidden, hidden, hidden, need_weights=True, average_attn_weights=False)
            maps.append(w[0])  # [H, N, N]
            hidden = hidden + out  # residual, as in a transformer block
        first = layers[0]
        w_q, w_k, w_v = first.in_proj_weight.chunk(3)  # each [d_out, d_in]
        split = lambda t: t.view(n, h, d // h).transpose(0, 1)  # [N, H*dk] -> [H, N, dk]
        np.savez_compressed(
            args.out,
            tokens=np.array(tokens),
            x=x.numpy(),
            w_q=w_q.T.numpy(), w_k=w_k.T.numpy(), w_v=w_v.T.numpy(), w_o=first.out_proj.weight.T.numpy(),
            q=split(x @ w_q.T).numpy(), k=split(x @ w_k.T).numpy(), v=split(x @ w_v.T).numpy(),
            attn=torch.stack(maps).numpy(),
        )
    print(f"wrote {args.out}: {n} tokens, {args.layers} layers x {h} heads, d_model {d}")


if __name__ == "__main__":
    main()
