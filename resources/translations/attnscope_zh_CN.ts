<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ModelText</name>
    <message>
        <source>%1 B</source>
        <translation>%1 B</translation>
    </message>
    <message>
        <source>%1 M</source>
        <translation>%1 M</translation>
    </message>
    <message>
        <source>%1 K</source>
        <translation>%1 K</translation>
    </message>
    <message>
        <source>%1 layers × %2 heads of %3</source>
        <translation>%1 层 × %2 个头，每头 %3 维</translation>
    </message>
    <message>
        <source> (%1 KV heads)</source>
        <translation>（%1 个 KV 头）</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Fixed by the model: %1 scores with scaled dot-product attention, softmax(q·k / √d_k).</source>
        <translation>由模型固定：%1 使用缩放点积注意力打分，softmax(q·k / √d_k)。</translation>
    </message>
    <message>
        <source>Fixed by the model: %1&apos;s %2 heads of %3 (d_model %4, %5 layers).</source>
        <translation>由模型固定：%1 有 %2 个头，每头 %3 维（d_model %4，%5 层）。</translation>
    </message>
    <message>
        <source>Fixed by the model: %1 applies softmax at temperature 1, as it was trained.</source>
        <translation>由模型固定：%1 按训练时的方式以温度 1 做 softmax。</translation>
    </message>
    <message>
        <source>Fixed by the model: its weights are read from the model folder, not drawn from a seed.</source>
        <translation>由模型固定：权重从模型文件夹读取，而不是由种子随机生成。</translation>
    </message>
    <message>
        <source>Fixed by the model: %1 is causal; each token attends to itself and the tokens before it.</source>
        <translation>由模型固定：%1 是因果模型；每个词元只关注自身及之前的词元。</translation>
    </message>
    <message>
        <source>Fixed by the model: %1 is bidirectional; every token attends to every token.</source>
        <translation>由模型固定：%1 是双向模型；每个词元关注所有词元。</translation>
    </message>
    <message>
        <source>Fixed by the model: %1 rotates q and k by position (RoPE).</source>
        <translation>由模型固定：%1 按位置旋转 q 和 k（RoPE）。</translation>
    </message>
    <message>
        <source>Fixed by the model: %1 adds its learned position embeddings to the tokens.</source>
        <translation>由模型固定：%1 将学习得到的位置嵌入加到词元上。</translation>
    </message>
    <message>
        <source>Fixed by the model: %1 runs its own forward pass on the CPU and keeps every head&apos;s weights.</source>
        <translation>由模型固定：%1 在 CPU 上运行自己的前向计算，并保留每个头的权重。</translation>
    </message>
    <message>
        <source>The second segment of a sentence pair (token type 1), as BERT reads &quot;[CLS] A [SEP] B [SEP]&quot;.</source>
        <translation>句对的第二段（token type 1），BERT 按 &quot;[CLS] A [SEP] B [SEP]&quot; 读取。</translation>
    </message>
    <message>
        <source>%1 reads one text; a second segment applies to BERT-style models only.</source>
        <translation>%1 只读取一段文本；第二段仅适用于 BERT 类模型。</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>The text has no tokens; type a sentence.</source>
        <translation>文本中没有词元，请输入一个句子。</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>weight (shared scale)</source>
        <translation>权重（统一色标）</translation>
    </message>
    <message>
        <source>Head %1</source>
        <translation>第 %1 个头</translation>
    </message>
    <message>
        <source>Metrics</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>%1 x %2 tokens: the full N x N attention would need about %3 GB (limit: %4 tokens, View &gt; Sequence Limit). The metrics-only view computes entropy without it, up to %5 tokens.</source>
        <translation>%1 x %2 个词元：完整的 N x N 注意力约需 %3 GB（上限：%4 个词元，见 视图 &gt; 序列上限）。仅指标视图无需它即可计算熵，最多 %5 个词元。</translation>
    </message>
    <message>
        <source>Out of memory: this request needs more memory than is available. Use fewer tokens or heads.</source>
        <translation>内存不足：此请求所需内存超过可用内存。请减少词元或注意力头。</translation>
    </message>
    <message>
        <source>Tiling and approximation</source>
        <translation>分块与近似</translation>
    </message>
    <message>
        <source>collapse: head %1 near one-hot</source>
        <translation>坍缩：头 %1 接近独热</translation>
    </message>
    <message>
        <source>collapse: head %1 near uniform</source>
        <translation>坍缩：头 %1 接近均匀</translation>
    </message>
    <message>
        <source>full</source>
        <translation>完整</translation>
    </message>
    <message>
        <source>partly masked</source>
        <translation>部分被掩码</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>跳过</translation>
    </message>
    <message>
        <source>Execution: %1, picked by auto (Nq·Nk = %2 ≤ 512²: every intermediate kept)</source>
        <translation>执行：%1，由 auto 选择（Nq·Nk = %2 ≤ 512²：保留所有中间结果）</translation>
    </message>
    <message>
        <source>Execution: %1, picked by auto (Nq·Nk = %2 &gt; 512²: tiles with an online softmax)</source>
        <translation>执行：%1，由 auto 选择（Nq·Nk = %2 &gt; 512²：分块并使用在线 softmax）</translation>
    </message>
    <message>
        <source>Execution: %1 (asked for %2, which does not cover mechanism %3)</source>
        <translation>执行：%1（请求的是 %2，它不支持机制 %3）</translation>
    </message>
    <message>
        <source>Execution: %1 (chosen)</source>
        <translation>执行：%1（手动选择）</translation>
    </message>
    <message>
        <source>weights: not comparable (the N×k map has slots, not keys)</source>
        <translation>权重：不可比较（N×k 图的列是槽位，不是键）</translation>
    </message>
    <message>
        <source>weights ‖A − A&lt;sub&gt;exact&lt;/sub&gt;‖&lt;sub&gt;F&lt;/sub&gt; = %1, mean row KL = %2 nats</source>
        <translation>权重 ‖A − A&lt;sub&gt;exact&lt;/sub&gt;‖&lt;sub&gt;F&lt;/sub&gt; = %1，平均行 KL = %2 nats</translation>
    </message>
    <message>
        <source>Head %1 vs exact softmax: %2; outputs relative error %3%</source>
        <translation>头 %1 与精确 softmax 相比：%2；输出相对误差 %3%</translation>
    </message>
    <message>
        <source>%1: the model returned no layers.</source>
        <translation>%1：模型没有返回任何层。</translation>
    </message>
    <message>
        <source>Out of memory: this request needs more memory than is available. Use a shorter text.</source>
        <translation>内存不足：此请求所需内存超过可用内存。请使用更短的文本。</translation>
    </message>
    <message>
        <source>Predictions</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>%1 tokens: over the limit of %2 tokens for which the window keeps every layer&apos;s N x N attention (View &gt; Sequence Limit); shorten the text.</source>
        <translation>%1 个词元：超过了窗口保留每一层 N x N 注意力的上限 %2 个词元（视图 &gt; 序列上限）；请缩短文本。</translation>
    </message>
