<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>BackendChoices</name>
    <message>
        <source>CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CUDA (unavailable)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not available: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Auto (%1)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelText</name>
    <message>
        <source>%1 B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 M</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 K</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n layer</numerusform>
            <numerusform>%n layers</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n head(s) of %1</source>
        <translation>
            <numerusform>%n head of %1</numerusform>
            <numerusform>%n heads of %1</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <comment>layers × heads</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (%1 KV heads)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fixed by the model: %1 scores with scaled dot-product attention, softmax(q·k / √d_k).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fixed by the model: %1's %2 heads of %3 (d_model %4, %5 layers).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fixed by the model: %1 applies softmax at temperature 1, as it was trained.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fixed by the model: its weights are read from the model folder, not drawn from a seed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fixed by the model: %1 is causal; each token attends to itself and the tokens before it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fixed by the model: %1 is bidirectional; every token attends to every token.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fixed by the model: %1 rotates q and k by position (RoPE).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fixed by the model: %1 adds its learned position embeddings to the tokens.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fixed by the model: %1 runs its own forward pass on the CPU and keeps every head's weights.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The second segment of a sentence pair (token type 1), as BERT reads "[CLS] A [SEP] B [SEP]".</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 reads one text; a second segment applies to BERT-style models only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, %2 bits/weight</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>Row and column</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running the model: layer %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running the model: next-token predictions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Translation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The text has no tokens; type a sentence.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight (shared scale)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Metrics</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 x %2 tokens: the full N x N attention would need about %3 GB (limit: %4 tokens, View &gt; Sequence Limit). The metrics-only view computes entropy without it, up to %5 tokens.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Out of memory: this request needs more memory than is available. Use fewer tokens or heads.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tiling and approximation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>collapse: head %1 near one-hot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>collapse: head %1 near uniform</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>full</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>partly masked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>skipped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Execution: %1, picked by auto (Nq·Nk = %2 ≤ 512²: every intermediate kept)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Execution: %1, picked by auto (Nq·Nk = %2 &gt; 512²: tiles with an online softmax)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Execution: %1 (asked for %2, which does not cover mechanism %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Execution: %1 (chosen)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weights: not comparable (the N×k map has slots, not keys)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weights ‖A − A&lt;sub&gt;exact&lt;/sub&gt;‖&lt;sub&gt;F&lt;/sub&gt; = %1, mean row KL = %2 nats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head %1 vs exact softmax: %2; outputs relative error %3%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the model returned no layers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Out of memory: this request needs more memory than is available. Use a shorter text.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Predictions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens: over the limit of %2 tokens for which the window keeps every layer's N x N attention (View &gt; Sequence Limit); shorten the text.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::CoreText</name>
    <message>
        <source>None</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every query attends to every key.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Causal (look-ahead)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query i sees keys j &lt;= i only (decoder self-attention).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Padding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keys that are pad tokens ([PAD], &lt;pad&gt;), or keys at or past LEN, are removed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>number of real (non-pad) keys; empty: read pad tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sliding window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query i sees keys with |i - j| &lt;= W; with causal, the W previous keys.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>keys on each side of the query (at least 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dilated window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Window with gaps: |i - j| &lt;= W*D and i - j divisible by D (Longformer).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>keys on each side (at least 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dilation: distance between kept keys (at least 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Listed positions attend to and are attended by every token (Longformer).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>comma-separated token positions, from 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Block-diagonal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query i sees keys in its own block of B positions.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>block size (at least 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Random</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each cell kept with probability P, seeded (BigBird's random attention).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>keep probability in [0, 1]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seed; the same seed gives the same cells</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Custom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A keep bitmap [Nq, Nk] from the input file's 'mask' array (1 = keep).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No position information: attention is permutation-equivariant.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sinusoidal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sin/cos of position at geometric frequencies, added to the embeddings (Vaswani et al. 2017).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learned (seeded)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A seeded absolute position table added to the embeddings (as in BERT, GPT-2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rotary (RoPE)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rotates q and k pairwise by position, so q.k depends on the offset only (Su et al. 2021).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ALiBi</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adds -m_h |i - j| to head h's logits, with geometric slopes m_h (Press et al. 2022).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>T5 relative bias</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adds a seeded per-head bias looked up by log-bucketed offset j - i (Raffel et al. 2020).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>embeddings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>q and k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>logits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mean entropy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>min row entropy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max row entropy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>normalized entropy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>confidence (mean max weight)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max - min weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max / min weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mean attention distance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share on self</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share on previous token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share on next token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share on first token (sink)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share on separators/punctuation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>keys covering the mass (k)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>k / unmasked keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>near-uniform rows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>near-one-hot rows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>keys</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui</name>
    <message>
        <source>Head %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
uniform bound log N: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
FLAG: near-uniform</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
FLAG: near-one-hot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
%1 fully masked row(s) left out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ %1Head %2 is near-uniform: %3% of its rows have normalized entropy above %4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ %1Head %2 is near-one-hot: on %3% of its rows one key takes more than %4 of the mass.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flags: near-uniform when normalized entropy &gt; %1, near-one-hot when one key &gt; %2 of the mass, on more than %3% of rows with 2+ unmasked keys. Sparsity k covers %4% of each row's mass.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::AboutDialog</name>
    <message>
        <source>About AttnScope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;AttnScope %1&lt;/b&gt; — an attention visualizer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>forced by ATTNSCOPE_CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the highest installed level this CPU supports</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kernel level:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compiled for:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Threads:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(unavailable: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backends:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Qt:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eigen:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy for a Bug Report</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::BlockScheduleWidget</name>
    <message>
        <source>key tiles →</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>query tiles →</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::BundledModelsMenu</name>
    <message>
        <source>Open &amp;Bundled Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xamples</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPT-2 trained on Jane Austen&apos;s novels: attention learned from English prose</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>BERT trained on Jane Austen&apos;s novels: bidirectional attention, heads on the previous and the next token, predictions at each [MASK]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Two attention-only layers trained on word sequences that repeat: type a phrase twice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Character-level GPT-2 trained on Tang and Song poems: heads that pair the two lines of a couplet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Random-projection explorer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close the model and explore the mechanisms with seeded random projections on this text.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The bundled model %1 is not installed (looked in %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The bundled model %1 is not installed: showing the random-projection explorer.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::ClassroomActions</name>
    <message>
        <source>&amp;Export Figure…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export &amp;Data…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Presentation Mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token Lines: All Heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step-through</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token lines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Toy example</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heatmap (current head)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All heads (grid)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step-through (current step)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare view</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Toy example heatmap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to export yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head %1 — mask: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 heads — mask: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The toy example has a cell that is not a number.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown view.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What to export (every head):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data (*.csv *.npy *.npz *.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Metrics: per-head bars</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Metrics: per-row curve</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Metrics: head similarity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Metrics: rollout / flow (layers)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The metrics are not computed yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rollout and flow need an input with layers (an 'attn' array [L, H, N, N]).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %1 of %2: %3 heads</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::ComparePanel</name>
    <message>
        <source>A: head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B: head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same as A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B's mask, e.g. causal; empty keeps A's mask. Press Enter to apply.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B's mask: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B's execution path, e.g. performer to compare an approximation with exact attention.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head %1, mask %2, T = %3, %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B: layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model layer B shows; A is the layer chosen in the head grid.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A second sentence for B, run through the same model (as many tokens as A's to compare cell by cell); empty uses A's text. Press Enter to apply.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %1, head %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::CompareView</name>
    <message>
        <source>weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B − A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Difference B − A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mean |B − A| = %1    max |B − A| = %2
entropy (nats): A %3, B %4, Δ %5    same top key: %6%    mean JS divergence: %7
A as exact: ‖B − A‖_F = %8    mean row KL(A‖B) = %9 nats</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::ConfigPanel</name>
    <message>
        <source>GPU inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How the CUDA backend stores Q, K, V (fp16 and bf16: half the memory on the tiled paths); arithmetic stays fp32, and the difference from fp32 inputs is reported.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only the CUDA backend stores Q, K, V in fp16 or bf16; no CUDA device was found.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Number of attention heads, each with its own projections.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Width of the token embeddings (d_model); with d_k on auto it must divide by the heads.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto (d_model / heads)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Width of each head's queries and keys (d_k); auto uses d_model / heads.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Divides the logits before softmax: below 1 sharpens attention, above 1 flattens it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How the seeded projection matrices W_Q, W_K, W_V, W_O are drawn.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed for embeddings and weights: the same seed gives the same numbers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which keys each query may attend to; masked cells get weight exactly 0.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How token positions enter attention (added to embeddings, rotated into q and k, or a logit bias).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where attention runs; an unavailable backend falls back to the CPU with a warning.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mechanism</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>d_model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Init</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Positions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Execution</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backend</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The score function that compares each query with each key: dot, scaled dot, general (bilinear), additive (Bahdanau) or cosine.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto (d_k)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hidden size of the additive score's tanh layer; used by the additive mechanism only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 Applied to: %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How attention is evaluated: naive keeps every N x N step, tiled uses an online softmax, performer / linear_elu / linformer approximate it (error in the status bar).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hidden</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — the previous view is kept.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::FigureExportDialog</name>
    <message>
        <source>Replace file?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 already exists. Replace it?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One colour scale for all heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> px</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A4 width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Width of an A4 page (210 mm) at the chosen DPI, 4:3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Figures (*.png *.svg *.pdf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>figure.png, figure.svg or figure.pdf</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DPI</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Colormap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use a .png, .svg or .pdf file name.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::FileOpenController</name>
    <message>
        <source>&amp;Open…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent &amp;Files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open tensors (.npz, .npy, .safetensors, .csv), text (.txt) or a session (.json).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: unknown file type '%2' (open .npz, .npy, .safetensors, .csv, .txt or a .json session)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Everything AttnScope opens (*.npz *.npy *.safetensors *.csv *.txt *.json);;Tensors (*.npz *.npy *.safetensors *.csv);;Text (*.txt);;Sessions (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 no longer exists; it was removed from Recent Files.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::HeadGrid</name>
    <message>
        <source>Every head at a glance; click one (or use the arrow keys) to open it in the heatmap.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No result yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>H%1  %2 nats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %1, head %2: mean entropy %3 nats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head %1: mean entropy %2 nats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>H%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>L%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>H%1 %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::HeadTypesController</name>
    <message>
        <source>prev.</source>
        <comment>previous-token head</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ind.</source>
        <comment>induction head</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dup.</source>
        <comment>duplicate-token head</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>prev-token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>induction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>duplicate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sink</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>self</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>local</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>broad</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 (label at ≥ %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head type: %1 (on a repeated random sequence)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>duplicate token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>previous token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>first token (sink)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>local (±%1 tokens)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head types</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::HeatmapPanel</name>
    <message>
        <source>weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens, streamed: only the weights are recomputed from the kept q/k; logits and the mask are not drawn.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weights — layer %1 of %2, head %3 of %4 — %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(zoom in to read single cells: each drawn cell pools %1×%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; → &lt;b&gt;%2&lt;/b&gt;&lt;br&gt;query %3, key %4&lt;br&gt;weight %5&lt;br&gt;&lt;i&gt;recomputed from the kept q/k&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which attention head the heatmap shows (Ctrl+PgDown / Ctrl+PgUp step through heads).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scaled logits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Raw logits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the heatmap draws: softmax weights, logits before softmax, or which cells the mask keeps.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Colours </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Colormap; 'diverging' centres logits and differences on white.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Reset View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Next Head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Previous Head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unpin Row</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;i&gt;zoom in to see single cells (each drawn cell pools %1×%1)&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; → &lt;b&gt;%2&lt;/b&gt;&lt;br&gt;query %3, key %4&lt;br&gt;raw logit %5&lt;br&gt;scaled logit %6&lt;br&gt;weight %7&lt;br&gt;%8%9</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>masked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not masked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — head %2 of %3 — %4 — mask: %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — the previous view is kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show &amp;Masked Cells</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dims and hatches the cells the mask removed and outlines rows whose every key is masked.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(not in the file)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(not kept on the %1 path)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>masked — every key of this query is masked, so its weights are all 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Metrics-only view: %1 tokens is over the N x N limit, so no weights were kept; the Metrics panel shows entropy per head and per row.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Precomputed weights from %1: the file has no logits to draw.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 path keeps weights only, not logits; choose Execution: naive to see them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — layer %2 of %3, head %4 of %5 — %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compute metrics only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(not kept: the text is too long to keep every layer's logits)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens: the model kept every layer's weights but not its logits (they would take too much memory); choose Draw: weights.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::HeatmapWidget</name>
    <message>
        <source>%1 — computing the overview…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max of %1 × %1 blocks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mean of %1 × %1 blocks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — rows %2–%3 × keys %4–%5 at full resolution</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>query</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::InputPanel</name>
    <message>
        <source>Type or paste a sentence…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The query sequence; every edit recomputes attention.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(empty: self-attention)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A second sequence to attend to (cross-attention); leave empty for self-attention.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Words and punctuation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How text is split into tokens: on whitespace, with each punctuation mark its own token.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose an example…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replace the query text with a bundled example sentence.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Example</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>text: %1 query tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>key text: %1 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>embeddings: seeded, [%1, %2]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit Query Text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Back to Text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What is loaded: each array with its dtype, shape and use, and the views it feeds.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Computed from the file (current mechanism)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The file's attention weights ('attn')</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The file has both inputs and precomputed weights: compute attention from q/k/v or x with the configuration, or show its 'attn' as it is, layer by layer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forget the loaded file and attend over the text above again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>showing 'attn': layer %1 of %2 (pick a tile in the head grid)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (the model's own)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fixed by the model: %1 splits text with its own tokenizer (%2), exactly as it was trained.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(empty: one segment)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(not used by this model)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::MainWindow</name>
    <message>
        <source>AttnScope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Configuration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Panels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About AttnScope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About AttnScope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AttnScope %1 — an attention visualizer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heads</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::MaskSelector</name>
    <message>
        <source>; with other masks checked it removes cells from what they allow.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>from pad tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checked patterns join (union); causal and padding then remove cells.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Composition rule: a cell is kept if any checked pattern keeps it and every checked restriction (causal, padding) keeps it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spec</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The mask as the command line writes it (e.g. causal+window:4); edit it and press Enter, and the rows above follow.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::MetricsBarChart</name>
    <message>
        <source>head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>uniform: log %1 = %2 %3</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::MetricsPanel</name>
    <message>
        <source>No rollout: a streamed run keeps no layer&apos;s map</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which per-head measure the bars show.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>row entropy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>normalized entropy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mean attention distance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>keys covering the mass (k)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which per-row measure the curve shows for the selected head.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Entropy in bits instead of nats.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sparsity: the share of a row's mass that its k largest weights must cover.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which layer's heads the bars and the row curve show.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention rollout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention flow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How attention composes through the layers (Abnar &amp; Zuidema 2020): rollout multiplies the layers' head-averaged attention with the residual; flow is a max-flow.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JS divergence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share of input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>input token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>token after the last layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bars</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>k covers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Selected head, per row:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head similarity (Jensen–Shannon divergence, similar heads adjacent):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Too many heads × tokens to compare every pair here; use attnscope-cli metrics.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer %1, </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No head selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>entropy (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>distance (tokens)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>k (keys)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %1, head %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 per query token — %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>h%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>0 = identical heads, max log 2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No rollout: the layers are not square self-attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flow not computed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention flow through %1 layer(s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention rollout through %1 layer(s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer %1: </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max − min weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max / min weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>relative-offset profile (mass at j − i)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mass at each key offset j − i, averaged over rows — %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mass</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max − min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max / min</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::MetricsRowChart</name>
    <message>
        <source>uniform bound log(unmasked keys)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>query token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>row %1 %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::ModelInfoBox</name>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close the model and attend over the text with the configured mechanism again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Family: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameters: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weights: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokenizer: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>causal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bidirectional</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokenizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens · layer %2 of %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::ModelOpenController</name>
    <message>
        <source>Opened %1 (encoder–decoder, %2 + %3 layers) in %4 ms: see the Translation dock</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent &amp;Models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder (config.json, safetensors weights, tokenizer files) or its cache directory models--org--name, and run the text through it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop loading the model; the current view stays as it is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opening %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: not enough memory to open this model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped opening %1; the view is unchanged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open the model %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opened %1: %2, %3 parameters, in %4 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Model Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;Model Folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Model &amp;File (GGUF)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open O&amp;llama Model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a GGUF model file (llama.cpp, LM Studio; F32, F16, Q8_0, Q4_K_M and other quantized types) with its embedded tokenizer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pick one of the models Ollama has downloaded ($OLLAMA_MODELS or ~/.ollama/models).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Model File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 no longer exists</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; it was removed from Recent Models.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::PredictionPanel</name>
    <message>
        <source>The model's five most probable next tokens after the pinned query position (click a heatmap row to pin it; the last token when none is pinned). Masked-LM models (BERT): the five most probable tokens at a [MASK] of the text.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a model (File &gt; Open Model…) to see what it predicts after each token.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next-token predictions are for causal models (GPT-2, Llama); %1 is bidirectional and sees the whole text at once.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next-token predictions are for causal models (GPT-2, Llama); %1 is bidirectional: type %2 in place of a word to see what it predicts there.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At %1 (position %2), %3 predicts (pin another %1 row to see its predictions):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At %1 (position %2), %3 predicts:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is running…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>After %1 (position %2, pinned), %3 predicts:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>After the last token %1 (position %2), %3 predicts (click a heatmap row to pin another):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::PreferencesMenu</name>
    <message>
        <source>Sequence &amp;Limit…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sequence Limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Longest sequence drawn as a full N x N matrix (memory grows as N² per head):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The language changes the next time AttnScope starts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dark</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::PresentationWindow</name>
    <message>
        <source>AttnScope — presentation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head %1 of %2 — mask: %3</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::RecentPathsMenu</name>
    <message>
        <source>(none)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::RecoveryPrompt</name>
    <message>
        <source>Restore session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AttnScope did not exit cleanly. Restore the session autosaved at %1?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Autosave failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::SessionController</name>
    <message>
        <source>Open &amp;Session…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save Session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save Session &amp;As…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent Sessions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open the session: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not save the session: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AttnScope session (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save Session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replace file?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 already exists. Replace it?</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::StatusSummary</name>
    <message>
        <source>%1 tokens: maps recomputed from the kept q/k (streamed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>N = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nq = %1, Nk = %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>heads = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>computing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error: %1 (previous view kept)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %1 of %2 from the file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>path %1 (picked by auto)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>path %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approx. error: output %1%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approx. error: output %1%, weights Frobenius %2, row KL %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %1 of %2 of %3</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::StepThroughPanel</name>
    <message>
        <source>Query and keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Raw scores: dot products</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Additive: project q and every k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Additive: add and squash with tanh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Additive: score with v</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scale by √d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Divide by the temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add the positional bias</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply the mask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Softmax: scores become weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weight the values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output: sum of weighted values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>query “%1”: q = x W_Q;  every key j: k_j = x_j W_K   (d_k = %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s_j = q · k_j = Σ_d q_d k_j,d</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>W_qᵀ q (above) and W_kᵀ k_j (per key), hidden size %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>h_j = tanh(W_qᵀ q + W_kᵀ k_j)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s_j = vᵀ h_j</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s_j / √d_k = s_j / √%1 = s_j × %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s_j / T,  T = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>T = 1 leaves the scores as they are; T &gt; 1 flattens, T &lt; 1 sharpens the softmax.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>before</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>after</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s_j + b_j  (positional bias)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s_j stays where key j is visible, −∞ where the mask hides it</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n key(s) hidden</source>
        <translation>
            <numerusform>%n key hidden</numerusform>
            <numerusform>%n keys hidden</numerusform>
        </translation>
    </message>
    <message>
        <source>a_j = e^(s_j − m) / Σ e^(s − m),   m = %1,   Σ = %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every key is hidden: all weights are 0.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Subtracting the maximum m keeps e^x from overflowing.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every value v_j is multiplied by its weight a_j</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>o = Σ_j a_j v_j = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step through the selected query row: Right / Space next, Left / Backspace back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a query row to step through its attention.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step %1 of %2 — query “%3”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>key</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>… %n more key(s)</source>
        <translation>
            <numerusform>… %n more key</numerusform>
            <numerusform>… %n more keys</numerusform>
        </translation>
    </message>
    <message>
        <source>General: multiply q by W</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cosine: scale q and every k to length 1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>u = qᵀ W,  W is d_q × d_k = %1 × %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>q̂ = q / |q|,  k̂_j = k_j / |k_j|,   |q| = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only directions count: every score will lie in [−1, 1].</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s_j = u · k_j = qᵀ W k_j</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s_j = q̂ · k̂_j = cos(q, k_j)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::StepThroughView</name>
    <message>
        <source>◀ Previous</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The query row to walk through (or click a row of the heatmap).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous step (Left)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next step (Right or Space)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::TilingPanel</name>
    <message>
        <source>Teaching tile size (queries × keys). The engine's tiled path uses 256 × 512 tiles, the sparse path 64 × 64; the numbers do not depend on it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The query row whose online softmax is traced (follows the pinned row).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tile size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query row</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tile max</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max m</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rescale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sum l</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>H so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running max m of the row after this tile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e^(m_old − m_new): the factor applied to l and the output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running normalizer l = Σ e^(s − m) over the keys seen so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>entropy so far, H = log l − t/l (t = Σ e^(s − m)(s − m))</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No result yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;span style='color:%1'&gt;■&lt;/span&gt; computed &amp;nbsp; &lt;span style='color:%2'&gt;■&lt;/span&gt; computed, mask tested cell by cell &amp;nbsp; &lt;span style='color:#aaaaaa'&gt;■&lt;/span&gt; skipped — %3 of %4 tiles of %5 × %5 computed (%6 need cell tests); the outlined band holds row %7.%8</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Tiles enlarged to %1 to fit %2 tokens.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Row %1: H = log l − t/l = %2 nats after the last tile; the engine's entropy of this row (%3 path): %4 nats. The tiled path itself runs %5 × %6 tiles (sparse: 64 × 64).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::TokenLinesWidget</name>
    <message>
        <source>Hover a token to see only its lines.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::ToyInputPanel</name>
    <message>
        <source>Q: one row per token (its query vector)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>K: one row per token (its key vector)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>V: one row per token (its value vector)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Causal mask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scale by √d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token labels, separated by spaces.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tokens ×</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dims</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>T</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1[%2, %3]: '%4' is not a number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Toy example: softmax(QKᵀ/√d_k)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Toy example: softmax(QKᵀ)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::TrainingConfigForm</name>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reverse</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sort digits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shift by one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Translate (cross-attention)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Matching bracket</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy the input: each output position should attend to the same input position (the diagonal).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reverse the input: output position i should attend to input position N−1−i (the anti-diagonal).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sort the digits: output position i should attend to the i-th smallest input (the sorting permutation).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shift by one: output position i should attend to input position i−1 (the sub-diagonal).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Translate word by word into a toy language that swaps adjacent words: each target position attends across to the source word it translates (encoder–decoder cross-attention).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find the matching bracket: each position should attend to the bracket that closes or opens it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sequence length N: tokens per example.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Number of input symbols (0–9, then A–Z).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention heads per layer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query/key width per head, d_k.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Embedding width, d_model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention layers (1 or 2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed of the weights, the batches and the fixed example: the same seed gives the same run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Train stops after this many updates (Pause stops earlier).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fresh random sequences per update.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learning rate of the optimizer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Entropy regularisation: adds this times the mean attention entropy to the loss, pulling heads toward focus (0 = off).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient clipping: rescales the gradient to this L2 norm when it is larger (0 = off).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Softmax temperature: logits are divided by it; large values flatten every map.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>scaled dot q·k/√d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dot q·k (unscaled)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>general qᵀWk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>additive vᵀtanh(Wq + Uk)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Xavier (Glorot)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kaiming (He)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Orthogonal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bad: W_Q = W_K = 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adam</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SGD</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The toy task the model learns; each has one attention pattern that solves it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How the weights start. The bad one keeps every map uniform: attention never forms.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Task</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Vocabulary size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mechanism</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>d_model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Initialisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Entropy regularisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient clipping</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop after (steps)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Induction (repeated segment)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Predict the next token where a segment repeats: layer 1 finds each token&apos;s predecessor (a previous-token head) so that layer 2 can attend to the token after the earlier copy of the current one (an induction head). Needs 2 layers and the residual stream.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Residual stream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each layer adds its output to its input (a transformer&apos;s residual stream), so a layer-2 head can read what a layer-1 head wrote. Off: each layer replaces it.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::TrainingCurveChart</name>
    <message>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::TrainingDemos</name>
    <message>
        <source>Why 1/√d_k matters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Both runs learn the same task with d_k = 64. Without the 1/√d_k factor the dot products grow with d_k, the softmax saturates on one key from the first step, its gradient vanishes and learning stalls; scaled, the logits stay near unit size and the map forms.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>scaled 1/√d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unscaled dot product</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention collapse: a bad initialisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With W_Q and W_K started at zero every logit is zero, every map is uniform and the entropy stays at log N: no gradient reaches the query and key weights, so attention never forms and the task cannot be learned. Xavier initialisation breaks the symmetry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Xavier initialisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bad initialisation (W_Q = W_K = 0)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention collapse: a too-high temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dividing the logits by a large temperature flattens every softmax: the maps stay near uniform, the entropy near log N, and the gradient reaching W_Q and W_K is divided by the temperature too, so learning crawls. At temperature 1 the same model learns the task.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>temperature 1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>temperature 100</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Entropy regularisation pulls heads toward focus</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adding the mean attention entropy to the loss rewards sharp maps: the regularised run's head entropy falls faster and further than the plain run's, which keeps spreading weight over keys it does not need.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no regularisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>entropy weight 0.1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient clipping rescues a too-large learning rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plain SGD at learning rate 2 overshoots: the logits grow, the gradient grows with them, and within a few steps the loss is no longer finite and the run stops. Rescaling each gradient to norm 0.1 before the step bounds every update to 2 × 0.1 = 0.2; at the same learning rate the clipped run learns the task to full accuracy and the map forms.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lr 2, no clipping</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lr 2, clip norm 0.1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Watch an induction head form</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Both models predict the next token of random sequences in which a segment repeats (at a random offset, with a random length). At first the loss sits on a plateau near log V (3.5 nats): the repeated tokens cannot be predicted yet. Then, within a couple of hundred steps, the two-layer model&apos;s loss falls below 1: layer 2&apos;s map snaps to the shifted diagonal, attending to the token after the earlier copy of the current one (an induction head), reading what layer 1&apos;s previous-token head wrote. The one-layer model has no earlier head to compose with: its loss only creeps down, with no sudden drop and no induction head.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>2 layers (residual stream)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 layer (residual stream)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::TrainingInduction</name>
    <message>
        <source>induction, layer %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>previous-token, layer 1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::TrainingPanel</name>
    <message>
        <source>&amp;Train</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Train until paused or the step limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One update</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Reset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Back to step 0 (the same seed gives the same run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cross-entropy + regularisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tokens right</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Entropy per head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mean row entropy (nats)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient norm of W_Q, W_K</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>L2 norm (log scale)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Follow the newest step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training — watch attention learn</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replay any recorded step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Setup</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Demonstrations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Curves or map snapshots (PNG, SVG, PDF)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Animation (PNG frames, GIF)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Maps of</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expected: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head %1 · step %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>W_Q, W_K</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>whole gradient</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, head %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>uniform: log N</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step %1 of %2 · loss %3 · accuracy %4%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · %1 steps/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source> · maps of step %1 (kept every %n step(s))</source>
        <translation>
            <numerusform> · maps of step %1 (kept every %n step)</numerusform>
            <numerusform> · maps of step %1 (kept every %n steps)</numerusform>
        </translation>
    </message>
    <message>
        <source> · training…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the attention map forming</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — step %2 · loss %3 · accuracy %4%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No GIF: ImageMagick (convert) is not installed; the PNG frames are written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training curves (loss, accuracy, entropy, gradient norm)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Map snapshots over training (grid)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder for the animation frames</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Wrote %n file(s) to %1</source>
        <translation>
            <numerusform>Wrote %n file to %1</numerusform>
            <numerusform>Wrote %n files to %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Head scores on the repeated example</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>score (1 = only that key)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>phase change · step %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · induction score %1 (layer %2) · previous-token %3 (layer 1)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::TrainingWindowAction</name>
    <message>
        <source>&amp;Training…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Train a tiny attention model and watch its maps form</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::DockLayout</name>
    <message>
        <source>Hide &amp;Configuration While a Model Is Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A pretrained model fixes every configuration control; its card in the Input panel says what it is, and the maps get the room.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::OllamaModelsDialog</name>
    <message>
        <source>Open Ollama Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tag</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>broken</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No Ollama store at %1. Ollama keeps its models in ~/.ollama/models unless $OLLAMA_MODELS names another folder; set it and reopen this dialog.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No models in %1. Pull one with ollama pull NAME, or set $OLLAMA_MODELS to another store.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Models in %1:</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n manifest(s) could not be read:</source>
        <translation>
            <numerusform>%n manifest could not be read:</numerusform>
            <numerusform>%n manifests could not be read:</numerusform>
        </translation>
    </message>
    <message>
        <source>Only the first %1 manifests are listed.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::TranslationPanel</name>
    <message>
        <source> — rows: the token each step writes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Translate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reference alignment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. 1-1 2-3 3?2 (source-target token positions; ? = possible)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A reference word alignment in the Pharaoh format: source-target pairs of 0-based token positions as the map numbers them (special tokens included; target 0 is the first token written); i?j or i-j-P marks a possible link. Scored against the argmax links by the alignment error rate (Och &amp; Ney 2003).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source tokens on top, target tokens below: a line for every weight of at least 0.1, darker for more; bold: each target token&apos;s largest weight; dashed green: the reference alignment.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1… %2%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The sentence to translate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty: the model writes the translation. Or type one to force it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forced decoding: the decoder reads this target instead of generating one, so you can see the attention of a translation you choose.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>as configured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Beam width: 1 greedy, 2 to 8 beam search; &apos;as configured&apos; follows the checkpoint&apos;s generation config (num_beams).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Most tokens to write (&apos;as configured&apos;: the checkpoint&apos;s max_length).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The same seed, source sentence and settings write the same translation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Translate the source sentence (Enter in either field)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop the translation (Esc); the previous one stays</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Beams</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cross-attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Encoder self-attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decoder self-attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cross-attention: each target token&apos;s weights over the source tokens. Encoder: the source over itself. Decoder: the target over its earlier tokens.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer of the encoder or decoder stack</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One head, or the mean of the layer&apos;s heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open an encoder–decoder model (Marian, BART, mBART, T5) with File &gt; Open Model Folder… to translate with it and see its attention.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2): encoder %3 × %4 heads, decoder %5 × %6 heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not enough memory for this translation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Translating</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decoding the target</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Translating…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled; the previous translation stays.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forced target: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Translation: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 source and %2 target tokens in %3 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mean of heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mean of %1 heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, layer %2, %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no map yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AER: cross-attention only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AER %1 (precision %2, recall %3)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::AlignmentLinksView</name>
    <message>
        <source>Translate a sentence to see its alignment.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::ExplorerModel</name>
    <message>
        <source>Running the model</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::ModelRunProgress</name>
    <message>
        <source>Cancelled: the view keeps the previous run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop the model run (Esc); the view keeps the previous run.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attn::ui::RowColumnPanel</name>
    <message>
        <source>Layer %1, head %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key column %1 “%2”: the weight each query gives it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query row %1 “%2”: its weight on each key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This view keeps no weights (metrics only): there is no row or column to show.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click a heatmap cell: its query row and key column show here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where the query token attends: top</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How many of the keys the query token attends to most are listed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>query token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>key token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