</context>
<context>
    <name>attn::CoreText</name>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Every query attends to every key.</source>
        <translation>每个查询关注所有键。</translation>
    </message>
    <message>
        <source>Causal (look-ahead)</source>
        <translation>因果（前瞻）</translation>
    </message>
    <message>
        <source>Query i sees keys j &lt;= i only (decoder self-attention).</source>
        <translation>查询 i 只看到 j &lt;= i 的键（解码器自注意力）。</translation>
    </message>
    <message>
        <source>Padding</source>
        <translation>填充</translation>
    </message>
    <message>
        <source>Keys that are pad tokens ([PAD], &lt;pad&gt;), or keys at or past LEN, are removed.</source>
        <translation>去掉填充词元（[PAD]、&lt;pad&gt;）的键，或位置不小于 LEN 的键。</translation>
    </message>
    <message>
        <source>number of real (non-pad) keys; empty: read pad tokens</source>
        <translation>真实（非填充）键的个数；留空：从填充词元读取</translation>
    </message>
    <message>
        <source>Sliding window</source>
        <translation>滑动窗口</translation>
    </message>
    <message>
        <source>Query i sees keys with |i - j| &lt;= W; with causal, the W previous keys.</source>
        <translation>查询 i 看到 |i - j| &lt;= W 的键；与因果同用时，只看前面 W 个键。</translation>
    </message>
    <message>
        <source>keys on each side of the query (at least 1)</source>
        <translation>查询每侧的键数（至少 1）</translation>
    </message>
    <message>
        <source>Dilated window</source>
        <translation>空洞窗口</translation>
    </message>
    <message>
        <source>Window with gaps: |i - j| &lt;= W*D and i - j divisible by D (Longformer).</source>
        <translation>带间隔的窗口：|i - j| &lt;= W*D 且 i - j 能被 D 整除（Longformer）。</translation>
    </message>
    <message>
        <source>keys on each side (at least 1)</source>
        <translation>每侧的键数（至少 1）</translation>
    </message>
    <message>
        <source>dilation: distance between kept keys (at least 1)</source>
        <translation>空洞率：保留的键之间的距离（至少 1）</translation>
    </message>
    <message>
        <source>Global tokens</source>
        <translation>全局词元</translation>
    </message>
    <message>
        <source>Listed positions attend to and are attended by every token (Longformer).</source>
        <translation>列出的位置关注所有词元，也被所有词元关注（Longformer）。</translation>
    </message>
    <message>
        <source>comma-separated token positions, from 0</source>
        <translation>逗号分隔的词元位置，从 0 开始</translation>
    </message>
    <message>
        <source>Block-diagonal</source>
        <translation>块对角</translation>
    </message>
    <message>
        <source>Query i sees keys in its own block of B positions.</source>
        <translation>查询 i 只看到它所在的、长为 B 的块中的键。</translation>
    </message>
    <message>
        <source>block size (at least 1)</source>
        <translation>块大小（至少 1）</translation>
    </message>
    <message>
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>Each cell kept with probability P, seeded (BigBird&apos;s random attention).</source>
        <translation>每个单元格以概率 P 保留，由种子决定（BigBird 的随机注意力）。</translation>
    </message>
    <message>
        <source>keep probability in [0, 1]</source>
        <translation>保留概率，取值 [0, 1]</translation>
    </message>
    <message>
        <source>seed; the same seed gives the same cells</source>
        <translation>种子；相同的种子给出相同的单元格</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>A keep bitmap [Nq, Nk] from the input file&apos;s &apos;mask&apos; array (1 = keep).</source>
        <translation>来自输入文件 “mask” 数组的保留位图 [Nq, Nk]（1 = 保留）。</translation>
    </message>
    <message>
        <source>No position information: attention is permutation-equivariant.</source>
        <translation>没有位置信息：注意力对排列是等变的。</translation>
    </message>
    <message>
        <source>Sinusoidal</source>
        <translation>正弦</translation>
    </message>
    <message>
        <source>sin/cos of position at geometric frequencies, added to the embeddings (Vaswani et al. 2017).</source>
        <translation>位置在几何级数频率上的 sin/cos，加到嵌入上（Vaswani 等，2017）。</translation>
    </message>
    <message>
        <source>Learned (seeded)</source>
        <translation>可学习（由种子生成）</translation>
    </message>
    <message>
        <source>A seeded absolute position table added to the embeddings (as in BERT, GPT-2).</source>
        <translation>由种子生成的绝对位置表，加到嵌入上（同 BERT、GPT-2）。</translation>
    </message>
    <message>
        <source>Rotary (RoPE)</source>
        <translation>旋转（RoPE）</translation>
    </message>
    <message>
        <source>Rotates q and k pairwise by position, so q.k depends on the offset only (Su et al. 2021).</source>
        <translation>按位置成对旋转 q 和 k，使 q.k 只取决于相对偏移（Su 等，2021）。</translation>
    </message>
    <message>
        <source>ALiBi</source>
        <translation>ALiBi</translation>
    </message>
    <message>
        <source>Adds -m_h |i - j| to head h&apos;s logits, with geometric slopes m_h (Press et al. 2022).</source>
        <translation>向第 h 个头的 logits 加上 -m_h |i - j|，斜率 m_h 呈几何级数（Press 等，2022）。</translation>
    </message>
    <message>
        <source>T5 relative bias</source>
        <translation>T5 相对偏置</translation>
    </message>
    <message>
        <source>Adds a seeded per-head bias looked up by log-bucketed offset j - i (Raffel et al. 2020).</source>
        <translation>按对数分桶的偏移 j - i 查表，加上由种子生成的每头偏置（Raffel 等，2020）。</translation>
    </message>
    <message>
        <source>embeddings</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>q and k</source>
        <translation>q 和 k</translation>
    </message>
    <message>
        <source>logits</source>
        <translation>logits</translation>
    </message>
    <message>
        <source>mean entropy</source>
        <translation>平均熵</translation>
    </message>
    <message>
        <source>min row entropy</source>
        <translation>最小行熵</translation>
    </message>
    <message>
        <source>max row entropy</source>
        <translation>最大行熵</translation>
    </message>
    <message>
        <source>normalized entropy</source>
        <translation>归一化熵</translation>
    </message>
    <message>
        <source>confidence (mean max weight)</source>
        <translation>置信度（平均最大权重）</translation>
    </message>
    <message>
        <source>max - min weight</source>
        <translation>最大 - 最小权重</translation>
    </message>
    <message>
        <source>max / min weight</source>
        <translation>最大 / 最小权重</translation>
    </message>
    <message>
        <source>mean attention distance</source>
        <translation>平均注意力距离</translation>
    </message>
    <message>
        <source>share on self</source>
        <translation>关注自身的比例</translation>
    </message>
    <message>
        <source>share on previous token</source>
        <translation>关注前一个词元的比例</translation>
    </message>
    <message>
        <source>share on next token</source>
        <translation>关注后一个词元的比例</translation>
    </message>
    <message>
        <source>share on first token (sink)</source>
        <translation>关注第一个词元的比例（汇点）</translation>
    </message>
    <message>
        <source>share on separators/punctuation</source>
        <translation>关注分隔符/标点的比例</translation>
    </message>
    <message>
        <source>keys covering the mass (k)</source>
        <translation>覆盖权重所需的键数 (k)</translation>
    </message>
    <message>
        <source>k / unmasked keys</source>
        <translation>k / 未遮住的键数</translation>
    </message>
    <message>
        <source>near-uniform rows</source>
        <translation>接近均匀的行</translation>
    </message>
    <message>
        <source>near-one-hot rows</source>
        <translation>接近独热的行</translation>
    </message>
    <message>
        <source>nats</source>
        <translation>纳特</translation>
    </message>
    <message>
        <source>bits</source>
        <translation>比特</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
</context>
<context>
    <name>attn::ui</name>
    <message>
        <source>Head %1</source>
        <translation>第 %1 个头</translation>
    </message>
    <message>
        <source>
uniform bound log N: %1</source>
        <translation>
均匀分布上界 log N：%1</translation>
    </message>
    <message>
        <source>
FLAG: near-uniform</source>
        <translation>
标记：接近均匀</translation>
    </message>
    <message>
        <source>
FLAG: near-one-hot</source>
        <translation>
标记：接近独热</translation>
    </message>
    <message>
        <source>
%1 fully masked row(s) left out</source>
        <translation>
已略去 %1 个完全被遮住的行</translation>
    </message>
    <message>
        <source>⚠ %1Head %2 is near-uniform: %3% of its rows have normalized entropy above %4.</source>
        <translation>⚠ %1第 %2 个头接近均匀：%3% 的行归一化熵高于 %4。</translation>
    </message>
    <message>
        <source>⚠ %1Head %2 is near-one-hot: on %3% of its rows one key takes more than %4 of the mass.</source>
        <translation>⚠ %1第 %2 个头接近独热：在 %3% 的行中，一个键占了超过 %4 的权重。</translation>
    </message>
    <message>
        <source>Flags: near-uniform when normalized entropy &gt; %1, near-one-hot when one key &gt; %2 of the mass, on more than %3% of rows with 2+ unmasked keys. Sparsity k covers %4% of each row&apos;s mass.</source>
        <translation>标记：在超过 %3% 的（至少有 2 个未遮住键的）行中，归一化熵 &gt; %1 为接近均匀，单个键 &gt; %2 的权重为接近独热。稀疏度 k 覆盖每行 %4% 的权重。</translation>
    </message>
</context>
<context>
    <name>attn::ui::BlockScheduleWidget</name>
    <message>
        <source>key tiles →</source>
        <translation>键分块 →</translation>
    </message>
    <message>
        <source>query tiles →</source>
        <translation>查询分块 →</translation>
    </message>
</context>
<context>
    <name>attn::ui::ClassroomActions</name>
    <message>
        <source>&amp;Export Figure…</source>
        <translation>导出图像(&amp;E)…</translation>
    </message>
    <message>
        <source>Export &amp;Data…</source>
        <translation>导出数据(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Presentation Mode</source>
        <translation>演示模式(&amp;P)</translation>
    </message>
    <message>
        <source>Token Lines: All Heads</source>
        <translation>词元连线：显示所有头</translation>
    </message>
    <message>
        <source>Step-through</source>
        <translation>逐步讲解</translation>
    </message>
    <message>
        <source>Token lines</source>
        <translation>词元连线</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Toy example</source>
        <translation>玩具示例</translation>
    </message>
    <message>
        <source>Heatmap (current head)</source>
        <translation>热力图（当前头）</translation>
    </message>
    <message>
        <source>All heads (grid)</source>
        <translation>所有头（网格）</translation>
    </message>
    <message>
        <source>Step-through (current step)</source>
        <translation>逐步讲解（当前步骤）</translation>
    </message>
    <message>
        <source>Compare view</source>
        <translation>对比视图</translation>
    </message>
    <message>
        <source>Toy example heatmap</source>
        <translation>玩具示例热力图</translation>
    </message>
    <message>
        <source>Nothing to export yet.</source>
        <translation>还没有可导出的内容。</translation>
    </message>
    <message>
        <source>Head %1 — mask: %2</source>
        <translation>第 %1 个头 — 掩码：%2</translation>
    </message>
    <message>
        <source>%1 heads — mask: %2</source>
        <translation>%1 个头 — 掩码：%2</translation>
    </message>
    <message>
        <source>The toy example has a cell that is not a number.</source>
        <translation>玩具示例中有一个单元格不是数字。</translation>
    </message>
    <message>
        <source>Unknown view.</source>
        <translation>未知视图。</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>已写入 %1</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图像</translation>
    </message>
    <message>
        <source>Export data</source>
        <translation>导出数据</translation>
    </message>
    <message>
        <source>What to export (every head):</source>
        <translation>要导出的内容（所有头）：</translation>
    </message>
    <message>
        <source>Data (*.csv *.npy *.npz *.json)</source>
        <translation>数据 (*.csv *.npy *.npz *.json)</translation>
    </message>
    <message>
        <source>Metrics: per-head bars</source>
        <translation>指标：各头柱状图</translation>
    </message>
    <message>
        <source>Metrics: per-row curve</source>
        <translation>指标：逐行曲线</translation>
    </message>
    <message>
        <source>Metrics: head similarity</source>
        <translation>指标：头相似度</translation>
    </message>
    <message>
        <source>Metrics: rollout / flow (layers)</source>
        <translation>指标：rollout / flow（多层）</translation>
    </message>
    <message>
        <source>The metrics are not computed yet.</source>
        <translation>指标尚未计算。</translation>
    </message>
    <message>
        <source>Rollout and flow need an input with layers (an &apos;attn&apos; array [L, H, N, N]).</source>
        <translation>Rollout 和 flow 需要带层的输入（&apos;attn&apos; 数组 [L, H, N, N]）。</translation>
    </message>
    <message>
        <source>layer %1 of %2: %3 heads</source>
        <translation>第 %1 层（共 %2 层）：%3 个头</translation>
    </message>
</context>
<context>
    <name>attn::ui::ComparePanel</name>
    <message>
        <source>A: head</source>
        <translation>A：头</translation>
    </message>
    <message>
        <source>B: head</source>
        <translation>B：头</translation>
    </message>
    <message>
        <source>mask</source>
        <translation>掩码</translation>
    </message>
    <message>
        <source>same as A</source>
        <translation>与 A 相同</translation>
    </message>
    <message>
        <source>B&apos;s mask, e.g. causal; empty keeps A&apos;s mask. Press Enter to apply.</source>
        <translation>B 的掩码，例如 causal；留空则沿用 A 的掩码。按回车应用。</translation>
    </message>
    <message>
        <source>temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>B&apos;s mask: %1</source>
        <translation>B 的掩码：%1</translation>
    </message>
    <message>
        <source>path</source>
        <translation>执行路径</translation>
    </message>
    <message>
        <source>B&apos;s execution path, e.g. performer to compare an approximation with exact attention.</source>
        <translation>B 的执行路径，例如 performer，用于把近似注意力与精确注意力对比。</translation>
    </message>
    <message>
        <source>head %1, mask %2, T = %3, %4</source>
        <translation>头 %1，掩码 %2，T = %3，%4</translation>
    </message>
    <message>
        <source>B: layer</source>
        <translation>B：层</translation>
    </message>
    <message>
        <source>The model layer B shows; A is the layer chosen in the head grid.</source>
        <translation>B 显示的模型层；A 是在注意力头网格中选中的层。</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>A second sentence for B, run through the same model (as many tokens as A&apos;s to compare cell by cell); empty uses A&apos;s text. Press Enter to apply.</source>
        <translation>B 的第二个句子，用同一个模型运行（词元数与 A 相同才能逐格比较）；留空则使用 A 的文本。按回车应用。</translation>
    </message>
    <message>
        <source>layer %1, head %2</source>
        <translation>第 %1 层，第 %2 个头</translation>
    </message>
</context>
<context>
    <name>attn::ui::CompareView</name>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>B − A</source>
        <translation>B − A</translation>
    </message>
    <message>
        <source>Difference B − A</source>
        <translation>差值 B − A</translation>
    </message>
    <message>
        <source>mean |B − A| = %1    max |B − A| = %2
entropy (nats): A %3, B %4, Δ %5    same top key: %6%    mean JS divergence: %7
A as exact: ‖B − A‖_F = %8    mean row KL(A‖B) = %9 nats</source>
        <translation>平均 |B − A| = %1    最大 |B − A| = %2
熵（nats）：A %3，B %4，Δ %5    最高键相同：%6%    平均 JS 散度：%7
以 A 为精确值：‖B − A‖_F = %8    平均行 KL(A‖B) = %9 nats</translation>
    </message>
</context>
<context>
    <name>attn::ui::ConfigPanel</name>
    <message>
        <source>Number of attention heads, each with its own projections.</source>
        <translation>注意力头的数量，每个头有自己的投影矩阵。</translation>
    </message>
    <message>
        <source>Width of the token embeddings (d_model); with d_k on auto it must divide by the heads.</source>
        <translation>词元嵌入的宽度 (d_model)；d_k 为自动时它必须能被头数整除。</translation>
    </message>
    <message>
        <source>auto (d_model / heads)</source>
        <translation>自动 (d_model / 头数)</translation>
    </message>
    <message>
        <source>Width of each head&apos;s queries and keys (d_k); auto uses d_model / heads.</source>
        <translation>每个头的查询和键的宽度 (d_k)；自动时为 d_model / 头数。</translation>
    </message>
    <message>
        <source>Divides the logits before softmax: below 1 sharpens attention, above 1 flattens it.</source>
        <translation>在 softmax 之前除以 logits：小于 1 使注意力更集中，大于 1 使其更平缓。</translation>
    </message>
    <message>
        <source>How the seeded projection matrices W_Q, W_K, W_V, W_O are drawn.</source>
        <translation>带种子的投影矩阵 W_Q、W_K、W_V、W_O 的初始化方式。</translation>
    </message>
    <message>
        <source>Seed for embeddings and weights: the same seed gives the same numbers.</source>
        <translation>嵌入和权重的随机种子：相同的种子得到相同的数值。</translation>
    </message>
    <message>
        <source>Which keys each query may attend to; masked cells get weight exactly 0.</source>
        <translation>每个查询可以关注哪些键；被遮住的单元格权重恰好为 0。</translation>
    </message>
    <message>
        <source>How token positions enter attention (added to embeddings, rotated into q and k, or a logit bias).</source>
        <translation>词元位置如何进入注意力（加到嵌入上、旋转进 q 和 k，或作为 logit 偏置）。</translation>
    </message>
    <message>
        <source>Where attention runs; an unavailable backend falls back to the CPU with a warning.</source>
        <translation>注意力在哪里运行；不可用的后端会退回到 CPU 并给出警告。</translation>
    </message>
    <message>
        <source>Mechanism</source>
        <translation>机制</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <source>d_k</source>
        <translation>d_k</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Init</source>
        <translation>初始化</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Mask</source>
        <translation>掩码</translation>
    </message>
    <message>
        <source>Positions</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>Execution</source>
        <translation>执行方式</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>The score function that compares each query with each key: dot, scaled dot, general (bilinear), additive (Bahdanau) or cosine.</source>
        <translation>比较每个查询与每个键的打分函数：点积、缩放点积、一般（双线性）、加性（Bahdanau）或余弦。</translation>
    </message>
    <message>
        <source>auto (d_k)</source>
        <translation>自动（d_k）</translation>
    </message>
    <message>
        <source>Hidden size of the additive score&apos;s tanh layer; used by the additive mechanism only.</source>
        <translation>加性打分中 tanh 层的隐藏维度；仅加性机制使用。</translation>
    </message>
    <message>
        <source>%1 Applied to: %2.</source>
        <translation>%1 作用于：%2。</translation>
    </message>
    <message>
        <source>How attention is evaluated: naive keeps every N x N step, tiled uses an online softmax, performer / linear_elu / linformer approximate it (error in the status bar).</source>
        <translation>注意力的计算方式：naive 保留每个 N x N 步骤，tiled 使用在线 softmax，performer / linear_elu / linformer 为近似（误差显示在状态栏）。</translation>
    </message>
    <message>
        <source>Hidden</source>
        <translation>隐藏维度</translation>
    </message>
    <message>
        <source>%1 — the previous view is kept.</source>
        <translation>%1 —— 保留之前的视图。</translation>
    </message>
</context>
<context>
    <name>attn::ui::FigureExportDialog</name>
    <message>
        <source>Replace file?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <source>%1 already exists. Replace it?</source>
        <translation>%1 已存在。要替换它吗？</translation>
    </message>
    <message>
        <source>One colour scale for all heads</source>
        <translation>所有头使用同一色标</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图像</translation>
    </message>
    <message>
        <source> px</source>
        <translation> 像素</translation>
    </message>
    <message>
        <source>A4 width</source>
        <translation>A4 宽度</translation>
    </message>
    <message>
        <source>Width of an A4 page (210 mm) at the chosen DPI, 4:3</source>
        <translation>所选 DPI 下 A4 纸的宽度（210 毫米），4:3</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Figures (*.png *.svg *.pdf)</source>
        <translation>图像 (*.png *.svg *.pdf)</translation>
    </message>
    <message>
        <source>figure.png, figure.svg or figure.pdf</source>
        <translation>figure.png、figure.svg 或 figure.pdf</translation>
    </message>
    <message>
        <source>View</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>DPI</source>
        <translation>DPI</translation>
    </message>
    <message>
        <source>Colormap</source>
        <translation>色图</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Use a .png, .svg or .pdf file name.</source>
        <translation>请使用 .png、.svg 或 .pdf 文件名。</translation>
    </message>
</context>
<context>
    <name>attn::ui::FileOpenController</name>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>Recent &amp;Files</source>
        <translation>最近的文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open tensors (.npz, .npy, .safetensors, .csv), text (.txt) or a session (.json).</source>
        <translation>打开张量（.npz、.npy、.safetensors、.csv）、文本（.txt）或会话（.json）。</translation>
    </message>
    <message>
        <source>%1: unknown file type &apos;%2&apos; (open .npz, .npy, .safetensors, .csv, .txt or a .json session)</source>
        <translation>%1：未知的文件类型“%2”（可打开 .npz、.npy、.safetensors、.csv、.txt 或 .json 会话）</translation>
    </message>
    <message>
        <source>Could not open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Everything AttnScope opens (*.npz *.npy *.safetensors *.csv *.txt *.json);;Tensors (*.npz *.npy *.safetensors *.csv);;Text (*.txt);;Sessions (*.json);;All files (*)</source>
        <translation>AttnScope 可打开的所有文件 (*.npz *.npy *.safetensors *.csv *.txt *.json);;张量 (*.npz *.npy *.safetensors *.csv);;文本 (*.txt);;会话 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>%1 no longer exists; it was removed from Recent Files.</source>
        <translation>%1 已不存在；已从最近的文件中移除。</translation>
    </message>
</context>
<context>
    <name>attn::ui::HeadGrid</name>
    <message>
        <source>Every head at a glance; click one (or use the arrow keys) to open it in the heatmap.</source>
        <translation>一眼看全所有头；点击其中一个（或用方向键）在热力图中打开它。</translation>
    </message>
    <message>
        <source>No result yet</source>
        <translation>尚无结果</translation>
    </message>
    <message>
        <source>H%1  %2 nats</source>
        <translation>H%1  %2 纳特</translation>
    </message>
    <message>
        <source>layer %1, head %2: mean entropy %3 nats</source>
        <translation>第 %1 层，头 %2：平均熵 %3 nats</translation>
    </message>
    <message>
        <source>head %1: mean entropy %2 nats</source>
        <translation>头 %1：平均熵 %2 nats</translation>
    </message>
    <message>
        <source>H%1</source>
        <translation>H%1</translation>
    </message>
    <message>
        <source>L%1</source>
        <translation>L%1</translation>
    </message>
    <message>
        <source>H%1 %2</source>
        <translation>H%1 %2</translation>
    </message>
</context>
<context>
    <name>attn::ui::HeatmapPanel</name>
    <message>
        <source>Head </source>
        <translation>头 </translation>
    </message>
    <message>
        <source>Which attention head the heatmap shows (Ctrl+PgDown / Ctrl+PgUp step through heads).</source>
        <translation>热力图显示哪一个注意力头（Ctrl+PgDown / Ctrl+PgUp 切换头）。</translation>
    </message>
    <message>
        <source>Show </source>
        <translation>显示 </translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Scaled logits</source>
        <translation>缩放后的 logits</translation>
    </message>
    <message>
        <source>Raw logits</source>
        <translation>原始 logits</translation>
    </message>
    <message>
        <source>Mask</source>
        <translation>掩码</translation>
    </message>
    <message>
        <source>What the heatmap draws: softmax weights, logits before softmax, or which cells the mask keeps.</source>
        <translation>热力图绘制的内容：softmax 权重、softmax 之前的 logits，或掩码保留了哪些单元格。</translation>
    </message>
    <message>
        <source>Colours </source>
        <translation>颜色 </translation>
    </message>
    <message>
        <source>Colormap; &apos;diverging&apos; centres logits and differences on white.</source>
        <translation>色图；&apos;diverging&apos; 以白色为 logits 和差值的中心。</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Reset View</source>
        <translation>重置视图(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Next Head</source>
        <translation>下一个头(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Previous Head</source>
        <translation>上一个头(&amp;P)</translation>
    </message>
    <message>
        <source>Unpin Row</source>
        <translation>取消固定行</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;i&gt;zoom in to see single cells (each drawn cell pools %1×%1)&lt;/i&gt;</source>
        <translation>&lt;br&gt;&lt;i&gt;放大以查看单个单元格（每个绘制的单元格合并了 %1×%1 个）&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; → &lt;b&gt;%2&lt;/b&gt;&lt;br&gt;query %3, key %4&lt;br&gt;raw logit %5&lt;br&gt;scaled logit %6&lt;br&gt;weight %7&lt;br&gt;%8%9</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; → &lt;b&gt;%2&lt;/b&gt;&lt;br&gt;查询 %3，键 %4&lt;br&gt;原始 logit %5&lt;br&gt;缩放后 logit %6&lt;br&gt;权重 %7&lt;br&gt;%8%9</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>已遮住</translation>
    </message>
    <message>
        <source>not masked</source>
        <translation>未遮住</translation>
    </message>
    <message>
        <source>%1 — head %2 of %3 — %4 — mask: %5</source>
        <translation>%1 — 第 %2 / %3 个头 — %4 — 掩码：%5</translation>
    </message>
    <message>
        <source>%1 — the previous view is kept.</source>
        <translation>%1 — 保留之前的视图。</translation>
    </message>
    <message>
        <source>Show &amp;Masked Cells</source>
        <translation>显示被掩码的单元格(&amp;M)</translation>
    </message>
    <message>
        <source>Dims and hatches the cells the mask removed and outlines rows whose every key is masked.</source>
        <translation>将被掩码移除的单元格变暗并加阴影线，并框出所有键都被掩码的行。</translation>
    </message>
    <message>
        <source>(not in the file)</source>
        <translation>（文件中没有）</translation>
    </message>
    <message>
        <source>(not kept on the %1 path)</source>
        <translation>（%1 路径不保留）</translation>
    </message>
    <message>
        <source>masked — every key of this query is masked, so its weights are all 0</source>
        <translation>已掩码 —— 此查询的所有键都被掩码，因此其权重全为 0</translation>
    </message>
    <message>
        <source>Metrics-only view: %1 tokens is over the N x N limit, so no weights were kept; the Metrics panel shows entropy per head and per row.</source>
        <translation>仅指标视图：%1 个词元超过 N x N 上限，因此未保留权重；指标面板显示每个头和每行的熵。</translation>
    </message>
    <message>
        <source>Precomputed weights from %1: the file has no logits to draw.</source>
        <translation>来自 %1 的预计算权重：文件中没有可绘制的 logits。</translation>
    </message>
    <message>
        <source>The %1 path keeps weights only, not logits; choose Execution: naive to see them.</source>
        <translation>%1 路径只保留权重，不保留 logits；请选择 执行：naive 查看它们。</translation>
    </message>
    <message>
        <source>%1 — layer %2 of %3, head %4 of %5 — %6</source>
        <translation>%1 —— 第 %2 层（共 %3 层），头 %4（共 %5 个）—— %6</translation>
    </message>
    <message>
        <source>Compute metrics only</source>
        <translation>仅计算指标</translation>
    </message>
    <message>
        <source>(not kept: the text is too long to keep every layer&apos;s logits)</source>
        <translation>（未保留：文本太长，无法保留每一层的 logits）</translation>
    </message>
    <message>
        <source>%1 tokens: the model kept every layer&apos;s weights but not its logits (they would take too much memory); choose Draw: weights.</source>
        <translation>%1 个词元：模型保留了每一层的权重，但没有保留 logits（会占用过多内存）；请选择绘制：权重。</translation>
    </message>
</context>
<context>
    <name>attn::ui::HeatmapWidget</name>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
</context>
<context>
    <name>attn::ui::InputPanel</name>
    <message>
        <source>Type or paste a sentence…</source>
        <translation>输入或粘贴一个句子…</translation>
    </message>
    <message>
        <source>The query sequence; every edit recomputes attention.</source>
        <translation>查询序列；每次编辑都会重新计算注意力。</translation>
    </message>
    <message>
        <source>(empty: self-attention)</source>
        <translation>（留空：自注意力）</translation>
    </message>
    <message>
        <source>A second sequence to attend to (cross-attention); leave empty for self-attention.</source>
        <translation>要关注的第二个序列（交叉注意力）；留空则为自注意力。</translation>
    </message>
    <message>
        <source>Words and punctuation</source>
        <translation>词和标点</translation>
    </message>
    <message>
        <source>How text is split into tokens: on whitespace, with each punctuation mark its own token.</source>
        <translation>文本如何切分为词元：按空白切分，每个标点单独成为一个词元。</translation>
    </message>
    <message>
        <source>Choose an example…</source>
        <translation>选择一个示例…</translation>
    </message>
    <message>
        <source>Replace the query text with a bundled example sentence.</source>
        <translation>用内置的示例句子替换查询文本。</translation>
    </message>
    <message>
        <source>Example</source>
        <translation>示例</translation>
    </message>
    <message>
        <source>Query text</source>
        <translation>查询文本</translation>
    </message>
    <message>
        <source>Key text</source>
        <translation>键文本</translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation>分词器</translation>
    </message>
    <message>
        <source>Loaded</source>
        <translation>已加载</translation>
    </message>
    <message>
        <source>text: %1 query tokens</source>
        <translation>文本：%1 个查询词元</translation>
    </message>
    <message>
        <source>key text: %1 tokens</source>
        <translation>键文本：%1 个词元</translation>
    </message>
    <message>
        <source>embeddings: seeded, [%1, %2]</source>
        <translation>嵌入：带种子生成，[%1, %2]</translation>
    </message>
    <message>
        <source>Edit Query Text</source>
        <translation>编辑查询文本</translation>
    </message>
    <message>
        <source>Back to Text</source>
        <translation>返回文本</translation>
    </message>
    <message>
        <source>What is loaded: each array with its dtype, shape and use, and the views it feeds.</source>
        <translation>已加载的内容：每个数组的类型、形状和用途，以及它可用于的视图。</translation>
    </message>
    <message>
        <source>Computed from the file (current mechanism)</source>
        <translation>由文件计算（当前机制）</translation>
    </message>
    <message>
        <source>The file&apos;s attention weights (&apos;attn&apos;)</source>
        <translation>文件中的注意力权重（&apos;attn&apos;）</translation>
    </message>
    <message>
        <source>The file has both inputs and precomputed weights: compute attention from q/k/v or x with the configuration, or show its &apos;attn&apos; as it is, layer by layer.</source>
        <translation>该文件同时包含输入和预计算权重：可以按当前配置由 q/k/v 或 x 计算注意力，也可以逐层显示其中的 &apos;attn&apos;。</translation>
    </message>
    <message>
        <source>Forget the loaded file and attend over the text above again.</source>
        <translation>忘掉已加载的文件，重新对上面的文本计算注意力。</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>showing &apos;attn&apos;: layer %1 of %2 (pick a tile in the head grid)</source>
        <translation>正在显示 &apos;attn&apos;：第 %1 层（共 %2 层）（在头网格中选择一格）</translation>
    </message>
    <message>
        <source>%1 (the model&apos;s own)</source>
        <translation>%1（模型自带）</translation>
    </message>
    <message>
        <source>Fixed by the model: %1 splits text with its own tokenizer (%2), exactly as it was trained.</source>
        <translation>由模型固定：%1 用自带的分词器（%2）切分文本，与训练时完全一致。</translation>
    </message>
    <message>
        <source>(empty: one segment)</source>
        <translation>（留空：只有一段）</translation>
    </message>
    <message>
        <source>(not used by this model)</source>
        <translation>（此模型不使用）</translation>
    </message>
</context>
<context>
    <name>attn::ui::MainWindow</name>
    <message>
        <source>AttnScope</source>
        <translation>AttnScope 注意力透镜</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Configuration</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Panels</source>
        <translation>面板(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;About AttnScope</source>
        <translation>关于 AttnScope(&amp;A)</translation>
    </message>
    <message>
        <source>About AttnScope</source>
        <translation>关于 AttnScope</translation>
    </message>
    <message>
        <source>AttnScope %1 — an attention visualizer.</source>
        <translation>AttnScope %1 — 注意力可视化工具。</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
</context>
<context>
    <name>attn::ui::MaskSelector</name>
    <message>
        <source>; with other masks checked it removes cells from what they allow.</source>
        <translation>；与其他掩码同时勾选时，它会从其他掩码允许的单元格中再移除一部分。</translation>
    </message>
    <message>
        <source>from pad tokens</source>
        <translation>来自填充词元</translation>
    </message>
    <message>
        <source>Checked patterns join (union); causal and padding then remove cells.</source>
        <translation>勾选的模式取并集；之后因果和填充掩码再移除单元格。</translation>
    </message>
    <message>
        <source>Composition rule: a cell is kept if any checked pattern keeps it and every checked restriction (causal, padding) keeps it.</source>
        <translation>组合规则：只要任一勾选的模式保留某个单元格，且每个勾选的限制（因果、填充）都保留它，该单元格就被保留。</translation>
    </message>
    <message>
        <source>Spec</source>
        <translation>规格</translation>
    </message>
    <message>
        <source>The mask as the command line writes it (e.g. causal+window:4); edit it and press Enter, and the rows above follow.</source>
        <translation>命令行写法的掩码（例如 causal+window:4）；编辑后按回车，上面的各行会随之更新。</translation>
    </message>
</context>
<context>
    <name>attn::ui::MetricsBarChart</name>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>uniform: log %1 = %2 %3</source>
        <translation>均匀：log %1 = %2 %3</translation>
    </message>
</context>
<context>
    <name>attn::ui::MetricsPanel</name>
    <message>
        <source>bits</source>
        <translation>比特</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Which per-head measure the bars show.</source>
        <translation>柱状图显示哪一项每头指标。</translation>
    </message>
    <message>
        <source>row entropy</source>
        <translation>行熵</translation>
    </message>
    <message>
        <source>normalized entropy</source>
        <translation>归一化熵</translation>
    </message>
    <message>
        <source>max weight</source>
        <translation>最大权重</translation>
    </message>
    <message>
        <source>mean attention distance</source>
        <translation>平均注意力距离</translation>
    </message>
    <message>
        <source>keys covering the mass (k)</source>
        <translation>覆盖权重所需的键数 (k)</translation>
    </message>
    <message>
        <source>Which per-row measure the curve shows for the selected head.</source>
        <translation>曲线显示所选头的哪一项每行指标。</translation>
    </message>
    <message>
        <source>Entropy in bits instead of nats.</source>
        <translation>用比特而不是纳特表示熵。</translation>
    </message>
    <message>
        <source>Sparsity: the share of a row&apos;s mass that its k largest weights must cover.</source>
        <translation>稀疏度：一行中最大的 k 个权重需要覆盖的权重比例。</translation>
    </message>
    <message>
        <source>Which layer&apos;s heads the bars and the row curve show.</source>
        <translation>柱状图和行曲线显示哪一层的头。</translation>
    </message>
    <message>
        <source>Attention rollout</source>
        <translation>注意力展开 (rollout)</translation>
    </message>
    <message>
        <source>Attention flow</source>
        <translation>注意力流 (flow)</translation>
    </message>
    <message>
        <source>How attention composes through the layers (Abnar &amp; Zuidema 2020): rollout multiplies the layers&apos; head-averaged attention with the residual; flow is a max-flow.</source>
        <translation>注意力如何逐层组合（Abnar &amp; Zuidema 2020）：rollout 将各层按头平均并加上残差后的注意力相乘；flow 是最大流。</translation>
    </message>
    <message>
        <source>JS divergence</source>
        <translation>JS 散度</translation>
    </message>
    <message>
        <source>share of input</source>
        <translation>输入占比</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>input token</source>
        <translation>输入词元</translation>
    </message>
    <message>
        <source>token after the last layer</source>
        <translation>最后一层之后的词元</translation>
    </message>
    <message>
        <source>Bars</source>
        <translation>柱状图</translation>
    </message>
    <message>
        <source>k covers</source>
        <translation>k 覆盖</translation>
    </message>
    <message>
        <source>Selected head, per row:</source>
        <translation>所选头，每行：</translation>
    </message>
    <message>
        <source>Head similarity (Jensen–Shannon divergence, similar heads adjacent):</source>
        <translation>头相似度（Jensen–Shannon 散度，相似的头相邻）：</translation>
    </message>
    <message>
        <source>Too many heads × tokens to compare every pair here; use attnscope-cli metrics.</source>
        <translation>头数 × 词元数太多，无法在此两两比较；请使用 attnscope-cli metrics。</translation>
    </message>
    <message>
        <source>Layer %1, </source>
        <translation>第 %1 层，</translation>
    </message>
    <message>
        <source>No head selected</source>
        <translation>未选择头</translation>
    </message>
    <message>
        <source>entropy (%1)</source>
        <translation>熵（%1）</translation>
    </message>
    <message>
        <source>distance (tokens)</source>
        <translation>距离（词元）</translation>
    </message>
    <message>
        <source>k (keys)</source>
        <translation>k（键）</translation>
    </message>
    <message>
        <source>layer %1, head %2</source>
        <translation>第 %1 层，第 %2 个头</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>%1 per query token — %2</source>
        <translation>每个查询词元的%1 — %2</translation>
    </message>
    <message>
        <source>h%1</source>
        <translation>h%1</translation>
    </message>
    <message>
        <source>0 = identical heads, max log 2</source>
        <translation>0 = 完全相同的头，最大 log 2</translation>
    </message>
    <message>
        <source>No rollout: the layers are not square self-attention</source>
        <translation>无法展开：各层不是方阵自注意力</translation>
    </message>
    <message>
        <source>Flow not computed: %1</source>
        <translation>未计算注意力流：%1</translation>
    </message>
    <message>
        <source>Attention flow through %1 layer(s)</source>
        <translation>经过 %1 层的注意力流</translation>
    </message>
    <message>
        <source>Attention rollout through %1 layer(s)</source>
        <translation>经过 %1 层的注意力展开</translation>
    </message>
    <message>
        <source>Layer %1: </source>
        <translation>第 %1 层：</translation>
    </message>
    <message>
        <source>max − min weight</source>
        <translation>最大 − 最小权重</translation>
    </message>
    <message>
        <source>max / min weight</source>
        <translation>最大 / 最小权重</translation>
    </message>
    <message>
        <source>relative-offset profile (mass at j − i)</source>
        <translation>相对偏移分布（j − i 处的质量）</translation>
    </message>
    <message>
        <source>mass at each key offset j − i, averaged over rows — %1</source>
        <translation>每个键偏移 j − i 处的质量，按行平均 —— %1</translation>
    </message>
    <message>
        <source>mass</source>
        <translation>质量</translation>
    </message>
    <message>
        <source>max − min</source>
        <translation>最大 − 最小</translation>
    </message>
    <message>
        <source>max / min</source>
        <translation>最大 / 最小</translation>
    </message>
</context>
<context>
    <name>attn::ui::MetricsRowChart</name>
    <message>
        <source>uniform bound log(unmasked keys)</source>
        <translation>均匀上界 log(未遮住的键数)</translation>
    </message>
    <message>
        <source>query token</source>
        <translation>查询词元</translation>
    </message>
    <message>
        <source>row %1 %2: %3</source>
        <translation>第 %1 行 %2：%3</translation>
    </message>
</context>
<context>
    <name>attn::ui::ModelInfoBox</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Close Model</source>
        <translation>关闭模型</translation>
    </message>
    <message>
        <source>Close the model and attend over the text with the configured mechanism again.</source>
        <translation>关闭模型，重新用所配置的机制对文本计算注意力。</translation>
    </message>
    <message>
        <source>Name: %1</source>
        <translation>名称：%1</translation>
    </message>
    <message>
        <source>Family: %1</source>
        <translation>系列：%1</translation>
    </message>
    <message>
        <source>Attention: %1</source>
        <translation>注意力：%1</translation>
    </message>
    <message>
        <source>Parameters: %1</source>
        <translation>参数量：%1</translation>
    </message>
    <message>
        <source>Weights: %1</source>
        <translation>权重：%1</translation>
    </message>
    <message>
        <source>Tokenizer: %1</source>
        <translation>分词器：%1</translation>
    </message>
    <message>
        <source>causal</source>
        <translation>因果</translation>
    </message>
    <message>
        <source>bidirectional</source>
        <translation>双向</translation>
    </message>
    <message>
        <source>%1 parameters</source>
        <translation>%1 参数</translation>
    </message>
    <message>
        <source>%1 weights</source>
        <translation>%1 权重</translation>
    </message>
    <message>
        <source>%1 tokenizer</source>
        <translation>%1 分词器</translation>
    </message>
    <message>
        <source>%1 tokens · layer %2 of %3</source>
        <translation>%1 个词元 · 第 %2 层（共 %3 层）</translation>
    </message>
    <message>
        <source>Folder: %1</source>
        <translation>文件夹：%1</translation>
    </message>
</context>
<context>
    <name>attn::ui::ModelOpenController</name>
    <message>
        <source>Open &amp;Model…</source>
        <translation>打开模型(&amp;M)…</translation>
    </message>
    <message>
        <source>Recent &amp;Models</source>
        <translation>最近的模型(&amp;M)</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder (config.json, safetensors weights, tokenizer files) or its cache directory models--org--name, and run the text through it.</source>
        <translation>打开 Hugging Face 模型文件夹（config.json、safetensors 权重、分词器文件）或其缓存目录 models--org--name，并用它运行文本。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop loading the model; the current view stays as it is.</source>
        <translation>停止加载模型；当前视图保持不变。</translation>
    </message>
    <message>
        <source>Opening %1</source>
        <translation>正在打开 %1</translation>
    </message>
    <message>
        <source>%1: not enough memory to open this model</source>
        <translation>%1：内存不足，无法打开此模型</translation>
    </message>
    <message>
        <source>Stopped opening %1; the view is unchanged.</source>
        <translation>已停止打开 %1；视图未改变。</translation>
    </message>
    <message>
        <source>Could not open the model %1: %2</source>
        <translation>无法打开模型 %1：%2</translation>
    </message>
    <message>
        <source>Opened %1: %2, %3 parameters, in %4 ms</source>
        <translation>已打开 %1：%2，%3 参数，用时 %4 毫秒</translation>
    </message>
    <message>
        <source>Open Model Folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <source>%1 no longer exists; it was removed from Recent Models.</source>
        <translation>%1 已不存在；已从最近的模型中移除。</translation>
    </message>
</context>
<context>
    <name>attn::ui::PredictionPanel</name>
    <message>
        <source>The model&apos;s five most probable next tokens after the pinned query position (click a heatmap row to pin it; the last token when none is pinned).</source>
        <translation>模型在固定的查询位置之后最可能的五个下一个词元（点击热图的一行来固定；未固定时为最后一个词元）。</translation>
    </message>
    <message>
        <source>Open a model (File &gt; Open Model…) to see what it predicts after each token.</source>
        <translation>打开一个模型（文件 &gt; 打开模型…）来查看它在每个词元之后的预测。</translation>
    </message>
    <message>
        <source>Next-token predictions are for causal models (GPT-2, Llama); %1 is bidirectional and sees the whole text at once.</source>
        <translation>下一个词元预测只适用于因果模型（GPT-2、Llama）；%1 是双向模型，一次看到整段文本。</translation>
    </message>
    <message>
        <source>%1 is running…</source>
        <translation>%1 正在运行…</translation>
    </message>
    <message>
        <source>After %1 (position %2, pinned), %3 predicts:</source>
        <translation>在 %1（位置 %2，已固定）之后，%3 预测：</translation>
    </message>
    <message>
        <source>After the last token %1 (position %2), %3 predicts (click a heatmap row to pin another):</source>
        <translation>在最后一个词元 %1（位置 %2）之后，%3 预测（点击热图的一行来固定其他位置）：</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
</context>
<context>
    <name>attn::ui::PreferencesMenu</name>
    <message>
        <source>Sequence &amp;Limit…</source>
        <translation>序列上限(&amp;L)…</translation>
    </message>
    <message>
        <source>Sequence Limit</source>
        <translation>序列上限</translation>
    </message>
    <message>
        <source>Longest sequence drawn as a full N x N matrix (memory grows as N² per head):</source>
        <translation>以完整 N × N 矩阵绘制的最长序列（每个头的内存按 N² 增长）：</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <source>The language changes the next time AttnScope starts.</source>
        <translation>语言将在下次启动 AttnScope 时生效。</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
</context>
<context>
    <name>attn::ui::PresentationWindow</name>
    <message>
        <source>AttnScope — presentation</source>
        <translation>AttnScope — 演示模式</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Head %1 of %2 — mask: %3</source>
        <translation>第 %1 / %2 个头 — 掩码：%3</translation>
    </message>
</context>
<context>
    <name>attn::ui::RecentPathsMenu</name>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
</context>
<context>
    <name>attn::ui::SessionController</name>
    <message>
        <source>Open &amp;Session…</source>
        <translation>打开会话(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Save Session</source>
        <translation>保存会话(&amp;S)</translation>
    </message>
    <message>
        <source>Save Session &amp;As…</source>
        <translation>会话另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>Recent Sessions</source>
        <translation>最近的会话</translation>
    </message>
    <message>
        <source>Could not open the session: %1</source>
        <translation>无法打开会话：%1</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <source>Could not save the session: %1</source>
        <translation>无法保存会话：%1</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Open Session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <source>AttnScope session (*.json)</source>
        <translation>AttnScope 会话 (*.json)</translation>
    </message>
    <message>
        <source>Save Session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Replace file?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <source>%1 already exists. Replace it?</source>
        <translation>%1 已存在。要替换吗？</translation>
    </message>
</context>
<context>
    <name>attn::ui::StatusSummary</name>
    <message>
        <source>N = %1</source>
        <translation>N = %1</translation>
    </message>
    <message>
        <source>Nq = %1, Nk = %2</source>
        <translation>Nq = %1，Nk = %2</translation>
    </message>
    <message>
        <source>heads = %1</source>
        <translation>头数 = %1</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>计算中…</translation>
    </message>
    <message>
        <source>Error: %1 (previous view kept)</source>
        <translation>错误：%1（保留之前的视图）</translation>
    </message>
    <message>
        <source>layer %1 of %2 from the file</source>
        <translation>文件中的第 %1 层（共 %2 层）</translation>
    </message>
    <message>
        <source>path %1 (picked by auto)</source>
        <translation>路径 %1（由 auto 选择）</translation>
    </message>
    <message>
        <source>path %1</source>
        <translation>路径 %1</translation>
    </message>
    <message>
        <source>approx. error: output %1%</source>
        <translation>近似误差：输出 %1%</translation>
    </message>
    <message>
        <source>approx. error: output %1%, weights Frobenius %2, row KL %3</source>
        <translation>近似误差：输出 %1%，权重 Frobenius %2，行 KL %3</translation>
    </message>
    <message>
        <source>layer %1 of %2 of %3</source>
        <translation>%3 的第 %1 层（共 %2 层）</translation>
    </message>
</context>
<context>
    <name>attn::ui::StepThroughPanel</name>
    <message>
        <source>Query and keys</source>
        <translation>查询向量与键向量</translation>
    </message>
    <message>
        <source>Raw scores: dot products</source>
        <translation>原始分数：点积</translation>
    </message>
    <message>
        <source>Additive: project q and every k</source>
        <translation>加性注意力：投影 q 和每个 k</translation>
    </message>
    <message>
        <source>Additive: add and squash with tanh</source>
        <translation>加性注意力：相加后用 tanh 压缩</translation>
    </message>
    <message>
        <source>Additive: score with v</source>
        <translation>加性注意力：用 v 打分</translation>
    </message>
    <message>
        <source>Scale by √d_k</source>
        <translation>除以 √d_k 缩放</translation>
    </message>
    <message>
        <source>Divide by the temperature</source>
        <translation>除以温度</translation>
    </message>
    <message>
        <source>Add the positional bias</source>
        <translation>加上位置偏置</translation>
    </message>
    <message>
        <source>Apply the mask</source>
        <translation>应用掩码</translation>
    </message>
    <message>
        <source>Softmax: scores become weights</source>
        <translation>Softmax：分数变为权重</translation>
    </message>
    <message>
        <source>Weight the values</source>
        <translation>对值向量加权</translation>
    </message>
    <message>
        <source>Output: sum of weighted values</source>
        <translation>输出：加权值向量之和</translation>
    </message>
    <message>
        <source>query “%1”: q = x W_Q;  every key j: k_j = x_j W_K   (d_k = %2)</source>
        <translation>查询“%1”：q = x W_Q；每个键 j：k_j = x_j W_K   （d_k = %2）</translation>
    </message>
    <message>
        <source>s_j = q · k_j = Σ_d q_d k_j,d</source>
        <translation>s_j = q · k_j = Σ_d q_d k_j,d</translation>
    </message>
    <message>
        <source>W_qᵀ q (above) and W_kᵀ k_j (per key), hidden size %1</source>
        <translation>W_qᵀ q（上方）和 W_kᵀ k_j（每个键），隐藏维度 %1</translation>
    </message>
    <message>
        <source>h_j = tanh(W_qᵀ q + W_kᵀ k_j)</source>
        <translation>h_j = tanh(W_qᵀ q + W_kᵀ k_j)</translation>
    </message>
    <message>
        <source>s_j = vᵀ h_j</source>
        <translation>s_j = vᵀ h_j</translation>
    </message>
    <message>
        <source>s_j / √d_k = s_j / √%1 = s_j × %2</source>
        <translation>s_j / √d_k = s_j / √%1 = s_j × %2</translation>
    </message>
    <message>
        <source>s_j / T,  T = %1</source>
        <translation>s_j / T，T = %1</translation>
    </message>
    <message>
        <source>T = 1 leaves the scores as they are; T &gt; 1 flattens, T &lt; 1 sharpens the softmax.</source>
        <translation>T = 1 时分数不变；T &gt; 1 使 softmax 更平缓，T &lt; 1 使其更尖锐。</translation>
    </message>
    <message>
        <source>before</source>
        <translation>之前</translation>
    </message>
    <message>
        <source>after</source>
        <translation>之后</translation>
    </message>
    <message>
        <source>s_j + b_j  (positional bias)</source>
        <translation>s_j + b_j（位置偏置）</translation>
    </message>
    <message>
        <source>sum</source>
        <translation>和</translation>
    </message>
    <message>
        <source>s_j stays where key j is visible, −∞ where the mask hides it</source>
        <translation>键 j 可见时保留 s_j，被掩码遮住时变为 −∞</translation>
    </message>
    <message numerus="yes">
        <source>%n key(s) hidden</source>
        <translation>
            <numerusform>%n 个键被遮住</numerusform>
        </translation>
    </message>
    <message>
        <source>a_j = e^(s_j − m) / Σ e^(s − m),   m = %1,   Σ = %2</source>
        <translation>a_j = e^(s_j − m) / Σ e^(s − m)，m = %1，Σ = %2</translation>
    </message>
    <message>
        <source>Every key is hidden: all weights are 0.</source>
        <translation>所有键都被遮住：权重全部为 0。</translation>
    </message>
    <message>
        <source>Subtracting the maximum m keeps e^x from overflowing.</source>
        <translation>减去最大值 m 可以防止 e^x 溢出。</translation>
    </message>
    <message>
        <source>every value v_j is multiplied by its weight a_j</source>
        <translation>每个值向量 v_j 乘以它的权重 a_j</translation>
    </message>
    <message>
        <source>o = Σ_j a_j v_j = %1</source>
        <translation>o = Σ_j a_j v_j = %1</translation>
    </message>
    <message>
        <source>Step through the selected query row: Right / Space next, Left / Backspace back.</source>
        <translation>逐步讲解所选的查询行：右方向键 / 空格 下一步，左方向键 / 退格 上一步。</translation>
    </message>
    <message>
        <source>Select a query row to step through its attention.</source>
        <translation>选择一个查询行，逐步查看它的注意力计算。</translation>
    </message>
    <message>
        <source>Step %1 of %2 — query “%3”</source>
        <translation>第 %1 / %2 步 — 查询“%3”</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message numerus="yes">
        <source>… %n more key(s)</source>
        <translation>
            <numerusform>… 还有 %n 个键</numerusform>
        </translation>
    </message>
    <message>
        <source>General: multiply q by W</source>
        <translation>一般：用 W 乘以 q</translation>
    </message>
    <message>
        <source>Cosine: scale q and every k to length 1</source>
        <translation>余弦：把 q 和每个 k 缩放到长度 1</translation>
    </message>
    <message>
        <source>u = qᵀ W,  W is d_q × d_k = %1 × %2</source>
        <translation>u = qᵀ W，W 为 d_q × d_k = %1 × %2</translation>
    </message>
    <message>
        <source>q̂ = q / |q|,  k̂_j = k_j / |k_j|,   |q| = %1</source>
        <translation>q̂ = q / |q|，k̂_j = k_j / |k_j|，  |q| = %1</translation>
    </message>
    <message>
        <source>Only directions count: every score will lie in [−1, 1].</source>
        <translation>只有方向起作用：每个分数都在 [−1, 1] 之间。</translation>
    </message>
    <message>
        <source>s_j = u · k_j = qᵀ W k_j</source>
        <translation>s_j = u · k_j = qᵀ W k_j</translation>
    </message>
    <message>
        <source>s_j = q̂ · k̂_j = cos(q, k_j)</source>
        <translation>s_j = q̂ · k̂_j = cos(q, k_j)</translation>
    </message>
</context>
<context>
    <name>attn::ui::StepThroughView</name>
    <message>
        <source>◀ Previous</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一步 ▶</translation>
    </message>
    <message>
        <source>Query:</source>
        <translation>查询：</translation>
    </message>
    <message>
        <source>The query row to walk through (or click a row of the heatmap).</source>
        <translation>要逐步讲解的查询行（也可以点击热力图中的一行）。</translation>
    </message>
    <message>
        <source>Previous step (Left)</source>
        <translation>上一步（左方向键）</translation>
    </message>
    <message>
        <source>Next step (Right or Space)</source>
        <translation>下一步（右方向键或空格）</translation>
    </message>
</context>
<context>
    <name>attn::ui::TilingPanel</name>
    <message>
        <source>Teaching tile size (queries × keys). The engine&apos;s tiled path uses 256 × 512 tiles, the sparse path 64 × 64; the numbers do not depend on it.</source>
        <translation>教学用分块大小（查询 × 键）。引擎的分块路径使用 256 × 512 的块，稀疏路径使用 64 × 64；结果数值与它无关。</translation>
    </message>
    <message>
        <source>The query row whose online softmax is traced (follows the pinned row).</source>
        <translation>追踪其在线 softmax 的查询行（跟随固定的行）。</translation>
    </message>
    <message>
        <source>Tile size</source>
        <translation>分块大小</translation>
    </message>
    <message>
        <source>Query row</source>
        <translation>查询行</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <source>tile</source>
        <translation>分块</translation>
    </message>
    <message>
        <source>tile max</source>
        <translation>分块最大值</translation>
    </message>
    <message>
        <source>max m</source>
        <translation>最大值 m</translation>
    </message>
    <message>
        <source>rescale</source>
        <translation>重缩放</translation>
    </message>
    <message>
        <source>sum l</source>
        <translation>和 l</translation>
    </message>
    <message>
        <source>H so far</source>
        <translation>目前的 H</translation>
    </message>
    <message>
        <source>running max m of the row after this tile</source>
        <translation>处理此分块后该行的运行最大值 m</translation>
    </message>
    <message>
        <source>e^(m_old − m_new): the factor applied to l and the output</source>
        <translation>e^(m_old − m_new)：作用于 l 和输出的因子</translation>
    </message>
    <message>
        <source>running normalizer l = Σ e^(s − m) over the keys seen so far</source>
        <translation>运行归一化项 l = Σ e^(s − m)，对目前见过的键求和</translation>
    </message>
    <message>
        <source>entropy so far, H = log l − t/l (t = Σ e^(s − m)(s − m))</source>
        <translation>目前的熵，H = log l − t/l（t = Σ e^(s − m)(s − m)）</translation>
    </message>
    <message>
        <source>No result yet.</source>
        <translation>尚无结果。</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:%1&apos;&gt;■&lt;/span&gt; computed &amp;nbsp; &lt;span style=&apos;color:%2&apos;&gt;■&lt;/span&gt; computed, mask tested cell by cell &amp;nbsp; &lt;span style=&apos;color:#aaaaaa&apos;&gt;■&lt;/span&gt; skipped — %3 of %4 tiles of %5 × %5 computed (%6 need cell tests); the outlined band holds row %7.%8</source>
        <translation>&lt;span style=&apos;color:%1&apos;&gt;■&lt;/span&gt; 已计算 &amp;nbsp; &lt;span style=&apos;color:%2&apos;&gt;■&lt;/span&gt; 已计算，掩码逐格检查 &amp;nbsp; &lt;span style=&apos;color:#aaaaaa&apos;&gt;■&lt;/span&gt; 跳过 —— 共 %4 个 %5 × %5 分块中计算了 %3 个（%6 个需逐格检查）；框出的带状区域包含第 %7 行。%8</translation>
    </message>
    <message>
        <source> Tiles enlarged to %1 to fit %2 tokens.</source>
        <translation> 分块已放大到 %1，以容纳 %2 个词元。</translation>
    </message>
    <message>
        <source>Row %1: H = log l − t/l = %2 nats after the last tile; the engine&apos;s entropy of this row (%3 path): %4 nats. The tiled path itself runs %5 × %6 tiles (sparse: 64 × 64).</source>
        <translation>第 %1 行：最后一个分块后 H = log l − t/l = %2 nats；引擎计算的该行熵（%3 路径）：%4 nats。分块路径本身使用 %5 × %6 的块（稀疏：64 × 64）。</translation>
    </message>
</context>
<context>
    <name>attn::ui::TokenLinesWidget</name>
    <message>
        <source>Hover a token to see only its lines.</source>
        <translation>将鼠标悬停在词元上，只显示它的连线。</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
</context>
<context>
    <name>attn::ui::ToyInputPanel</name>
    <message>
        <source>Q: one row per token (its query vector)</source>
        <translation>Q：每个词元一行（查询向量）</translation>
    </message>
    <message>
        <source>K: one row per token (its key vector)</source>
        <translation>K：每个词元一行（键向量）</translation>
    </message>
    <message>
        <source>V: one row per token (its value vector)</source>
        <translation>V：每个词元一行（值向量）</translation>
    </message>
    <message>
        <source>Causal mask</source>
        <translation>因果掩码</translation>
    </message>
    <message>
        <source>Scale by √d_k</source>
        <translation>除以 √d_k 缩放</translation>
    </message>
    <message>
        <source>Token labels, separated by spaces.</source>
        <translation>词元标签，用空格分隔。</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>tokens ×</source>
        <translation>个词元 ×</translation>
    </message>
    <message>
        <source>dims</source>
        <translation>维</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>T</source>
        <translation>T</translation>
    </message>
    <message>
        <source>Query:</source>
        <translation>查询：</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>%1[%2, %3]: &apos;%4&apos; is not a number</source>
        <translation>%1[%2, %3]：“%4”不是数字</translation>
    </message>
    <message>
        <source>Toy example: softmax(QKᵀ/√d_k)</source>
        <translation>玩具示例：softmax(QKᵀ/√d_k)</translation>
    </message>
    <message>
        <source>Toy example: softmax(QKᵀ)</source>
        <translation>玩具示例：softmax(QKᵀ)</translation>
    </message>
</context>
</TS>
