<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>BackendChoices</name>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA (unavailable)</source>
        <translation>CUDA（不可用）</translation>
    </message>
    <message>
        <source>Not available: %1</source>
        <translation>不可用：%1</translation>
    </message>
    <message>
        <source>Auto (%1)</source>
        <translation>自动（%1）</translation>
    </message>
</context>
<context>
    <name>KvCacheText</name>
    <message>
        <source>Layer %1, head %2, token %3 (“%4”): %5 cached keys and values; %6% of this query&apos;s weight is on the cache. The whole cache then holds %7 (K and V × %8 layers × %9 KV heads × %10 dims, 2 bytes each).</source>
        <translation>第 %1 层，头 %2，词元 %3（“%4”）：缓存了 %5 个键和值；此查询 %6% 的权重落在缓存上。此时整个缓存占 %7（K 和 V × %8 层 × %9 个 KV 头 × %10 维，每个 2 字节）。</translation>
    </message>
    <message>
        <source>What is cached</source>
        <translation>缓存了什么</translation>
    </message>
    <message>
        <source>Generating token %1 (“%2”), a decoder keeps the keys and values of tokens 0..%3 from the earlier steps: the &lt;b&gt;cache&lt;/b&gt;. Only q&lt;sub&gt;%1&lt;/sub&gt;, k&lt;sub&gt;%1&lt;/sub&gt; and v&lt;sub&gt;%1&lt;/sub&gt; are computed now, and k&lt;sub&gt;%1&lt;/sub&gt;, v&lt;sub&gt;%1&lt;/sub&gt; join the cache for the next token.</source>
        <translation>生成词元 %1（“%2”）时，解码器保留前面各步中词元 0..%3 的键和值：这就是&lt;b&gt;缓存&lt;/b&gt;。现在只计算 q&lt;sub&gt;%1&lt;/sub&gt;、k&lt;sub&gt;%1&lt;/sub&gt; 和 v&lt;sub&gt;%1&lt;/sub&gt;，其中 k&lt;sub&gt;%1&lt;/sub&gt;、v&lt;sub&gt;%1&lt;/sub&gt; 会加入缓存供下一个词元使用。</translation>
    </message>
    <message>
        <source>Scores</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>q&lt;sub&gt;%1&lt;/sub&gt; is compared with the %1 cached keys and its own: s&lt;sub&gt;j&lt;/sub&gt; = q&lt;sub&gt;%1&lt;/sub&gt;·k&lt;sub&gt;j&lt;/sub&gt; / √%2 for j = 0..%1. The orange columns of the left map are the cache.</source>
        <translation>q&lt;sub&gt;%1&lt;/sub&gt; 与 %1 个缓存的键以及它自己的键比较：s&lt;sub&gt;j&lt;/sub&gt; = q&lt;sub&gt;%1&lt;/sub&gt;·k&lt;sub&gt;j&lt;/sub&gt; / √%2，j = 0..%1。左图中橙色的列就是缓存。</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>A softmax over those %1 scores. The row equals row %2 of the full causal map: a causal model&apos;s earlier rows never change when a token is added, which is why their keys and values can be kept instead of recomputed. Here %3% of the weight lands on cached keys.</source>
        <translation>对这 %1 个分数做 softmax。这一行等于完整因果注意力图的第 %2 行：加入新词元时，因果模型前面的行从不改变，所以它们的键和值可以保留而无需重算。这里 %3% 的权重落在缓存的键上。</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>The cache grows by one key and one value per layer and KV head with every token: 2 × %1 layers × %2 KV heads × %3 dims × %4 tokens × 2 bytes = %5.</source>
        <translation>每生成一个词元，缓存在每层每个 KV 头上增加一个键和一个值：2 × %1 层 × %2 个 KV 头 × %3 维 × %4 个词元 × 2 字节 = %5。</translation>
    </message>
</context>
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
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n 层</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n head(s) of %1</source>
        <translation>
            <numerusform>%n 个头，每头 %1 维</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <comment>layers × heads</comment>
        <translation>%1 × %2</translation>
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
        <source>Fixed by the model: %1's %2 heads of %3 (d_model %4, %5 layers).</source>
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
        <source>Fixed by the model: %1 runs its own forward pass on the CPU and keeps every head's weights.</source>
        <translation>由模型固定：%1 在 CPU 上运行自己的前向计算，并保留每个头的权重。</translation>
    </message>
    <message>
        <source>The second segment of a sentence pair (token type 1), as BERT reads "[CLS] A [SEP] B [SEP]".</source>
        <translation>句对的第二段（token type 1），BERT 按 "[CLS] A [SEP] B [SEP]" 读取。</translation>
    </message>
    <message>
        <source>%1 reads one text; a second segment applies to BERT-style models only.</source>
        <translation>%1 只读取一段文本；第二段仅适用于 BERT 类模型。</translation>
    </message>
    <message>
        <source>%1, %2 bits/weight</source>
        <translation>%1，每个权重 %2 位</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>Contribution graph</source>
        <translation>贡献图</translation>
    </message>
    <message>
        <source>Row and column</source>
        <translation>行与列</translation>
    </message>
    <message>
        <source>Running the model: layer %1 of %2</source>
        <translation>正在运行模型：第 %1 层（共 %2 层）</translation>
    </message>
    <message>
        <source>Running the model: next-token predictions</source>
        <translation>正在运行模型：下一词元预测</translation>
    </message>
    <message>
        <source>Translation</source>
        <translation>翻译</translation>
    </message>
    <message>
        <source>Vision attention</source>
        <translation>视觉注意力</translation>
    </message>
    <message>
        <source>%1 is a vision model: open an image with File &gt; Open Image…</source>
        <translation>%1 是视觉模型：请用“文件 &gt; 打开图像…”打开一张图像</translation>
    </message>
    <message>
        <source>Out of memory: this image needs more memory than is available.</source>
        <translation>内存不足：处理这张图像所需的内存超过了可用内存。</translation>
    </message>
    <message>
        <source>Logit lens</source>
        <translation>逻辑透镜（Logit lens）</translation>
    </message>
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
        <source>%1 tokens: over the limit of %2 tokens for which the window keeps every layer's N x N attention (View &gt; Sequence Limit); shorten the text.</source>
        <translation>%1 个词元：超过了窗口保留每一层 N x N 注意力的上限 %2 个词元（视图 &gt; 序列上限）；请缩短文本。</translation>
    </message>
    <message>
        <source>Image attention</source>
        <translation>图像注意力</translation>
    </message>
    <message>
        <source>Graph attention</source>
        <translation>图注意力</translation>
    </message>
    <message>
        <source>Query–key geometry</source>
        <translation>查询–键几何</translation>
    </message>
    <message>
        <source>Attention variants</source>
        <translation>注意力变体</translation>
    </message>
    <message>
        <source>Activation patching</source>
        <translation>激活修补</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Let the loaded causal model write after a prompt and see the attention of every token it writes (Ctrl+Shift+G)</source>
        <translation>让已加载的因果模型在提示之后续写，并查看它写出的每个词元的注意力（Ctrl+Shift+G）</translation>
    </message>
</context>
<context>
    <name>VariantFigure</name>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Span mask m_z(x) per head</source>
        <translation>各头的跨度掩码 m_z(x)</translation>
    </message>
    <message>
        <source>distance x = |i − j|</source>
        <translation>距离 x = |i − j|</translation>
    </message>
    <message>
        <source>m_z(x)</source>
        <translation>m_z(x)</translation>
    </message>
    <message>
        <source>Mean entropy per hop</source>
        <translation>每跳的平均熵</translation>
    </message>
    <message>
        <source>hop</source>
        <translation>跳</translation>
    </message>
    <message>
        <source>entropy (nats)</source>
        <translation>熵（奈特）</translation>
    </message>
    <message>
        <source>Kernel entropy per position</source>
        <translation>各位置卷积核的熵</translation>
    </message>
    <message>
        <source>position i</source>
        <translation>位置 i</translation>
    </message>
    <message>
        <source>Largest |A_low − A_fp32| per query row</source>
        <translation>每个查询行的最大 |A_low − A_fp32|</translation>
    </message>
    <message>
        <source>query row</source>
        <translation>查询行</translation>
    </message>
    <message>
        <source>error</source>
        <translation>误差</translation>
    </message>
    <message>
        <source>Weight on memory keys per query</source>
        <translation>每个查询落在记忆键上的权重</translation>
    </message>
    <message>
        <source>query position</source>
        <translation>查询位置</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
</context>
<context>
    <name>VariantWalk</name>
    <message>
        <source>Keys: memory, then the segment</source>
        <translation>键：先记忆，后本段</translation>
    </message>
    <message>
        <source>Query %1 is in segment %2. It attends over %3 cached memory token(s) (orange: keys and values of the previous segment, kept without gradient) and its own segment up to itself. Positions enter only as the distance i − j.</source>
        <translation>查询 %1 位于第 %2 段。它关注 %3 个缓存的记忆词元（橙色：上一段的键和值，不传梯度）以及本段直到它自己的词元。位置只以距离 i − j 的形式出现。</translation>
    </message>
    <message>
        <source>distance i − j</source>
        <translation>距离 i − j</translation>
    </message>
    <message>
        <source>Content terms (a) and (c)</source>
        <translation>内容项 (a) 与 (c)</translation>
    </message>
    <message>
        <source>(a) q&lt;sub&gt;i&lt;/sub&gt;·k&lt;sub&gt;j&lt;/sub&gt; is what the query looks for in the key; (c) u·k&lt;sub&gt;j&lt;/sub&gt; is a learned global bias toward some keys whatever the query (u replaces the query's absolute position).</source>
        <translation>(a) q&lt;sub&gt;i&lt;/sub&gt;·k&lt;sub&gt;j&lt;/sub&gt; 表示查询在键中寻找的内容；(c) u·k&lt;sub&gt;j&lt;/sub&gt; 是与查询无关、偏向某些键的可学习全局偏置（u 取代了查询的绝对位置）。</translation>
    </message>
    <message>
        <source>(a) q·k</source>
        <translation>(a) q·k</translation>
    </message>
    <message>
        <source>(c) u·k</source>
        <translation>(c) u·k</translation>
    </message>
    <message>
        <source>Position terms (b) and (d)</source>
        <translation>位置项 (b) 与 (d)</translation>
    </message>
    <message>
        <source>r&lt;sub&gt;i−j&lt;/sub&gt; = R&lt;sub&gt;i−j&lt;/sub&gt; W&lt;sub&gt;k,R&lt;/sub&gt; encodes the distance with a sinusoid. (b) q&lt;sub&gt;i&lt;/sub&gt;·r&lt;sub&gt;i−j&lt;/sub&gt; lets the query prefer some distances; (d) v·r&lt;sub&gt;i−j&lt;/sub&gt; is a global distance bias. Because only distances appear, the cached memory needs no new positions.</source>
        <translation>r&lt;sub&gt;i−j&lt;/sub&gt; = R&lt;sub&gt;i−j&lt;/sub&gt; W&lt;sub&gt;k,R&lt;/sub&gt; 用正弦函数编码距离。(b) q&lt;sub&gt;i&lt;/sub&gt;·r&lt;sub&gt;i−j&lt;/sub&gt; 让查询偏好某些距离；(d) v·r&lt;sub&gt;i−j&lt;/sub&gt; 是全局距离偏置。由于只出现距离，缓存的记忆无需新的位置。</translation>
    </message>
    <message>
        <source>(b) q·r</source>
        <translation>(b) q·r</translation>
    </message>
    <message>
        <source>(d) v·r</source>
        <translation>(d) v·r</translation>
    </message>
    <message>
        <source>Sum and scale</source>
        <translation>求和与缩放</translation>
    </message>
    <message>
        <source>A&lt;sub&gt;ij&lt;/sub&gt; = (a) + (b) + (c) + (d), times 1/√d&lt;sub&gt;head&lt;/sub&gt; = %1. Keys after the query are hidden (−∞).</source>
        <translation>A&lt;sub&gt;ij&lt;/sub&gt; = (a) + (b) + (c) + (d)，再乘以 1/√d&lt;sub&gt;head&lt;/sub&gt; = %1。查询之后的键被遮住（−∞）。</translation>
    </message>
    <message>
        <source>sum</source>
        <translation>和</translation>
    </message>
    <message>
        <source>scaled logit</source>
        <translation>缩放后的分数</translation>
    </message>
    <message>
        <source>Softmax over memory and segment</source>
        <translation>在记忆与本段上做 Softmax</translation>
    </message>
    <message>
        <source>The weights sum to 1 across both parts; %1 of this query's weight goes to the memory. With several layers each layer's memory holds the layer below, so the reach grows by about M per layer.</source>
        <translation>两部分的权重之和为 1；该查询有 %1 的权重落在记忆上。多层时每层的记忆保存下一层的状态，因此每多一层可回溯的范围约增加 M。</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>The soft span mask</source>
        <translation>软跨度掩码</translation>
    </message>
    <message>
        <source>m&lt;sub&gt;z&lt;/sub&gt;(x) = clamp((R + z − x)/R, 0, 1) with z = %1, R = %2: keys within z of the query count fully, the next R fade out, the rest are cut. z is learned per head; a small z makes a local head that is cheap to run.</source>
        <translation>m&lt;sub&gt;z&lt;/sub&gt;(x) = clamp((R + z − x)/R, 0, 1)，z = %1，R = %2：距查询 z 以内的键完全保留，其后 R 个逐渐减弱，其余被截去。z 按头学习；z 小的头是局部的，计算代价低。</translation>
    </message>
    <message>
        <source>distance x</source>
        <translation>距离 x</translation>
    </message>
    <message>
        <source>m(x)</source>
        <translation>m(x)</translation>
    </message>
    <message>
        <source>Mask the weights</source>
        <translation>对权重施加掩码</translation>
    </message>
    <message>
        <source>The softmax weights a&lt;sub&gt;j&lt;/sub&gt; are multiplied by m(x&lt;sub&gt;j&lt;/sub&gt;); what is left sums to %1.</source>
        <translation>Softmax 权重 a&lt;sub&gt;j&lt;/sub&gt; 乘以 m(x&lt;sub&gt;j&lt;/sub&gt;)；剩余部分之和为 %1。</translation>
    </message>
    <message>
        <source>a</source>
        <translation>a</translation>
    </message>
    <message>
        <source>m·a</source>
        <translation>m·a</translation>
    </message>
    <message>
        <source>Renormalise</source>
        <translation>重新归一化</translation>
    </message>
    <message>
        <source>Dividing by the sum gives weights that add up to 1 again: the same as masking e&lt;sup&gt;s&lt;/sup&gt; before the softmax normaliser (eq. 4 of Sukhbaatar et al. 2019).</source>
        <translation>除以该和后权重之和重新为 1：等价于在 softmax 归一化之前对 e&lt;sup&gt;s&lt;/sup&gt; 施加掩码（Sukhbaatar 等 2019，式 4）。</translation>
    </message>
    <message>
        <source>a'</source>
        <translation>a'</translation>
    </message>
    <message>
        <source>row %1 is out of range</source>
        <translation>第 %1 行超出范围</translation>
    </message>
    <message>
        <source>(pad)</source>
        <translation>（填充）</translation>
    </message>
    <message>
        <source>Predict the kernel from this token alone</source>
        <translation>仅由该词元预测卷积核</translation>
    </message>
    <message>
        <source>f(x&lt;sub&gt;i&lt;/sub&gt;) = x&lt;sub&gt;i&lt;/sub&gt; W gives k = %1 numbers for this head, one per tap of the window. Unlike attention, no key is looked at: the kernel depends on the query position's own input.</source>
        <translation>f(x&lt;sub&gt;i&lt;/sub&gt;) = x&lt;sub&gt;i&lt;/sub&gt; W 为该头给出 k = %1 个数，窗口的每个位置一个。与注意力不同，这里不看任何键：卷积核只取决于查询位置自身的输入。</translation>
    </message>
    <message>
        <source>f(x_i)</source>
        <translation>f(x_i)</translation>
    </message>
    <message>
        <source>Softmax over the taps</source>
        <translation>在窗口位置上做 Softmax</translation>
    </message>
    <message>
        <source>The kernel is normalised over its k taps (weight normalisation, Wu et al. 2019, eq. 2).</source>
        <translation>卷积核在其 k 个位置上归一化（权重归一化，Wu 等 2019，式 2）。</translation>
    </message>
    <message>
        <source>kernel</source>
        <translation>卷积核</translation>
    </message>
    <message>
        <source>The banded attention map</source>
        <translation>带状注意力图</translation>
    </message>
    <message>
        <source>Placed at columns i − %1 … i − %1 + k − 1, the kernel is row i of an attention map that is zero outside the band. Taps on the padding read zeros, so this row keeps %2 of its weight.</source>
        <translation>放在第 i − %1 … i − %1 + k − 1 列，卷积核就是一张带外为零的注意力图的第 i 行。落在填充上的位置读到零，因此这一行保留 %2 的权重。</translation>
    </message>
    <message>
        <source>Next query: q&lt;sub&gt;%1&lt;/sub&gt; = q&lt;sub&gt;%2&lt;/sub&gt; + o&lt;sub&gt;%2&lt;/sub&gt;.</source>
        <translation>下一个查询：q&lt;sub&gt;%1&lt;/sub&gt; = q&lt;sub&gt;%2&lt;/sub&gt; + o&lt;sub&gt;%2&lt;/sub&gt;。</translation>
    </message>
    <message>
        <source>Next query: q&lt;sub&gt;%1&lt;/sub&gt; = q&lt;sub&gt;%2&lt;/sub&gt; H + o&lt;sub&gt;%2&lt;/sub&gt;.</source>
        <translation>下一个查询：q&lt;sub&gt;%1&lt;/sub&gt; = q&lt;sub&gt;%2&lt;/sub&gt; H + o&lt;sub&gt;%2&lt;/sub&gt;。</translation>
    </message>
    <message>
        <source>Hop %1</source>
        <translation>第 %1 跳</translation>
    </message>
    <message>
        <source>|q&lt;sub&gt;%1&lt;/sub&gt;| = %2. The weights peak at “%3” (%4); entropy %5 nats. %6</source>
        <translation>|q&lt;sub&gt;%1&lt;/sub&gt;| = %2。权重在“%3”处最大（%4）；熵 %5 奈特。%6</translation>
    </message>
    <message>
        <source>Logits in fp32 and in %1</source>
        <translation>fp32 与 %1 下的分数</translation>
    </message>
    <message>
        <source>Q and K are rounded to %1 (or quantized to 8-bit integers with a scale), the dot products taken and the logits stored in the low format.</source>
        <translation>Q 和 K 被舍入到 %1（或用缩放因子量化为 8 位整数），计算点积，分数以低精度格式存储。</translation>
    </message>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>fp16 softmax without subtracting the max</source>
        <translation>不减最大值的 fp16 Softmax</translation>
    </message>
    <message>
        <source>e&lt;sup&gt;s&lt;/sup&gt; exceeds fp16's largest value 65504 once s &gt; ln 65504 ≈ 11.09; then it is ∞, the sum is ∞ and the weights become ∞/∞ = NaN (or x/∞ = 0). This row's fp16 sum: %1.</source>
        <translation>当 s &gt; ln 65504 ≈ 11.09 时，e&lt;sup&gt;s&lt;/sup&gt; 超过 fp16 的最大值 65504，变为 ∞，和也为 ∞，权重变成 ∞/∞ = NaN（或 x/∞ = 0）。本行的 fp16 和：%1。</translation>
    </message>
    <message>
        <source>fp16 e^s</source>
        <translation>fp16 e^s</translation>
    </message>
    <message>
        <source>Subtract the row max first</source>
        <translation>先减去行最大值</translation>
    </message>
    <message>
        <source>With m = %1 every e&lt;sup&gt;s−m&lt;/sup&gt; lies in (0, 1], so nothing overflows and the sum is at most the number of keys. The fp16 sum %2 against %3 in fp32: small terms are lost next to large ones (fp16 keeps about 3 digits), which is why the sum and the normalisation run in fp32.</source>
        <translation>取 m = %1 后每个 e&lt;sup&gt;s−m&lt;/sup&gt; 都在 (0, 1] 内，不会溢出，和至多为键的个数。fp16 的和为 %2，fp32 为 %3：小项在大项旁边被吞掉（fp16 只有约 3 位有效数字），所以求和与归一化在 fp32 中进行。</translation>
    </message>
    <message>
        <source>fp16 e^(s−m)</source>
        <translation>fp16 e^(s−m)</translation>
    </message>
    <message>
        <source>The map in %1 against fp32</source>
        <translation>%1 的注意力图与 fp32 对比</translation>
    </message>
    <message>
        <source>KL(fp32 ‖ %1) for this row = %2 nats; the most attended key %3.</source>
        <translation>本行 KL(fp32 ‖ %1) = %2 奈特；最受关注的键%3。</translation>
    </message>
    <message>
        <source>is the same</source>
        <translation>不变</translation>
    </message>
    <message>
        <source>changes</source>
        <translation>改变了</translation>
    </message>
    <message>
        <source>Why LayerNorm stays in fp32</source>
        <translation>为什么 LayerNorm 保持 fp32</translation>
    </message>
    <message>
        <source>LayerNorm needs the variance of a row. Computed in fp16 as E[x²] − E[x]², this token's embedding gives %1 (fp32: %2). Activations 16× larger, common in deep models, give %3 (fp32: %4): the fp16 sum of squares reaches %5 and squares above 65504 (|x| &gt; 256) overflow outright, while the subtraction of two close large numbers cancels the digits that matter. Mixed-precision training and inference therefore keep LayerNorm and softmax statistics in fp32.</source>
        <translation>LayerNorm 需要一行的方差。用 fp16 按 E[x²] − E[x]² 计算，该词元的嵌入得到 %1（fp32：%2）。深层模型中常见的大 16 倍的激活得到 %3（fp32：%4）：fp16 的平方和达到 %5，大于 65504 的平方（|x| &gt; 256）直接溢出，而两个相近大数相减会抵消有用的有效数字。因此混合精度训练和推理都把 LayerNorm 与 softmax 的统计量保持在 fp32。</translation>
    </message>
    <message>
        <source>head %1 is out of range</source>
        <translation>头 %1 超出范围</translation>
    </message>
    <message>
        <source>Segment memory (Transformer-XL)</source>
        <translation>分段记忆（Transformer-XL）</translation>
    </message>
    <message>
        <source>Adaptive span</source>
        <translation>自适应跨度</translation>
    </message>
    <message>
        <source>Dynamic convolution</source>
        <translation>动态卷积</translation>
    </message>
    <message>
        <source>Multi-hop attention</source>
        <translation>多跳注意力</translation>
    </message>
    <message>
        <source>Reduced precision / INT8</source>
        <translation>低精度 / INT8</translation>
    </message>
    <message>
        <source>Dai et al. 2019: each segment attends over the cached previous tokens (memory, drawn in orange) and itself, with relative positions and the u, v biases.</source>
        <translation>Dai 等 2019：每一段关注缓存的前文词元（记忆，以橙色绘制）和自身，使用相对位置以及 u、v 偏置。</translation>
    </message>
    <message>
        <source>Sukhbaatar et al. 2019: each head keeps keys within a learned span z, softly cut by m(x) = clamp((R + z − x)/R, 0, 1), then renormalises.</source>
        <translation>Sukhbaatar 等 2019：每个头只保留学到的跨度 z 以内的键，用 m(x) = clamp((R + z − x)/R, 0, 1) 软截断后重新归一化。</translation>
    </message>
    <message>
        <source>Wu et al. 2019: a softmax-normalised kernel over a window, predicted from each token alone; drawn as the equivalent banded attention map.</source>
        <translation>Wu 等 2019：由每个词元单独预测、在窗口上经 softmax 归一化的卷积核；画成等价的带状注意力图。</translation>
    </message>
    <message>
        <source>Sukhbaatar et al. 2015 (memory networks): attention applied k times, the query updated by each hop's output; one map and entropy per hop.</source>
        <translation>Sukhbaatar 等 2015（记忆网络）：注意力重复 k 次，每跳用输出更新查询；每跳一张图和一个熵。</translation>
    </message>
    <message>
        <source>fp16/bf16 or INT8 Q/K (or projections) against fp32: the error map, KL and top-1 agreement, and where an fp16 softmax without max subtraction overflows.</source>
        <translation>fp16/bf16 或 INT8 的 Q/K（或投影）与 fp32 对比：误差图、KL 与 top-1 一致率，以及不减最大值的 fp16 softmax 在何处溢出。</translation>
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
        <source>Each cell kept with probability P, seeded (BigBird's random attention).</source>
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
        <source>A keep bitmap [Nq, Nk] from the input file's 'mask' array (1 = keep).</source>
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
        <source>Adds -m_h |i - j| to head h's logits, with geometric slopes m_h (Press et al. 2022).</source>
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
    <message>
        <source>2-D local window</source>
        <translation>二维局部窗口</translation>
    </message>
    <message>
        <source>Image patches: query patch sees the patches within R rows and R columns of it, a (2R+1) x (2R+1) square (Ramachandran et al. 2019).</source>
        <translation>图像块：查询块只看到与它相距不超过 R 行、R 列的图像块，即 (2R+1) x (2R+1) 的方形邻域（Ramachandran 等，2019）。</translation>
    </message>
    <message>
        <source>patches on each side, in rows and in columns (0: only itself)</source>
        <translation>每侧的图像块数，按行和按列（0：只有自己）</translation>
    </message>
    <message>
        <source>grid width in patches; empty: the image's patch grid</source>
        <translation>网格宽度（图像块数）；留空：取图像的分块网格</translation>
    </message>
    <message>
        <source>Sinusoidal 2-D (image patches)</source>
        <translation>二维正弦（图像块）</translation>
    </message>
    <message>
        <source>Image patches: sin/cos of the patch row in half the width, of the column in the other half (ViT, MAE).</source>
        <translation>图像块：一半维度编码图像块所在行的 sin/cos，另一半编码所在列（ViT、MAE）。</translation>
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
        <source>Flags: near-uniform when normalized entropy &gt; %1, near-one-hot when one key &gt; %2 of the mass, on more than %3% of rows with 2+ unmasked keys. Sparsity k covers %4% of each row's mass.</source>
        <translation>标记：在超过 %3% 的（至少有 2 个未遮住键的）行中，归一化熵 &gt; %1 为接近均匀，单个键 &gt; %2 的权重为接近独热。稀疏度 k 覆盖每行 %4% 的权重。</translation>
    </message>
</context>
<context>
    <name>attn::ui::AboutDialog</name>
    <message>
        <source>About AttnScope</source>
        <translation>关于 AttnScope</translation>
    </message>
    <message>
        <source>&lt;b&gt;AttnScope %1&lt;/b&gt; — an attention visualizer.</source>
        <translation>&lt;b&gt;AttnScope %1&lt;/b&gt; —— 注意力可视化工具。</translation>
    </message>
    <message>
        <source>forced by ATTNSCOPE_CPU</source>
        <translation>由 ATTNSCOPE_CPU 指定</translation>
    </message>
    <message>
        <source>the highest installed level this CPU supports</source>
        <translation>已安装的、本机 CPU 支持的最高级别</translation>
    </message>
    <message>
        <source>Kernel level:</source>
        <translation>内核指令级别：</translation>
    </message>
    <message>
        <source>Compiled for:</source>
        <translation>编译目标：</translation>
    </message>
    <message>
        <source>Threads:</source>
        <translation>线程数：</translation>
    </message>
    <message>
        <source>(unavailable: %1)</source>
        <translation>（不可用：%1）</translation>
    </message>
    <message>
        <source>Backends:</source>
        <translation>计算后端：</translation>
    </message>
    <message>
        <source>Qt:</source>
        <translation>Qt：</translation>
    </message>
    <message>
        <source>Eigen:</source>
        <translation>Eigen：</translation>
    </message>
    <message>
        <source>Copy for a Bug Report</source>
        <translation>复制（用于问题报告）</translation>
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
    <name>attn::ui::BundledModelsMenu</name>
    <message>
        <source>Open &amp;Bundled Model</source>
        <translation>打开内置模型(&amp;B)</translation>
    </message>
    <message>
        <source>E&amp;xamples</source>
        <translation>示例(&amp;X)</translation>
    </message>
    <message>
        <source>GPT-2 trained on Jane Austen&apos;s novels: attention learned from English prose</source>
        <translation>在简·奥斯汀小说上训练的 GPT-2：从英文散文中学到的注意力</translation>
    </message>
    <message>
        <source>BERT trained on Jane Austen&apos;s novels: bidirectional attention, heads on the previous and the next token, predictions at each [MASK]</source>
        <translation>在简·奥斯汀小说上训练的 BERT：双向注意力、看前一个和后一个词元的注意力头、每个 [MASK] 处的预测</translation>
    </message>
    <message>
        <source>Two attention-only layers trained on word sequences that repeat: type a phrase twice</source>
        <translation>在重复的词序列上训练的两层纯注意力模型：把一个短语输入两遍</translation>
    </message>
    <message>
        <source>Character-level GPT-2 trained on Tang and Song poems: heads that pair the two lines of a couplet</source>
        <translation>在唐诗宋诗上训练的字符级 GPT-2：有的注意力头把上下两句对应位置的字对齐</translation>
    </message>
    <message>
        <source>Random-projection explorer</source>
        <translation>随机投影探索器</translation>
    </message>
    <message>
        <source>Close the model and explore the mechanisms with seeded random projections on this text.</source>
        <translation>关闭模型，用带种子的随机投影在这段文字上探索注意力机制。</translation>
    </message>
    <message>
        <source>The bundled model %1 is not installed (looked in %2).</source>
        <translation>内置模型 %1 未安装（已查找：%2）。</translation>
    </message>
    <message>
        <source>The bundled model %1 is not installed: showing the random-projection explorer.</source>
        <translation>内置模型 %1 未安装：显示随机投影探索器。</translation>
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
        <source>Rollout and flow need an input with layers (an 'attn' array [L, H, N, N]).</source>
        <translation>Rollout 和 flow 需要带层的输入（'attn' 数组 [L, H, N, N]）。</translation>
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
        <source>B's mask, e.g. causal; empty keeps A's mask. Press Enter to apply.</source>
        <translation>B 的掩码，例如 causal；留空则沿用 A 的掩码。按回车应用。</translation>
    </message>
    <message>
        <source>temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>B's mask: %1</source>
        <translation>B 的掩码：%1</translation>
    </message>
    <message>
        <source>path</source>
        <translation>执行路径</translation>
    </message>
    <message>
        <source>B's execution path, e.g. performer to compare an approximation with exact attention.</source>
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
        <source>A second sentence for B, run through the same model (as many tokens as A's to compare cell by cell); empty uses A's text. Press Enter to apply.</source>
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
    <name>attn::ui::ContributionView</name>
    <message>
        <source>Quantization effect</source>
        <translation>量化影响</translation>
    </message>
    <message>
        <source>Each head&apos;s weights with llama.cpp&apos;s quantized products minus those at full precision (the dequantized weights on f32 activations).</source>
        <translation>每个头在 llama.cpp 量化乘积下的权重减去全精度（反量化权重作用于 f32 激活）下的权重。</translation>
    </message>
    <message>
        <source>The quantization effect is of the model&apos;s own run: clear the interventions first.</source>
        <translation>量化影响针对模型自身的运行：请先清除干预。</translation>
    </message>
    <message>
        <source>The quantization effect compares every layer&apos;s maps: this text is streamed (too long to keep them); shorten it.</source>
        <translation>量化影响比较每一层的图：此文本以流式运行（太长，无法保留这些图）；请缩短文本。</translation>
    </message>
    <message>
        <source>Quantized − full precision</source>
        <translation>量化 − 全精度</translation>
    </message>
    <message>
        <source>Computing the quantization effect</source>
        <translation>正在计算量化影响</translation>
    </message>
    <message>
        <source>ALTI (the layer&apos;s, in every head)</source>
        <translation>ALTI（整层的，每个头相同）</translation>
    </message>
    <message>
        <source>Maps </source>
        <translation>图 </translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Attention norms</source>
        <translation>注意力范数</translation>
    </message>
    <message>
        <source>ALTI</source>
        <translation>ALTI</translation>
    </message>
    <message>
        <source>What a loaded model&apos;s maps show: attention weights; attention norms ‖α f(x)‖ per head (Kobayashi et al. 2020) as a share of each row; or ALTI, each layer&apos;s token-to-token contributions with the residual and norm (Ferrando et al. 2022), the same in every head.</source>
        <translation>已加载模型的图显示什么：注意力权重；每个头的注意力范数 ‖α f(x)‖（Kobayashi 等 2020），按行占比；或 ALTI，每层含残差与归一化的词元间贡献（Ferrando 等 2022），该层每个头相同。</translation>
    </message>
    <message>
        <source>Attention norms and ALTI are of the model&apos;s own run: clear the interventions first.</source>
        <translation>注意力范数和 ALTI 基于模型自身的运行：请先清除干预。</translation>
    </message>
    <message>
        <source>Computing contributions</source>
        <translation>正在计算贡献</translation>
    </message>
    <message>
        <source>Attention × gradient</source>
        <translation>注意力 × 梯度</translation>
    </message>
    <message>
        <source>Attention × gradient is of the model&apos;s own run: clear the interventions first.</source>
        <translation>注意力 × 梯度基于模型自身的运行：请先清除干预。</translation>
    </message>
    <message>
        <source>Attention × gradient (signed; each map ÷ the largest |α·∂logit/∂α| of all heads)</source>
        <translation>注意力 × 梯度（有正负；每张图 ÷ 所有头中最大的 |α·∂logit/∂α|）</translation>
    </message>
</context>
<context>
    <name>attn::ui::ConfigPanel</name>
    <message>
        <source>GPU inputs</source>
        <translation>GPU 输入格式</translation>
    </message>
    <message>
        <source>How the CUDA backend stores Q, K, V (fp16 and bf16: half the memory on the tiled paths); arithmetic stays fp32, and the difference from fp32 inputs is reported.</source>
        <translation>CUDA 后端如何存储 Q、K、V（fp16 与 bf16：在分块路径上内存减半）；运算仍为 fp32，并报告与 fp32 输入的差异。</translation>
    </message>
    <message>
        <source>Only the CUDA backend stores Q, K, V in fp16 or bf16; no CUDA device was found.</source>
        <translation>只有 CUDA 后端以 fp16 或 bf16 存储 Q、K、V；未找到 CUDA 设备。</translation>
    </message>
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
        <source>Width of each head's queries and keys (d_k); auto uses d_model / heads.</source>
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
        <source>Hidden size of the additive score's tanh layer; used by the additive mechanism only.</source>
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
    <name>attn::ui::ExperimentsActions</name>
    <message>
        <source>With the interventions: KL(before ‖ after) = %1 nats at position %2.</source>
        <translation>施加干预后：位置 %2 处 KL(之前 ‖ 之后) = %1 纳特。</translation>
    </message>
    <message>
        <source>Before: %1</source>
        <translation>之前：%1</translation>
    </message>
    <message>
        <source>After: %1</source>
        <translation>之后：%1</translation>
    </message>
    <message>
        <source>Mean next-token loss of the text: %1 → %2 nats (%3%4).</source>
        <translation>文本的平均下一词元损失：%1 → %2 纳特（%3%4）。</translation>
    </message>
    <message>
        <source>E&amp;xperiments</source>
        <translation>实验(&amp;X)</translation>
    </message>
    <message>
        <source>Interventions</source>
        <translation>干预</translation>
    </message>
    <message>
        <source>Intervention effect</source>
        <translation>干预效果</translation>
    </message>
    <message>
        <source>Head importance</source>
        <translation>头重要性</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>Running the intervened model…</source>
        <translation>正在运行干预后的模型…</translation>
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
        <source>%1: unknown file type '%2' (open .npz, .npy, .safetensors, .csv, .txt or a .json session)</source>
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
    <name>attn::ui::GenerationOptions</name>
    <message>
        <source>Most tokens to write after the prompt; an end-of-text token stops sooner.</source>
        <translation>在提示之后最多写出的词元数；遇到文本结束词元会提前停止。</translation>
    </message>
    <message>
        <source>Greedy</source>
        <translation>贪心</translation>
    </message>
    <message>
        <source>Beam search</source>
        <translation>束搜索</translation>
    </message>
    <message>
        <source>Sampling</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>Beam sampling</source>
        <translation>束采样</translation>
    </message>
    <message>
        <source>Greedy: the most probable token each step. Beam search: the best of several hypotheses as transformers&apos; generate scores them. Sampling: drawn from the filtered distribution, reproducible with the seed. Beam sampling: beam search whose candidates are drawn instead of taken best first.</source>
        <translation>贪心：每一步取概率最大的词元。束搜索：按 transformers 的 generate 的打分，在若干假设中取最好的。采样：从过滤后的分布中抽取，用种子可复现。束采样：候选不是按分数取最好的，而是抽取出来的束搜索。</translation>
    </message>
    <message>
        <source>Hypotheses kept at each step (2 to 8)</source>
        <translation>每一步保留的假设数（2 到 8）</translation>
    </message>
    <message>
        <source>A finished hypothesis scores Σ log p / length^penalty: above 0 favours longer ones.</source>
        <translation>已完成的假设得分为 Σ log p / 长度^惩罚：大于 0 时偏向较长的假设。</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Draw among the k most probable tokens only (0: off)</source>
        <translation>只在概率最大的 k 个词元中抽取（0：关闭）</translation>
    </message>
    <message>
        <source>Nucleus sampling: the smallest set of tokens whose probability reaches p (1: off)</source>
        <translation>核采样：概率之和达到 p 的最小词元集合（1：关闭）</translation>
    </message>
    <message>
        <source>Logits are divided by this before sampling: below 1 sharper, above 1 flatter</source>
        <translation>采样前 logits 除以此值：小于 1 更尖锐，大于 1 更平坦</translation>
    </message>
    <message>
        <source>The same seed, prompt and settings write the same text</source>
        <translation>相同的种子、提示和设置写出相同的文本</translation>
    </message>
    <message>
        <source>Beams</source>
        <translation>束数</translation>
    </message>
    <message>
        <source>Length penalty</source>
        <translation>长度惩罚</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Max new tokens</source>
        <translation>最多新词元</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>方式</translation>
    </message>
</context>
<context>
    <name>attn::ui::GenerationPanel</name>
    <message>
        <source>%1 is an encoder–decoder model: it writes in the Translation dock. Open a causal model (GPT-2, the Llama family, GGUF) to generate here.</source>
        <translation>%1 是编码器–解码器模型：它在“翻译”面板中写出文本。要在这里生成，请打开因果模型（GPT-2、Llama 系列、GGUF）。</translation>
    </message>
    <message>
        <source>Open a causal language model (GPT-2, the Llama family, GGUF) with File &gt; Open Model Folder… to generate text and see the attention of every token it writes.</source>
        <translation>用 文件 &gt; 打开模型文件夹… 打开因果语言模型（GPT-2、Llama 系列、GGUF），即可生成文本并查看它写出的每个词元的注意力。</translation>
    </message>
    <message>
        <source>a vision model</source>
        <translation>视觉模型</translation>
    </message>
    <message>
        <source>a bidirectional encoder (%1)</source>
        <translation>双向编码器（%1）</translation>
    </message>
    <message>
        <source>%1 is %2, model_type %3: it writes no text. Generation needs a causal language model (GPT-2, the Llama family, GGUF).</source>
        <translation>%1 是%2，model_type %3：它不写文本。生成需要因果语言模型（GPT-2、Llama 系列、GGUF）。</translation>
    </message>
    <message>
        <source>&amp;Generate</source>
        <translation>生成(&amp;G)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Show in the Main Views</source>
        <translation>在主视图中显示</translation>
    </message>
    <message>
        <source>Export Figure…</source>
        <translation>导出图形…</translation>
    </message>
    <message>
        <source>%1… %2%</source>
        <translation>%1… %2%</translation>
    </message>
    <message>
        <source>The prompt the model continues</source>
        <translation>模型续写的提示</translation>
    </message>
    <message>
        <source>The text the model continues: the input text unless you type another here.</source>
        <translation>模型续写的文本：默认为输入文本，也可在此输入其他文本。</translation>
    </message>
    <message>
        <source>Write after the prompt (Ctrl+Return or Enter in the prompt)</source>
        <translation>在提示之后续写（Ctrl+Return，或在提示中按 Enter）</translation>
    </message>
    <message>
        <source>Stop writing (Esc); the previous result stays</source>
        <translation>停止续写（Esc）；保留之前的结果</translation>
    </message>
    <message>
        <source>%p%</source>
        <translation>%p%</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>The prompt (grey) and the written tokens (orange): click a written token to see the attention with which it was written.</source>
        <translation>提示（灰色）和写出的词元（橙色）：点击写出的词元，查看写出它时的注意力。</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>The earlier tokens the chosen one was written with the most attention to</source>
        <translation>写出所选词元时注意力最多的前面词元</translation>
    </message>
    <message>
        <source>The settings the core used, from the checkpoint&apos;s generation config and the choices above</source>
        <translation>核心所用的设置：来自检查点的生成配置和上面的选择</translation>
    </message>
    <message>
        <source>The written token whose attention is shown (also: click a token above)</source>
        <translation>显示其注意力的写出词元（也可点击上面的词元）</translation>
    </message>
    <message>
        <source>Layer of the model</source>
        <translation>模型的层</translation>
    </message>
    <message>
        <source>One head, or the mean of the layer&apos;s heads</source>
        <translation>一个头，或该层各头的平均</translation>
    </message>
    <message>
        <source>Run the prompt and the written tokens (their ids, not the text re-tokenized) through the model in the main views: heatmap, heads, metrics and the rest show the final sequence.</source>
        <translation>在主视图中让模型运行提示和写出的词元（用它们的 id，而不是重新分词的文本）：热图、头、指标等都显示最终序列。</translation>
    </message>
    <message>
        <source>Save the bar chart as PNG, SVG or PDF.</source>
        <translation>将条形图保存为 PNG、SVG 或 PDF。</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>%1: %2 layers × %3 heads. Generate (Ctrl+Return) writes after the prompt.</source>
        <translation>%1：%2 层 × %3 个头。“生成”（Ctrl+Return）在提示之后续写。</translation>
    </message>
    <message>
        <source>Type a prompt first.</source>
        <translation>请先输入提示。</translation>
    </message>
    <message>
        <source>Not enough memory for this generation: write fewer tokens.</source>
        <translation>内存不足以完成这次生成：请写出更少的词元。</translation>
    </message>
    <message>
        <source>Writing</source>
        <translation>正在续写</translation>
    </message>
    <message>
        <source>Writing…</source>
        <translation>正在续写…</translation>
    </message>
    <message>
        <source>Cancelled; the previous result stays.</source>
        <translation>已取消；保留之前的结果。</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Settings: %1</source>
        <translation>设置：%1</translation>
    </message>
    <message>
        <source>%1 prompt + %2 written tokens in %3 ms: “%4”</source>
        <translation>%1 个提示词元 + %2 个写出的词元，用时 %3 ms：“%4”</translation>
    </message>
    <message>
        <source>The model wrote nothing (an end token first, or no room left).</source>
        <translation>模型什么也没写（先写出了结束词元，或没有剩余位置）。</translation>
    </message>
    <message>
        <source>Mean of heads</source>
        <translation>各头平均</translation>
    </message>
    <message>
        <source>Step %1 / %2</source>
        <translation>第 %1 / %2 步</translation>
    </message>
    <message>
        <source>Step –</source>
        <translation>步 –</translation>
    </message>
    <message>
        <source>%1  %2  (position %3)</source>
        <translation>%1  %2  （位置 %3）</translation>
    </message>
    <message>
        <source>mean of the heads</source>
        <translation>各头平均</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Writing “%1” (token %2): layer %3, %4, over the %5 tokens before it</source>
        <translation>写出“%1”（词元 %2）：第 %3 层，%4，对它之前的 %5 个词元</translation>
    </message>
    <message>
        <source>The main views show the %1 tokens of the prompt and the written text.</source>
        <translation>主视图显示提示和写出文本的 %1 个词元。</translation>
    </message>
    <message>
        <source>Nothing to export yet: generate, then choose a written token.</source>
        <translation>尚无可导出的内容：请先生成，再选择一个写出的词元。</translation>
    </message>
    <message>
        <source>Attention of the written token</source>
        <translation>写出词元的注意力</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图形</translation>
    </message>
</context>
<context>
    <name>attn::ui::GradientPanel</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Export Figure…</source>
        <translation>导出图…</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>%1… %2%</source>
        <translation>%1… %2%</translation>
    </message>
    <message>
        <source>1 token</source>
        <translation>1 个词元</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 个词元</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图</translation>
    </message>
    <message>
        <source>The token whose logit is explained: one token, with its leading space where the vocabulary has one (&quot; Mary&quot;), or #ID. Filled with the model&apos;s prediction.</source>
        <translation>要解释其 logit 的词元：一个词元（词表中有前导空格时带上空格，如 &quot; Mary&quot;），或 #ID。默认填入模型的预测。</translation>
    </message>
    <message>
        <source>last / first [MASK]</source>
        <translation>最后 / 第一个 [MASK]</translation>
    </message>
    <message>
        <source>The position whose logit is explained (0-based)</source>
        <translation>要解释其 logit 的位置（从 0 开始）</translation>
    </message>
    <message>
        <source>Integrated gradients: backward passes along the path from the zero embedding</source>
        <translation>积分梯度：沿从零嵌入出发的路径进行的反向传播次数</translation>
    </message>
    <message>
        <source>Compute the gradients (Ctrl+Return)</source>
        <translation>计算梯度（Ctrl+Return）</translation>
    </message>
    <message>
        <source>Save the bars as PNG, SVG or PDF.</source>
        <translation>将柱状图保存为 PNG、SVG 或 PDF。</translation>
    </message>
    <message>
        <source>Position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>attribution (logit units)</source>
        <translation>归因（logit 单位）</translation>
    </message>
    <message>
        <source>Gradient attribution of one logit to the input tokens: gradient × input and integrated gradients (Sundararajan et al. 2017); attention × gradient (Chefer et al. 2021) in the heatmap&apos;s Maps selector.</source>
        <translation>将一个 logit 归因到输入词元的梯度归因：梯度 × 输入与积分梯度（Sundararajan 等，2017）；注意力 × 梯度（Chefer 等，2021）见热图的“图”选择器。</translation>
    </message>
    <message>
        <source>Run (Ctrl+Return) explains the target&apos;s logit by the input tokens.</source>
        <translation>运行（Ctrl+Return）用输入词元解释目标的 logit。</translation>
    </message>
    <message>
        <source>Open a model (GPT-2, the Llama family, a BERT masked LM) to compute gradients.</source>
        <translation>打开一个模型（GPT-2、Llama 系列、BERT 掩码语言模型）以计算梯度。</translation>
    </message>
    <message>
        <source>Type a text in the Input panel first.</source>
        <translation>请先在输入面板中输入文本。</translation>
    </message>
    <message>
        <source>Backward passes</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <source>Backward passes…</source>
        <translation>反向传播…</translation>
    </message>
    <message>
        <source>Cancelled; the bars are the previous run&apos;s.</source>
        <translation>已取消；柱状图为上一次运行的结果。</translation>
    </message>
    <message>
        <source>The logit of %1 at position %2 (“%3”), explained by each input token. Attention × gradient: heatmap tool bar, Maps.</source>
        <translation>位置 %2（“%3”）处 %1 的 logit，由每个输入词元解释。注意力 × 梯度：热图工具栏的“图”。</translation>
    </message>
    <message>
        <source>Σ gradient × input %1; Σ integrated gradients %2 (%3 steps) vs logit − baseline logit %4 − %5 = %6 (completeness).</source>
        <translation>Σ 梯度 × 输入 %1；Σ 积分梯度 %2（%3 步），对比 logit − 基线 logit %4 − %5 = %6（完备性）。</translation>
    </message>
    <message>
        <source>gradient × input</source>
        <translation>梯度 × 输入</translation>
    </message>
    <message>
        <source>integrated gradients</source>
        <translation>积分梯度</translation>
    </message>
    <message>
        <source>Nothing to export yet: compute the gradients first.</source>
        <translation>尚无可导出的内容：请先计算梯度。</translation>
    </message>
    <message>
        <source>Gradient × input and integrated gradients</source>
        <translation>梯度 × 输入与积分梯度</translation>
    </message>
</context>
<context>
    <name>attn::ui::GraphPanel</name>
    <message>
        <source>%1: %2 nodes, %3 edges, %4 features. Node %5 attends over %6 nodes (itself included).</source>
        <translation>%1：%2 个节点，%3 条边，%4 个特征。节点 %5 在 %6 个节点上分配注意力（包括它自己）。</translation>
    </message>
    <message>
        <source>Attention heads K, each with its own W and a (Velickovic et al. 2018, eq. 5).</source>
        <translation>注意力头数 K，每个头有自己的 W 和 a（Veličković 等，2018，式 5）。</translation>
    </message>
    <message>
        <source>Average (output layer)</source>
        <translation>取平均（输出层）</translation>
    </message>
    <message>
        <source>Concatenate (hidden layer)</source>
        <translation>拼接（隐藏层）</translation>
    </message>
    <message>
        <source>Example</source>
        <translation>示例</translation>
    </message>
    <message>
        <source>Export Figure…</source>
        <translation>导出图片…</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图片</translation>
    </message>
    <message>
        <source>F'</source>
        <translation>F'</translation>
    </message>
    <message>
        <source>GAT head %1 — attention of node %2</source>
        <translation>GAT 注意力头 %1 — 节点 %2 的注意力</translation>
    </message>
    <message>
        <source>Graph attention</source>
        <translation>图注意力</translation>
    </message>
    <message>
        <source>Graphs (*.csv *.npz);;All files (*)</source>
        <translation>图 (*.csv *.npz);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>注意力头</translation>
    </message>
    <message>
        <source>How heads are combined: concatenated after ELU (eq. 5) or averaged (eq. 6).</source>
        <translation>多个头如何合并：经 ELU 后拼接（式 5）或取平均（式 6）。</translation>
    </message>
    <message>
        <source>Nothing to export yet.</source>
        <translation>还没有可导出的内容。</translation>
    </message>
    <message>
        <source>Open Graph…</source>
        <translation>打开图…</translation>
    </message>
    <message>
        <source>Open a graph (or the example) to see graph attention.</source>
        <translation>打开一个图（或示例）以查看图注意力。</translation>
    </message>
    <message>
        <source>Open graph</source>
        <translation>打开图</translation>
    </message>
    <message>
        <source>Output features per head F' (W is F x F').</source>
        <translation>每个头的输出特征数 F'（W 为 F x F'）。</translation>
    </message>
    <message>
        <source>Save the graph and heatmap as PNG, SVG or PDF.</source>
        <translation>将图和热力图保存为 PNG、SVG 或 PDF。</translation>
    </message>
    <message>
        <source>Seed of the parameters W and a, and of the force-directed layout.</source>
        <translation>参数 W、a 以及力导向布局的随机种子。</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Show head</source>
        <translation>显示注意力头</translation>
    </message>
    <message>
        <source>The bundled example: three communities of six nodes.</source>
        <translation>内置示例：三个各含六个节点的社区。</translation>
    </message>
    <message>
        <source>The head whose attention is drawn.</source>
        <translation>绘制其注意力的注意力头。</translation>
    </message>
    <message>
        <source>example graph</source>
        <translation>示例图</translation>
    </message>
    <message>
        <source>Open an edge list (.csv: source,target node indices from 0) or an .npz with 'adj' [N, N] and/or node features 'x' [N, F]; up to 2,000 nodes.</source>
        <translation>打开边列表（.csv：source,target，节点编号从 0 开始）或含 'adj' [N, N] 和/或节点特征 'x' [N, F] 的 .npz；最多 2,000 个节点。</translation>
    </message>
    <message>
        <source>Edges into the selected node (ringed) are drawn with opacity and width = its attention weight alpha_ij = softmax_j LeakyReLU(a^T [W h_i || W h_j]); click a node to select it. Right: the N x N weights, grey where there is no edge.</source>
        <translation>进入所选节点（带圆环）的边，其不透明度和粗细等于注意力权重 alpha_ij = softmax_j LeakyReLU(a^T [W h_i || W h_j])；点击节点以选中它。右侧：N x N 权重，没有边的位置为灰色。</translation>
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
    <message>
        <source>Intervention: %1</source>
        <translation>干预：%1</translation>
    </message>
</context>
<context>
    <name>attn::ui::HeadTypesController</name>
    <message>
        <source>prev.</source>
        <comment>previous-token head</comment>
        <translation>前词</translation>
    </message>
    <message>
        <source>ind.</source>
        <comment>induction head</comment>
        <translation>归纳</translation>
    </message>
    <message>
        <source>dup.</source>
        <comment>duplicate-token head</comment>
        <translation>重复</translation>
    </message>
    <message>
        <source>prev-token</source>
        <translation>前一词元</translation>
    </message>
    <message>
        <source>induction</source>
        <translation>归纳</translation>
    </message>
    <message>
        <source>duplicate</source>
        <translation>重复</translation>
    </message>
    <message>
        <source>sink</source>
        <translation>汇聚</translation>
    </message>
    <message>
        <source>self</source>
        <translation>自身</translation>
    </message>
    <message>
        <source>local</source>
        <translation>局部</translation>
    </message>
    <message>
        <source>broad</source>
        <translation>广泛</translation>
    </message>
    <message>
        <source>%1: %2 (label at ≥ %3)</source>
        <translation>%1：%2（≥ %3 时标注）</translation>
    </message>
    <message>
        <source>Head type: %1 (on a repeated random sequence)</source>
        <translation>头类型：%1（在重复的随机序列上）</translation>
    </message>
    <message>
        <source>duplicate token</source>
        <translation>重复词元</translation>
    </message>
    <message>
        <source>previous token</source>
        <translation>前一词元</translation>
    </message>
    <message>
        <source>first token (sink)</source>
        <translation>首词元（汇聚）</translation>
    </message>
    <message>
        <source>local (±%1 tokens)</source>
        <translation>局部（±%1 个词元）</translation>
    </message>
    <message>
        <source>Head types</source>
        <translation>头类型</translation>
    </message>
</context>
<context>
    <name>attn::ui::HeatmapPanel</name>
    <message>
        <source>signed, ± %1</source>
        <translation>有符号，± %1</translation>
    </message>
    <message>
        <source>%1 This head: max |Δ| %2.</source>
        <translation>%1 此头：最大 |Δ| %2。</translation>
    </message>
    <message>
        <source>share of the row</source>
        <translation>占该行的份额</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>%1 tokens, streamed: only the weights are recomputed from the kept q/k; logits and the mask are not drawn.</source>
        <translation>%1 个词元，流式运行：只有权重由保留的 q/k 重新计算；不绘制 logits 和掩码。</translation>
    </message>
    <message>
        <source>Weights — layer %1 of %2, head %3 of %4 — %5</source>
        <translation>权重 — 第 %1 层（共 %2 层），第 %3 个头（共 %4 个）— %5</translation>
    </message>
    <message>
        <source>(zoom in to read single cells: each drawn cell pools %1×%1)</source>
        <translation>（放大以读取单个格子：每个绘制的格子汇聚 %1×%1）</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; → &lt;b&gt;%2&lt;/b&gt;&lt;br&gt;query %3, key %4&lt;br&gt;weight %5&lt;br&gt;&lt;i&gt;recomputed from the kept q/k&lt;/i&gt;</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; → &lt;b&gt;%2&lt;/b&gt;&lt;br&gt;查询 %3，键 %4&lt;br&gt;权重 %5&lt;br&gt;&lt;i&gt;由保留的 q/k 重新计算&lt;/i&gt;</translation>
    </message>
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
        <source>Colormap; 'diverging' centres logits and differences on white.</source>
        <translation>色图；'diverging' 以白色为 logits 和差值的中心。</translation>
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
        <source>&lt;b&gt;%1&lt;/b&gt; → &lt;b&gt;%2&lt;/b&gt;&lt;br&gt;query %3, key %4&lt;br&gt;%5: %6&lt;br&gt;%7%8</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; → &lt;b&gt;%2&lt;/b&gt;&lt;br&gt;查询 %3，键 %4&lt;br&gt;%5：%6&lt;br&gt;%7%8</translation>
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
        <source>(not kept: the text is too long to keep every layer's logits)</source>
        <translation>（未保留：文本太长，无法保留每一层的 logits）</translation>
    </message>
    <message>
        <source>%1 tokens: the model kept every layer's weights but not its logits (they would take too much memory); choose Draw: weights.</source>
        <translation>%1 个词元：模型保留了每一层的权重，但没有保留 logits（会占用过多内存）；请选择绘制：权重。</translation>
    </message>
    <message>
        <source>signed, ÷ max |·|</source>
        <translation>有正负，÷ 最大 |·|</translation>
    </message>
</context>
<context>
    <name>attn::ui::HeatmapWidget</name>
    <message>
        <source>%1 — computing the overview…</source>
        <translation>%1 — 正在计算概览…</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>max of %1 × %1 blocks</source>
        <translation>%1 × %1 块的最大值</translation>
    </message>
    <message>
        <source>mean of %1 × %1 blocks</source>
        <translation>%1 × %1 块的平均值</translation>
    </message>
    <message>
        <source>%1 — rows %2–%3 × keys %4–%5 at full resolution</source>
        <translation>%1 — 第 %2–%3 行 × 键 %4–%5，全分辨率</translation>
    </message>
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
    <name>attn::ui::ImagePanel</name>
    <message>
        <source> px</source>
        <translation> 像素</translation>
    </message>
    <message>
        <source>%1: %2 x %3 pixels, %4 x %5 patches of %6 px (%7 values each)</source>
        <translation>%1：%2 x %3 像素，%4 x %5 个 %6 像素的图像块（每块 %7 个数值）</translation>
    </message>
    <message>
        <source>Example</source>
        <translation>示例</translation>
    </message>
    <message>
        <source>Export Figure…</source>
        <translation>导出图片…</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图片</translation>
    </message>
    <message>
        <source>Image attention overlay</source>
        <translation>图像注意力叠加图</translation>
    </message>
    <message>
        <source>Patch x patch heatmap</source>
        <translation>图像块 x 图像块热力图</translation>
    </message>
    <message>
        <source>Images (*.png *.jpg *.jpeg *.bmp *.gif *.ppm *.pgm *.npy *.npz);;All files (*)</source>
        <translation>图像 (*.png *.jpg *.jpeg *.bmp *.gif *.ppm *.pgm *.npy *.npz);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Nothing to export yet.</source>
        <translation>还没有可导出的内容。</translation>
    </message>
    <message>
        <source>Open Image…</source>
        <translation>打开图像…</translation>
    </message>
    <message>
        <source>Open a PNG, JPEG, PPM/PGM or NumPy (.npy/.npz) image: attention then runs over its patches.</source>
        <translation>打开 PNG、JPEG、PPM/PGM 或 NumPy（.npy/.npz）图像：注意力随后在它的图像块之间计算。</translation>
    </message>
    <message>
        <source>Open an image (or the example) to attend over its patches.</source>
        <translation>打开一张图像（或示例），在它的图像块之间计算注意力。</translation>
    </message>
    <message>
        <source>Open image</source>
        <translation>打开图像</translation>
    </message>
    <message>
        <source>Patch</source>
        <translation>图像块</translation>
    </message>
    <message>
        <source>Query patch %1, head %2: most weight on %3 (%4); mask %5.</source>
        <translation>查询块 %1，注意力头 %2：权重最大的是 %3（%4）；掩码 %5。</translation>
    </message>
    <message>
        <source>Save the overlay or the patch x patch heatmap as PNG, SVG or PDF.</source>
        <translation>将叠加图或图像块 x 图像块热力图保存为 PNG、SVG 或 PDF。</translation>
    </message>
    <message>
        <source>Use the bundled 128 x 128 example image (8 x 8 patches of 16 pixels).</source>
        <translation>使用内置的 128 x 128 示例图像（8 x 8 个 16 像素的图像块）。</translation>
    </message>
    <message>
        <source>example image</source>
        <translation>示例图像</translation>
    </message>
    <message>
        <source>Patch side P: the image is cut into P x P squares, one token each (pixels past the last whole patch are dropped). Use mask window2d:R for local 2-D windows and positions sinusoidal2d for 2-D positions.</source>
        <translation>图像块边长 P：图像被切成 P x P 的方块，每块一个词元（最后一个完整块之外的像素被舍去）。掩码用 window2d:R 得到二维局部窗口，位置编码用 sinusoidal2d 得到二维位置。</translation>
    </message>
    <message>
        <source>Attention of the outlined query patch over the image: brighter = more weight; darkened patches are masked. Click a patch to make it the query.</source>
        <translation>带边框的查询块对整幅图像的注意力：越亮权重越大；变暗的图像块被遮住。点击一个图像块使其成为查询。</translation>
    </message>
</context>
<context>
    <name>attn::ui::ImportanceController</name>
    <message>
        <source>Compute Head &amp;Importance</source>
        <translation>计算头重要性(&amp;I)</translation>
    </message>
    <message>
        <source>Ablate every head alone and measure how much the model's output changes (the text's mean next-token loss, or the final hidden states for encoders); then the pruning curve.</source>
        <translation>逐个单独消融每个头，测量模型输出的变化（文本的平均下一词元损失，编码器则为最终隐藏状态）；然后计算剪枝曲线。</translation>
    </message>
    <message>
        <source>The model is still running; compute the head importance when its maps are shown.</source>
        <translation>模型仍在运行；请在其注意力图显示后再计算头重要性。</translation>
    </message>
    <message>
        <source>Open a model (File &gt; Open Model…) to compute the importance of its heads.</source>
        <translation>先打开一个模型（文件 &gt; 打开模型…）才能计算其头的重要性。</translation>
    </message>
    <message>
        <source>Head importance</source>
        <translation>头重要性</translation>
    </message>
    <message>
        <source>not enough memory; use a shorter text</source>
        <translation>内存不足；请使用更短的文本</translation>
    </message>
    <message>
        <source>Head importance could not be computed: %1</source>
        <translation>无法计算头重要性：%1</translation>
    </message>
</context>
<context>
    <name>attn::ui::ImportancePanel</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop computing the head importance; the map shown stays.</source>
        <translation>停止计算头重要性；当前显示的图保持不变。</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Figure…</source>
        <translation>图像…</translation>
    </message>
    <message>
        <source>CSV…</source>
        <translation>CSV…</translation>
    </message>
    <message>
        <source>importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <source>Layer %1, head %2: ablating it raises the mean next-token loss by %3 nats</source>
        <translation>第 %1 层，头 %2：消融它使平均下一词元损失增加 %3 纳特</translation>
    </message>
    <message>
        <source>Layer %1, head %2: ablating it changes the final hidden states by %3 (relative)</source>
        <translation>第 %1 层，头 %2：消融它使最终隐藏状态变化 %3（相对值）</translation>
    </message>
    <message>
        <source>Ablating every head in turn…</source>
        <translation>正在逐个消融每个头…</translation>
    </message>
    <message>
        <source>Compute the importance of every head by ablation (Ctrl+Shift+I).</source>
        <translation>通过消融计算每个头的重要性（Ctrl+Shift+I）。</translation>
    </message>
    <message>
        <source>Open a model to measure the importance of its heads.</source>
        <translation>打开一个模型以测量其头的重要性。</translation>
    </message>
    <message>
        <source>L%1</source>
        <translation>L%1</translation>
    </message>
    <message>
        <source>H%1</source>
        <translation>H%1</translation>
    </message>
    <message>
        <source>Head importance (ablation)</source>
        <translation>头重要性（消融）</translation>
    </message>
    <message>
        <source>Loss increase when each head alone is zeroed (baseline %1 nats); %2 forward passes in %3 s.</source>
        <translation>单独将每个头置零时的损失增量（基线 %1 纳特）；%2 次前向计算，用时 %3 秒。</translation>
    </message>
    <message>
        <source>Final hidden-state change when each head alone is zeroed; %1 forward passes in %2 s.</source>
        <translation>单独将每个头置零时最终隐藏状态的变化；%1 次前向计算，用时 %2 秒。</translation>
    </message>
    <message>
        <source>Ablation estimate: the model has no backward pass here, so not Michel et al.'s gradient estimate.</source>
        <translation>这是消融估计：此处模型没有反向传播，因此不是 Michel 等人的梯度估计。</translation>
    </message>
    <message>
        <source>The text has changed since: compute again for the new text.</source>
        <translation>文本此后已更改：请为新文本重新计算。</translation>
    </message>
    <message>
        <source>%1: no head importance computed yet</source>
        <translation>%1：尚未计算头重要性</translation>
    </message>
    <message>
        <source>Head importance map</source>
        <translation>头重要性图</translation>
    </message>
    <message>
        <source>Pruning curve</source>
        <translation>剪枝曲线</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图像</translation>
    </message>
    <message>
        <source>Head importance (*.csv)</source>
        <translation>头重要性 (*.csv)</translation>
    </message>
    <message>
        <source>Pruning curve (*.csv)</source>
        <translation>剪枝曲线 (*.csv)</translation>
    </message>
    <message>
        <source>Export CSV</source>
        <translation>导出 CSV</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
</context>
<context>
    <name>attn::ui::InputPanel</name>
    <message>
        <source>Image</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>Open Image…</source>
        <translation>打开图像…</translation>
    </message>
    <message>
        <source>Open another picture for the vision model (File &gt; Open Image…).</source>
        <translation>为视觉模型打开另一张图片（文件 &gt; 打开图像…）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 × %3 px, %4&lt;br&gt;seen as %5 × %6 px: %7 × %8 patches of %9 px</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 × %3 像素，%4&lt;br&gt;模型看到 %5 × %6 像素：%7 × %8 个 %9 像素的图像块</translation>
    </message>
    <message>
        <source>grey</source>
        <translation>灰度</translation>
    </message>
    <message>
        <source>colour</source>
        <translation>彩色</translation>
    </message>
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
        <source>The file's attention weights ('attn')</source>
        <translation>文件中的注意力权重（'attn'）</translation>
    </message>
    <message>
        <source>The file has both inputs and precomputed weights: compute attention from q/k/v or x with the configuration, or show its 'attn' as it is, layer by layer.</source>
        <translation>该文件同时包含输入和预计算权重：可以按当前配置由 q/k/v 或 x 计算注意力，也可以逐层显示其中的 'attn'。</translation>
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
        <source>showing 'attn': layer %1 of %2 (pick a tile in the head grid)</source>
        <translation>正在显示 'attn'：第 %1 层（共 %2 层）（在头网格中选择一格）</translation>
    </message>
    <message>
        <source>%1 (the model's own)</source>
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
    <name>attn::ui::InterventionDialog</name>
    <message>
        <source>Temperature for layer %1, head %2</source>
        <translation>第 %1 层头 %2 的温度</translation>
    </message>
    <message>
        <source>The head's logits (after 1/√d) are divided by this: above 1 flattens its attention, below 1 sharpens it.</source>
        <translation>此头的 logits（乘以 1/√d 之后）除以该值：大于 1 使注意力更平坦，小于 1 使其更尖锐。</translation>
    </message>
    <message>
        <source>&amp;Temperature:</source>
        <translation>温度(&amp;T)：</translation>
    </message>
    <message>
        <source>Mask for layer %1, head %2</source>
        <translation>第 %1 层头 %2 的掩码</translation>
    </message>
    <message>
        <source>e.g. window:2, causal, global:0+window:1</source>
        <translation>例如 window:2、causal、global:0+window:1</translation>
    </message>
    <message>
        <source>A term of the mask grammar, combined with the model's own mask: the head may attend only where both allow.</source>
        <translation>掩码语法中的一项，与模型自身的掩码组合：此头只能关注两者都允许的位置。</translation>
    </message>
    <message>
        <source>&amp;Mask:</source>
        <translation>掩码(&amp;M)：</translation>
    </message>
</context>
<context>
    <name>attn::ui::InterventionEffectPanel</name>
    <message>
        <source>Intervene on a head (right-click a head tile) to compare the original model (A) with the intervened one (B) here.</source>
        <translation>干预一个头（右键单击头缩略图），即可在此比较原始模型（A）与干预后的模型（B）。</translation>
    </message>
    <message>
        <source>Running the intervened model…</source>
        <translation>正在运行干预后的模型…</translation>
    </message>
    <message>
        <source>Layer %1, head %2 is not intervened on; any difference comes from earlier layers.</source>
        <translation>第 %1 层头 %2 未被干预；任何差异都来自更早的层。</translation>
    </message>
    <message>
        <source>Layer %1, head %2: %3.</source>
        <translation>第 %1 层，头 %2：%3。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>A: original, L%1 H%2</source>
        <translation>A：原始，L%1 H%2</translation>
    </message>
    <message>
        <source>B: intervened, L%1 H%2</source>
        <translation>B：干预后，L%1 H%2</translation>
    </message>
</context>
<context>
    <name>attn::ui::InterventionsController</name>
    <message>
        <source>ablated (output zeroed)</source>
        <translation>已消融（输出置零）</translation>
    </message>
    <message>
        <source>uniform attention</source>
        <translation>均匀注意力</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation>温度 %1</translation>
    </message>
    <message>
        <source>mask %1</source>
        <translation>掩码 %1</translation>
    </message>
    <message>
        <source>L%1 H%2: %3</source>
        <translation>L%1 H%2：%3</translation>
    </message>
    <message>
        <source>&amp;Undo Intervention</source>
        <translation>撤销干预(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo Intervention</source>
        <translation>重做干预(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Clear Interventions</source>
        <translation>清除所有干预(&amp;C)</translation>
    </message>
    <message>
        <source>Take back the last change to the head interventions.</source>
        <translation>撤回对头干预的最近一次更改。</translation>
    </message>
    <message>
        <source>Apply again the change to the head interventions that was undone.</source>
        <translation>重新应用被撤销的头干预更改。</translation>
    </message>
    <message>
        <source>Remove every head intervention; the model runs as it was trained.</source>
        <translation>移除所有头干预；模型按训练时的样子运行。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the intervened forward pass; the interventions go back to those shown.</source>
        <translation>停止带干预的前向计算；干预列表恢复为当前显示的那些。</translation>
    </message>
    <message>
        <source>Open a model (File &gt; Open Model…) to intervene on its heads.</source>
        <translation>先打开一个模型（文件 &gt; 打开模型…）才能干预它的头。</translation>
    </message>
    <message>
        <source>%1 has no layer %2, head %3 (it has %4 layers of %5 heads).</source>
        <translation>%1 没有第 %2 层的头 %3（它有 %4 层，每层 %5 个头）。</translation>
    </message>
    <message>
        <source>Temperature for layer %1, head %2 must be a positive number.</source>
        <translation>第 %1 层头 %2 的温度必须是正数。</translation>
    </message>
    <message>
        <source>Mask “%1” for layer %2, head %3 does not parse: %4</source>
        <translation>第 %2 层头 %3 的掩码“%1”无法解析：%4</translation>
    </message>
    <message>
        <source>The mask for layer %1, head %2 is empty; type a term such as window:2 or causal.</source>
        <translation>第 %1 层头 %2 的掩码为空；请输入如 window:2 或 causal 的项。</translation>
    </message>
    <message>
        <source>Running the intervened model</source>
        <translation>正在运行干预后的模型</translation>
    </message>
    <message>
        <source>Running the original model</source>
        <translation>正在运行原始模型</translation>
    </message>
    <message>
        <source>The text is too long to keep both runs' next-token logits; the maps still show the change.</source>
        <translation>文本太长，无法同时保留两次运行的下一词元 logits；注意力图仍显示变化。</translation>
    </message>
    <message>
        <source>Out of memory: the intervened run needs more memory than is available. Use a shorter text.</source>
        <translation>内存不足：干预后的运行所需内存超过可用内存。请使用更短的文本。</translation>
    </message>
    <message>
        <source>Stopped the intervened run; the interventions shown are unchanged.</source>
        <translation>已停止干预运行；显示的干预保持不变。</translation>
    </message>
    <message>
        <source>the run was stopped</source>
        <translation>运行已停止</translation>
    </message>
    <message>
        <source>The intervention could not be applied: %1</source>
        <translation>无法应用该干预：%1</translation>
    </message>
    <message>
        <source>Layer %1, head %2</source>
        <translation>第 %1 层，头 %2</translation>
    </message>
    <message>
        <source>&amp;Ablate</source>
        <translation>消融(&amp;A)</translation>
    </message>
    <message>
        <source>Zero this head's output (as Hugging Face's head_mask = 0).</source>
        <translation>将此头的输出置零（同 Hugging Face 的 head_mask = 0）。</translation>
    </message>
    <message>
        <source>&amp;Uniform</source>
        <translation>均匀(&amp;U)</translation>
    </message>
    <message>
        <source>Replace this head's weights by uniform attention over its allowed keys.</source>
        <translation>用对其允许键的均匀注意力替换此头的权重。</translation>
    </message>
    <message>
        <source>&amp;Temperature…</source>
        <translation>温度(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Mask…</source>
        <translation>掩码(&amp;M)…</translation>
    </message>
    <message>
        <source>Remove “%1”</source>
        <translation>移除“%1”</translation>
    </message>
</context>
<context>
    <name>attn::ui::InterventionsPanel</name>
    <message>
        <source>Attention changes from layer %1 on.</source>
        <translation>注意力从第 %1 层起发生变化。</translation>
    </message>
    <message>
        <source>No attention map changed.</source>
        <translation>没有注意力图发生变化。</translation>
    </message>
    <message>
        <source>Final hidden states: relative change %1 (max |Δ| %2).</source>
        <translation>最终隐藏状态：相对变化 %1（最大 |Δ| %2）。</translation>
    </message>
    <message>
        <source>Next token after position %1: KL(before ‖ after) = %2 nats.</source>
        <translation>位置 %1 之后的下一词元：KL(之前 ‖ 之后) = %2 纳特。</translation>
    </message>
    <message>
        <source>Mean next-token loss: %1 → %2 nats (%3%4).</source>
        <translation>平均下一词元损失：%1 → %2 纳特（%3%4）。</translation>
    </message>
    <message>
        <source>[CLS] representation: relative change %1, cosine %2.</source>
        <translation>[CLS] 表示：相对变化 %1，余弦 %2。</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>移除(&amp;R)</translation>
    </message>
    <message>
        <source>Active head interventions. Right-click a head tile or the heatmap to add one; select one and press Delete to remove it; Ctrl+Z undoes the last change.</source>
        <translation>当前生效的头干预。右键单击头缩略图或热力图可添加；选中后按 Delete 移除；Ctrl+Z 撤销最近一次更改。</translation>
    </message>
    <message>
        <source>Remove the selected interventions.</source>
        <translation>移除选中的干预。</translation>
    </message>
    <message>
        <source>Layer %1, head %2: %3</source>
        <translation>第 %1 层，头 %2：%3</translation>
    </message>
    <message>
        <source>No interventions. Right-click a head tile or the heatmap: Ablate, Uniform, Temperature…, Mask…</source>
        <translation>没有干预。右键单击头缩略图或热力图：消融、均匀、温度…、掩码…</translation>
    </message>
    <message>
        <source>Running the intervened model…</source>
        <translation>正在运行干预后的模型…</translation>
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
        <source>No rollout: a streamed run keeps no layer&apos;s map</source>
        <translation>无 rollout：流式运行不保留任何层的注意力图</translation>
    </message>
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
        <source>Sparsity: the share of a row's mass that its k largest weights must cover.</source>
        <translation>稀疏度：一行中最大的 k 个权重需要覆盖的权重比例。</translation>
    </message>
    <message>
        <source>Which layer's heads the bars and the row curve show.</source>
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
        <source>How attention composes through the layers (Abnar &amp; Zuidema 2020): rollout multiplies the layers' head-averaged attention with the residual; flow is a max-flow.</source>
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
    <message>
        <source>Flags: near-uniform when normalized entropy &gt; %1, near-one-hot when one key &gt; %2 of the mass, on more than %3% of rows with 2+ unmasked keys. Sparsity k covers %4% of each row's mass.</source>
        <translation>标记：在超过 %3% 的（至少有 2 个未遮住键的）行中，归一化熵 &gt; %1 为接近均匀，单个键 &gt; %2 的权重为接近独热。稀疏度 k 覆盖每行 %4% 的权重。</translation>
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
    <message>
        <source>File: %1</source>
        <translation>文件：%1</translation>
    </message>
</context>
<context>
    <name>attn::ui::ModelOpenController</name>
    <message>
        <source>Opened %1 (encoder–decoder, %2 + %3 layers) in %4 ms: see the Translation dock</source>
        <translation>已打开 %1（编码器–解码器，%2 + %3 层），用时 %4 毫秒：请看“翻译”面板</translation>
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
        <source>Open &amp;Model Folder…</source>
        <translation>打开模型文件夹(&amp;M)…</translation>
    </message>
    <message>
        <source>Open Model &amp;File (GGUF)…</source>
        <translation>打开模型文件 (GGUF)(&amp;F)…</translation>
    </message>
    <message>
        <source>Open O&amp;llama Model…</source>
        <translation>打开 Ollama 模型(&amp;L)…</translation>
    </message>
    <message>
        <source>Open a GGUF model file (llama.cpp, LM Studio; F32, F16, Q8_0, Q4_K_M and other quantized types) with its embedded tokenizer.</source>
        <translation>打开 GGUF 模型文件（llama.cpp、LM Studio；F32、F16、Q8_0、Q4_K_M 及其他量化类型）及其内嵌的分词器。</translation>
    </message>
    <message>
        <source>Pick one of the models Ollama has downloaded ($OLLAMA_MODELS or ~/.ollama/models).</source>
        <translation>从 Ollama 已下载的模型中选择一个（$OLLAMA_MODELS 或 ~/.ollama/models）。</translation>
    </message>
    <message>
        <source>Open Model File</source>
        <translation>打开模型文件</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <source>%1 no longer exists</source>
        <translation>%1 已不存在</translation>
    </message>
    <message>
        <source>%1; it was removed from Recent Models.</source>
        <translation>%1；已从最近的模型中移除。</translation>
    </message>
</context>
<context>
    <name>attn::ui::LensPanel</name>
    <message>
        <source>position (the token read there)</source>
        <translation>位置（该处读入的词元）</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop reading the layers through the unembedding</source>
        <translation>停止将各层读出到反嵌入</translation>
    </message>
    <message>
        <source>Top token&apos;s probability</source>
        <translation>最可能词元的概率</translation>
    </message>
    <message>
        <source>Final prediction&apos;s probability</source>
        <translation>最终预测的概率</translation>
    </message>
    <message>
        <source>Colour each cell by the probability of that layer&apos;s most probable token, or by the probability the layer already gives the token the model finally predicts at that position.</source>
        <translation>按该层最可能词元的概率为每个单元格着色，或按该层已经给予模型在该位置最终预测词元的概率着色。</translation>
    </message>
    <message>
        <source>Colour</source>
        <translation>颜色</translation>
    </message>
    <message>
        <source>probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <source>The logit lens: what each layer would predict if the network stopped there — its residual stream through the model&apos;s final norm and unembedding (nostalgebraist 2020). Bottom row: the embeddings; top row: the last layer, the model&apos;s own prediction.</source>
        <translation>逻辑透镜：假如网络在某层停止，该层会预测什么——将其残差流经过模型的最终归一化与反嵌入读出（nostalgebraist 2020）。最下一行：嵌入；最上一行：最后一层，即模型自己的预测。</translation>
    </message>
    <message>
        <source>%1… %2%</source>
        <translation>%1… %2%</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Open a model (File &gt; Open Model…) to see what each of its layers would predict.</source>
        <translation>打开一个模型（文件 &gt; 打开模型…）来查看它的每一层会预测什么。</translation>
    </message>
    <message>
        <source>Reading each layer through the unembedding</source>
        <translation>正在将每一层读出到反嵌入</translation>
    </message>
    <message>
        <source>Each cell: the token that layer predicts next after the position below it.</source>
        <translation>每个单元格：该层在其下方位置之后预测的下一个词元。</translation>
    </message>
    <message>
        <source>Each cell: the token the masked-LM head reads at that position from that layer.</source>
        <translation>每个单元格：掩码语言模型头从该层在该位置读出的词元。</translation>
    </message>
    <message>
        <source>embeddings</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>Logit lens: each layer&apos;s top token</source>
        <translation>逻辑透镜：每层最可能的词元</translation>
    </message>
    <message>
        <source>Logit lens: the final prediction&apos;s probability</source>
        <translation>逻辑透镜：最终预测的概率</translation>
    </message>
    <message>
        <source>Embeddings, position %1 %2</source>
        <translation>嵌入，位置 %1 %2</translation>
    </message>
    <message>
        <source>Layer %1, position %2 %3</source>
        <translation>第 %1 层，位置 %2 %3</translation>
    </message>
    <message>
        <source>%1. %2  %3%</source>
        <translation>%1. %2  %3%</translation>
    </message>
    <message>
        <source>Final prediction %1: rank %2, %3%</source>
        <translation>最终预测 %1：排名 %2，%3%</translation>
    </message>
</context>
<context>
    <name>attn::ui::PatchingPanel</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Export Figure…</source>
        <translation>导出图…</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>%1… %2%</source>
        <translation>%1… %2%</translation>
    </message>
    <message>
        <source>1 token</source>
        <translation>1 个词元</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 个词元</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图</translation>
    </message>
    <message>
        <source>Residual stream</source>
        <translation>残差流</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>注意力头</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>The clean text: the model predicts the target after it.</source>
        <translation>干净文本：模型在其后预测目标。</translation>
    </message>
    <message>
        <source>The corrupt text: the same number of tokens, changed where it matters.</source>
        <translation>损坏文本：词元数相同，在关键处有改动。</translation>
    </message>
    <message>
        <source>One token, with its leading space where the vocabulary has one (&quot; Mary&quot;), or #ID.</source>
        <translation>一个词元（词表中有前导空格时带上空格，如 &quot; Mary&quot;），或 #ID。</translation>
    </message>
    <message>
        <source>The residual stream entering each layer, one position at a time</source>
        <translation>进入每一层的残差流，每次一个位置</translation>
    </message>
    <message>
        <source>Each head&apos;s output at every position</source>
        <translation>每个注意力头在所有位置上的输出</translation>
    </message>
    <message>
        <source>Each layer&apos;s MLP output, one position at a time</source>
        <translation>每一层的 MLP 输出，每次一个位置</translation>
    </message>
    <message>
        <source>Patch every chosen site (Ctrl+Return)</source>
        <translation>修补每个选中的位置（Ctrl+Return）</translation>
    </message>
    <message>
        <source>Save the shown map as PNG, SVG or PDF.</source>
        <translation>将显示的图保存为 PNG、SVG 或 PDF。</translation>
    </message>
    <message>
        <source>Clean</source>
        <translation>干净</translation>
    </message>
    <message>
        <source>Corrupt</source>
        <translation>损坏</translation>
    </message>
    <message>
        <source>Foil</source>
        <translation>对照</translation>
    </message>
    <message>
        <source>recovered</source>
        <translation>恢复比例</translation>
    </message>
    <message>
        <source>Activation patching: the corrupt text runs with one activation taken from the clean text&apos;s run; each cell is the share of the clean − corrupt logit difference (target − foil, last position) it brings back: 1 all of it, 0 nothing (Meng et al. 2022; Wang et al. 2023).</source>
        <translation>激活修补：运行损坏文本时，取干净文本运行中的一个激活替换进去；每个单元格是它恢复的干净 − 损坏 logit 差（目标 − 对照，最后位置）的比例：1 为全部，0 为没有（Meng 等，2022；Wang 等，2023）。</translation>
    </message>
    <message>
        <source>Open a causal language model (GPT-2, the Llama family) to patch its activations.</source>
        <translation>打开一个因果语言模型（GPT-2、Llama 系列）以修补其激活。</translation>
    </message>
    <message>
        <source>Run (Ctrl+Return) patches every chosen site.</source>
        <translation>运行（Ctrl+Return）修补每个选中的位置。</translation>
    </message>
    <message>
        <source>Choose at least one site: residual stream, heads or MLP.</source>
        <translation>请至少选择一个位置：残差流、注意力头或 MLP。</translation>
    </message>
    <message>
        <source>Patching</source>
        <translation>修补中</translation>
    </message>
    <message>
        <source>Patching…</source>
        <translation>修补中…</translation>
    </message>
    <message>
        <source>Cancelled; the maps are the previous run&apos;s.</source>
        <translation>已取消；图为上一次运行的结果。</translation>
    </message>
    <message>
        <source>logit(target) − logit(foil) at the last position (%1): clean %2, corrupt %3.</source>
        <translation>最后位置的 logit(目标) − logit(对照)（%1）：干净 %2，损坏 %3。</translation>
    </message>
    <message>
        <source>Each cell: the share of that difference the patch brings back (1: all, 0: none). Click a head to show it.</source>
        <translation>每个单元格：修补恢复的该差值的比例（1：全部，0：没有）。点击一个注意力头以显示它。</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>%1 patched — %2</source>
        <translation>修补%1 — %2</translation>
    </message>
    <message>
        <source>Head outputs</source>
        <translation>注意力头输出</translation>
    </message>
    <message>
        <source>MLP outputs</source>
        <translation>MLP 输出</translation>
    </message>
    <message>
        <source>Layer %1, head %2: recovers %3 of the logit difference
(click to show this head)</source>
        <translation>第 %1 层，头 %2：恢复 logit 差的 %3
（点击以显示此头）</translation>
    </message>
    <message>
        <source>%1, layer %2, position %3 %4: recovers %5 of the logit difference</source>
        <translation>%1，第 %2 层，位置 %3 %4：恢复 logit 差的 %5</translation>
    </message>
    <message>
        <source>MLP output</source>
        <translation>MLP 输出</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>token of the clean text</source>
        <translation>干净文本的词元</translation>
    </message>
    <message>
        <source>Nothing to export yet: run the patching first.</source>
        <translation>尚无可导出的内容：请先运行修补。</translation>
    </message>
</context>
<context>
    <name>attn::ui::PredictionPanel</name>
    <message>
        <source>%1&apos;s classifier on the image: its 5 most probable labels</source>
        <translation>%1 的分类器对这张图像给出的 5 个最可能的标签</translation>
    </message>
    <message>
        <source>%1 has no classifier head: it predicts no label for the image</source>
        <translation>%1 没有分类头：它不为图像预测标签</translation>
    </message>
    <message>
        <source>The model's five most probable next tokens after the pinned query position (click a heatmap row to pin it; the last token when none is pinned). Masked-LM models (BERT): the five most probable tokens at a [MASK] of the text.</source>
        <translation>模型在固定的查询位置之后最可能的五个下一个词元（点击热图的一行来固定；未固定时为最后一个词元）。掩码语言模型（BERT）：文本中 [MASK] 处最可能的五个词元。</translation>
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
        <source>Next-token predictions are for causal models (GPT-2, Llama); %1 is bidirectional: type %2 in place of a word to see what it predicts there.</source>
        <translation>下一个词元预测只适用于因果模型（GPT-2、Llama）；%1 是双向模型：在某个词的位置输入 %2，看它在那里预测什么。</translation>
    </message>
    <message>
        <source>At %1 (position %2), %3 predicts (pin another %1 row to see its predictions):</source>
        <translation>在 %1（位置 %2）处，%3 预测（固定另一个 %1 行可查看它的预测）：</translation>
    </message>
    <message>
        <source>At %1 (position %2), %3 predicts:</source>
        <translation>在 %1（位置 %2）处，%3 预测：</translation>
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
    <name>attn::ui::PruningCurvePlot</name>
    <message>
        <source>fraction of heads removed</source>
        <translation>移除的头所占比例</translation>
    </message>
    <message>
        <source>Pruning curve: heads removed from the least to the most important.</source>
        <translation>剪枝曲线：按重要性从低到高依次移除头。</translation>
    </message>
    <message>
        <source>mean next-token loss (nats)</source>
        <translation>平均下一词元损失（纳特）</translation>
    </message>
    <message>
        <source>final hidden-state change</source>
        <translation>最终隐藏状态变化</translation>
    </message>
</context>
<context>
    <name>attn::ui::QuantizationMaps</name>
    <message>
        <source>Quantized − full precision: %1 products on 8-bit activations (as llama.cpp) minus the dequantized weights in f32. Largest |Δ| %2 (layer %3, head %4).</source>
        <translation>量化 − 全精度：%1 乘积使用 8 位激活（与 llama.cpp 相同），减去以 f32 计算的反量化权重。最大 |Δ| %2（第 %3 层，第 %4 个头）。</translation>
    </message>
    <message>
        <source>Next-token KL %1 nats.</source>
        <translation>下一个词元的 KL 为 %1 nats。</translation>
    </message>
</context>
<context>
    <name>attn::ui::QkGeometryPanel</name>
    <message>
        <source>Export Figure…</source>
        <translation>导出图片…</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图片</translation>
    </message>
    <message>
        <source>Head %1: %2 queries, %3 keys; PC1 and PC2 hold %4% of the variance.</source>
        <translation>注意力头 %1：%2 个查询，%3 个键；PC1 和 PC2 占方差的 %4%。</translation>
    </message>
    <message>
        <source>How many of the hovered query's highest-weight keys are joined to it.</source>
        <translation>悬停的查询与其权重最高的几个键相连。</translation>
    </message>
    <message>
        <source>No result yet.</source>
        <translation>还没有结果。</translation>
    </message>
    <message>
        <source>Nothing to export yet.</source>
        <translation>还没有可导出的内容。</translation>
    </message>
    <message>
        <source>Query–key geometry</source>
        <translation>查询–键几何</translation>
    </message>
    <message>
        <source>Query–key geometry, head %1</source>
        <translation>查询–键几何，注意力头 %1</translation>
    </message>
    <message>
        <source>Save the scatter as PNG, SVG or PDF.</source>
        <translation>将散点图保存为 PNG、SVG 或 PDF。</translation>
    </message>
    <message>
        <source>This result has no queries and keys (precomputed weights): nothing to project.</source>
        <translation>此结果没有查询和键（预先计算的权重）：无可投影。</translation>
    </message>
    <message>
        <source>Top keys</source>
        <translation>最高权重的键</translation>
    </message>
    <message>
        <source>The head's queries (blue) and keys (orange) projected together to 2-D by PCA, after AttentionViz's normalization (keys translated to the queries' mean, norms matched; the weights are unchanged). Hover a query to join it to its top keys.</source>
        <translation>该注意力头的查询（蓝）和键（橙）经 AttentionViz 的归一化（平移键使均值与查询相同、匹配平均范数；权重不变）后，一起用 PCA 投影到二维。悬停在查询上可将它与权重最高的键相连。</translation>
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
    <name>attn::ui::RecoveryPrompt</name>
    <message>
        <source>Restore session</source>
        <translation>恢复会话</translation>
    </message>
    <message>
        <source>AttnScope did not exit cleanly. Restore the session autosaved at %1?</source>
        <translation>AttnScope 上次未正常退出。是否恢复 %1 自动保存的会话？</translation>
    </message>
    <message>
        <source>Autosave failed: %1</source>
        <translation>自动保存失败：%1</translation>
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
    <name>attn::ui::StatusProgress</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>attn::ui::StatusSummary</name>
    <message>
        <source>%1 tokens: maps recomputed from the kept q/k (streamed)</source>
        <translation>%1 个词元：注意力图由保留的 q/k 重新计算（流式）</translation>
    </message>
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
        <source>Teaching tile size (queries × keys). The engine's tiled path uses 256 × 512 tiles, the sparse path 64 × 64; the numbers do not depend on it.</source>
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
        <source>&lt;span style='color:%1'&gt;■&lt;/span&gt; computed &amp;nbsp; &lt;span style='color:%2'&gt;■&lt;/span&gt; computed, mask tested cell by cell &amp;nbsp; &lt;span style='color:#aaaaaa'&gt;■&lt;/span&gt; skipped — %3 of %4 tiles of %5 × %5 computed (%6 need cell tests); the outlined band holds row %7.%8</source>
        <translation>&lt;span style='color:%1'&gt;■&lt;/span&gt; 已计算 &amp;nbsp; &lt;span style='color:%2'&gt;■&lt;/span&gt; 已计算，掩码逐格检查 &amp;nbsp; &lt;span style='color:#aaaaaa'&gt;■&lt;/span&gt; 跳过 —— 共 %4 个 %5 × %5 分块中计算了 %3 个（%6 个需逐格检查）；框出的带状区域包含第 %7 行。%8</translation>
    </message>
    <message>
        <source> Tiles enlarged to %1 to fit %2 tokens.</source>
        <translation> 分块已放大到 %1，以容纳 %2 个词元。</translation>
    </message>
    <message>
        <source>Row %1: H = log l − t/l = %2 nats after the last tile; the engine's entropy of this row (%3 path): %4 nats. The tiled path itself runs %5 × %6 tiles (sparse: 64 × 64).</source>
        <translation>第 %1 行：最后一个分块后 H = log l − t/l = %2 nats；引擎计算的该行熵（%3 路径）：%4 nats。分块路径本身使用 %5 × %6 的块（稀疏：64 × 64）。</translation>
    </message>
</context>
<context>
    <name>attn::ui::TokenChips</name>
    <message>
        <source>Prompt token %1</source>
        <translation>提示词元 %1</translation>
    </message>
    <message>
        <source>Written token %1 (step %2): click to see its attention</source>
        <translation>写出的词元 %1（第 %2 步）：点击查看其注意力</translation>
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
        <source>%1[%2, %3]: '%4' is not a number</source>
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
<context>
    <name>attn::ui::TrainingConfigForm</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Reverse</source>
        <translation>反转</translation>
    </message>
    <message>
        <source>Sort digits</source>
        <translation>数字排序</translation>
    </message>
    <message>
        <source>Shift by one</source>
        <translation>平移一位</translation>
    </message>
    <message>
        <source>Translate (cross-attention)</source>
        <translation>翻译（交叉注意力）</translation>
    </message>
    <message>
        <source>Matching bracket</source>
        <translation>匹配括号</translation>
    </message>
    <message>
        <source>Copy the input: each output position should attend to the same input position (the diagonal).</source>
        <translation>复制输入：每个输出位置应关注相同的输入位置（对角线）。</translation>
    </message>
    <message>
        <source>Reverse the input: output position i should attend to input position N−1−i (the anti-diagonal).</source>
        <translation>反转输入：输出位置 i 应关注输入位置 N−1−i（反对角线）。</translation>
    </message>
    <message>
        <source>Sort the digits: output position i should attend to the i-th smallest input (the sorting permutation).</source>
        <translation>数字排序：输出位置 i 应关注第 i 小的输入（排序置换）。</translation>
    </message>
    <message>
        <source>Shift by one: output position i should attend to input position i−1 (the sub-diagonal).</source>
        <translation>平移一位：输出位置 i 应关注输入位置 i−1（次对角线）。</translation>
    </message>
    <message>
        <source>Translate word by word into a toy language that swaps adjacent words: each target position attends across to the source word it translates (encoder–decoder cross-attention).</source>
        <translation>逐词翻译成一种交换相邻词的玩具语言：每个目标位置跨序列关注它所翻译的源词（编码器–解码器交叉注意力）。</translation>
    </message>
    <message>
        <source>Find the matching bracket: each position should attend to the bracket that closes or opens it.</source>
        <translation>找到匹配的括号：每个位置应关注与它配对的那个括号。</translation>
    </message>
    <message>
        <source>Sequence length N: tokens per example.</source>
        <translation>序列长度 N：每个样例的词元数。</translation>
    </message>
    <message>
        <source>Number of input symbols (0–9, then A–Z).</source>
        <translation>输入符号的个数（0–9，然后 A–Z）。</translation>
    </message>
    <message>
        <source>Attention heads per layer.</source>
        <translation>每层的注意力头数。</translation>
    </message>
    <message>
        <source>Query/key width per head, d_k.</source>
        <translation>每个头的查询/键宽度 d_k。</translation>
    </message>
    <message>
        <source>Embedding width, d_model.</source>
        <translation>嵌入宽度 d_model。</translation>
    </message>
    <message>
        <source>Attention layers (1 or 2).</source>
        <translation>注意力层数（1 或 2）。</translation>
    </message>
    <message>
        <source>Seed of the weights, the batches and the fixed example: the same seed gives the same run.</source>
        <translation>权重、批次和固定样例的随机种子：相同的种子得到相同的训练过程。</translation>
    </message>
    <message>
        <source>Train stops after this many updates (Pause stops earlier).</source>
        <translation>训练在这么多次更新后停止（“暂停”可提前停止）。</translation>
    </message>
    <message>
        <source>Fresh random sequences per update.</source>
        <translation>每次更新使用的新随机序列数。</translation>
    </message>
    <message>
        <source>Learning rate of the optimizer.</source>
        <translation>优化器的学习率。</translation>
    </message>
    <message>
        <source>Entropy regularisation: adds this times the mean attention entropy to the loss, pulling heads toward focus (0 = off).</source>
        <translation>熵正则化：把该系数乘以平均注意力熵加入损失，促使各头更聚焦（0 = 关闭）。</translation>
    </message>
    <message>
        <source>Gradient clipping: rescales the gradient to this L2 norm when it is larger (0 = off).</source>
        <translation>梯度裁剪：梯度的 L2 范数超过该值时将其缩放到该值（0 = 关闭）。</translation>
    </message>
    <message>
        <source>Softmax temperature: logits are divided by it; large values flatten every map.</source>
        <translation>Softmax 温度：分数除以它；值越大，每张图越平坦。</translation>
    </message>
    <message>
        <source>scaled dot q·k/√d_k</source>
        <translation>缩放点积 q·k/√d_k</translation>
    </message>
    <message>
        <source>dot q·k (unscaled)</source>
        <translation>点积 q·k（不缩放）</translation>
    </message>
    <message>
        <source>general qᵀWk</source>
        <translation>一般式 qᵀWk</translation>
    </message>
    <message>
        <source>additive vᵀtanh(Wq + Uk)</source>
        <translation>加性 vᵀtanh(Wq + Uk)</translation>
    </message>
    <message>
        <source>Xavier (Glorot)</source>
        <translation>Xavier（Glorot）</translation>
    </message>
    <message>
        <source>Kaiming (He)</source>
        <translation>Kaiming（He）</translation>
    </message>
    <message>
        <source>Orthogonal</source>
        <translation>正交</translation>
    </message>
    <message>
        <source>Bad: W_Q = W_K = 0</source>
        <translation>糟糕：W_Q = W_K = 0</translation>
    </message>
    <message>
        <source>Adam</source>
        <translation>Adam</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>The toy task the model learns; each has one attention pattern that solves it.</source>
        <translation>模型要学习的玩具任务；每个任务都有一种能解决它的注意力模式。</translation>
    </message>
    <message>
        <source>How the weights start. The bad one keeps every map uniform: attention never forms.</source>
        <translation>权重的初始方式。糟糕的初始化让每张图保持均匀：注意力永远形成不了。</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <source>Vocabulary size</source>
        <translation>词表大小</translation>
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
        <source>d_k</source>
        <translation>d_k</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>Initialisation</source>
        <translation>初始化</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Entropy regularisation</source>
        <translation>熵正则化</translation>
    </message>
    <message>
        <source>Gradient clipping</source>
        <translation>梯度裁剪</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Stop after (steps)</source>
        <translation>在此步数后停止</translation>
    </message>
    <message>
        <source>Induction (repeated segment)</source>
        <translation>归纳（重复片段）</translation>
    </message>
    <message>
        <source>Predict the next token where a segment repeats: layer 1 finds each token&apos;s predecessor (a previous-token head) so that layer 2 can attend to the token after the earlier copy of the current one (an induction head). Needs 2 layers and the residual stream.</source>
        <translation>在片段重复处预测下一个词元：第 1 层找到每个词元的前一个词元（前一词元头），使第 2 层能够关注当前词元上一次出现之后的那个词元（归纳头）。需要 2 层和残差流。</translation>
    </message>
    <message>
        <source>Residual stream</source>
        <translation>残差流</translation>
    </message>
    <message>
        <source>Each layer adds its output to its input (a transformer&apos;s residual stream), so a layer-2 head can read what a layer-1 head wrote. Off: each layer replaces it.</source>
        <translation>每一层把输出加到输入上（Transformer 的残差流），于是第 2 层的头能读到第 1 层的头写下的内容。关闭时，每一层的输出取代输入。</translation>
    </message>
</context>
<context>
    <name>attn::ui::TrainingCurveChart</name>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
</context>
<context>
    <name>attn::ui::TrainingDemos</name>
    <message>
        <source>Why 1/√d_k matters</source>
        <translation>为什么 1/√d_k 很重要</translation>
    </message>
    <message>
        <source>Both runs learn the same task with d_k = 64. Without the 1/√d_k factor the dot products grow with d_k, the softmax saturates on one key from the first step, its gradient vanishes and learning stalls; scaled, the logits stay near unit size and the map forms.</source>
        <translation>两次运行在 d_k = 64 下学习同一任务。没有 1/√d_k 因子时，点积随 d_k 增大，softmax 从第一步起就饱和在某一个键上，梯度消失，学习停滞；缩放后，分数保持在单位量级附近，注意力图得以形成。</translation>
    </message>
    <message>
        <source>scaled 1/√d_k</source>
        <translation>缩放 1/√d_k</translation>
    </message>
    <message>
        <source>unscaled dot product</source>
        <translation>不缩放的点积</translation>
    </message>
    <message>
        <source>Attention collapse: a bad initialisation</source>
        <translation>注意力坍缩：糟糕的初始化</translation>
    </message>
    <message>
        <source>With W_Q and W_K started at zero every logit is zero, every map is uniform and the entropy stays at log N: no gradient reaches the query and key weights, so attention never forms and the task cannot be learned. Xavier initialisation breaks the symmetry.</source>
        <translation>W_Q 和 W_K 从零开始时，每个分数都是零，每张图都是均匀的，熵停留在 log N：没有梯度到达查询和键的权重，注意力永远形成不了，任务也无法学会。Xavier 初始化打破了这种对称。</translation>
    </message>
    <message>
        <source>Xavier initialisation</source>
        <translation>Xavier 初始化</translation>
    </message>
    <message>
        <source>bad initialisation (W_Q = W_K = 0)</source>
        <translation>糟糕的初始化（W_Q = W_K = 0）</translation>
    </message>
    <message>
        <source>Attention collapse: a too-high temperature</source>
        <translation>注意力坍缩：温度过高</translation>
    </message>
    <message>
        <source>Dividing the logits by a large temperature flattens every softmax: the maps stay near uniform, the entropy near log N, and the gradient reaching W_Q and W_K is divided by the temperature too, so learning crawls. At temperature 1 the same model learns the task.</source>
        <translation>把分数除以很大的温度会使每个 softmax 变平：注意力图接近均匀，熵接近 log N，到达 W_Q 和 W_K 的梯度也被温度除小，学习极其缓慢。温度为 1 时，同一模型能学会该任务。</translation>
    </message>
    <message>
        <source>temperature 1</source>
        <translation>温度 1</translation>
    </message>
    <message>
        <source>temperature 100</source>
        <translation>温度 100</translation>
    </message>
    <message>
        <source>Entropy regularisation pulls heads toward focus</source>
        <translation>熵正则化促使各头聚焦</translation>
    </message>
    <message>
        <source>Adding the mean attention entropy to the loss rewards sharp maps: the regularised run's head entropy falls faster and further than the plain run's, which keeps spreading weight over keys it does not need.</source>
        <translation>把平均注意力熵加入损失会奖励尖锐的注意力图：正则化运行中头的熵比普通运行下降得更快、更低，而普通运行会一直把权重分散到不需要的键上。</translation>
    </message>
    <message>
        <source>no regularisation</source>
        <translation>无正则化</translation>
    </message>
    <message>
        <source>entropy weight 0.1</source>
        <translation>熵权重 0.1</translation>
    </message>
    <message>
        <source>Gradient clipping rescues a too-large learning rate</source>
        <translation>梯度裁剪挽救过大的学习率</translation>
    </message>
    <message>
        <source>Plain SGD at learning rate 2 overshoots: the logits grow, the gradient grows with them, and within a few steps the loss is no longer finite and the run stops. Rescaling each gradient to norm 0.1 before the step bounds every update to 2 × 0.1 = 0.2; at the same learning rate the clipped run learns the task to full accuracy and the map forms.</source>
        <translation>学习率 2 的普通 SGD 会冲过头：logits 变大，梯度随之变大，几步之内损失就不再是有限值，训练停止。每一步之前把梯度缩放到范数 0.1，每次更新就被限制在 2 × 0.1 = 0.2 以内；同样的学习率下，裁剪后的训练能把任务学到完全正确，注意力图随之形成。</translation>
    </message>
    <message>
        <source>lr 2, no clipping</source>
        <translation>学习率 2，不裁剪</translation>
    </message>
    <message>
        <source>lr 2, clip norm 0.1</source>
        <translation>学习率 2，裁剪到范数 0.1</translation>
    </message>
    <message>
        <source>Watch an induction head form</source>
        <translation>观察归纳头的形成</translation>
    </message>
    <message>
        <source>Both models predict the next token of random sequences in which a segment repeats (at a random offset, with a random length). At first the loss sits on a plateau near log V (3.5 nats): the repeated tokens cannot be predicted yet. Then, within a couple of hundred steps, the two-layer model&apos;s loss falls below 1: layer 2&apos;s map snaps to the shifted diagonal, attending to the token after the earlier copy of the current one (an induction head), reading what layer 1&apos;s previous-token head wrote. The one-layer model has no earlier head to compose with: its loss only creeps down, with no sudden drop and no induction head.</source>
        <translation>两个模型都预测随机序列的下一个词元，序列中有一段会重复（偏移和长度都随机）。起初损失停在 log V（3.5 奈特）附近的平台上：重复的词元还无法预测。随后在一两百步之内，两层模型的损失降到 1 以下：第 2 层的注意力图突然对齐到平移的对角线，关注当前词元上一次出现之后的那个词元（归纳头），读取的是第 1 层前一词元头写下的信息。单层模型没有更早的头可以组合：它的损失只是缓慢下降，没有突降，也没有归纳头。</translation>
    </message>
    <message>
        <source>2 layers (residual stream)</source>
        <translation>2 层（残差流）</translation>
    </message>
    <message>
        <source>1 layer (residual stream)</source>
        <translation>1 层（残差流）</translation>
    </message>
</context>
<context>
    <name>attn::ui::TrainingInduction</name>
    <message>
        <source>induction, layer %1</source>
        <translation>归纳，第 %1 层</translation>
    </message>
    <message>
        <source>previous-token, layer 1</source>
        <translation>前一词元，第 1 层</translation>
    </message>
</context>
<context>
    <name>attn::ui::TrainingPanel</name>
    <message>
        <source>&amp;Train</source>
        <translation>训练(&amp;T)</translation>
    </message>
    <message>
        <source>Train until paused or the step limit</source>
        <translation>一直训练，直到暂停或达到步数上限</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>暂停(&amp;P)</translation>
    </message>
    <message>
        <source>Pause training</source>
        <translation>暂停训练</translation>
    </message>
    <message>
        <source>&amp;Step</source>
        <translation>单步(&amp;S)</translation>
    </message>
    <message>
        <source>One update</source>
        <translation>一次更新</translation>
    </message>
    <message>
        <source>&amp;Reset</source>
        <translation>重置(&amp;R)</translation>
    </message>
    <message>
        <source>Back to step 0 (the same seed gives the same run)</source>
        <translation>回到第 0 步（相同的种子得到相同的训练过程）</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>cross-entropy + regularisation</source>
        <translation>交叉熵 + 正则项</translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>tokens right</source>
        <translation>正确的词元比例</translation>
    </message>
    <message>
        <source>Entropy per head</source>
        <translation>各头的熵</translation>
    </message>
    <message>
        <source>mean row entropy (nats)</source>
        <translation>平均行熵（奈特）</translation>
    </message>
    <message>
        <source>Gradient norm of W_Q, W_K</source>
        <translation>W_Q、W_K 的梯度范数</translation>
    </message>
    <message>
        <source>L2 norm (log scale)</source>
        <translation>L2 范数（对数刻度）</translation>
    </message>
    <message>
        <source>Follow the newest step</source>
        <translation>跟随最新一步</translation>
    </message>
    <message>
        <source>Training — watch attention learn</source>
        <translation>训练——观看注意力如何学会</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Replay any recorded step</source>
        <translation>回放任意已记录的步</translation>
    </message>
    <message>
        <source>Setup</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Demonstrations</source>
        <translation>演示</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Curves or map snapshots (PNG, SVG, PDF)…</source>
        <translation>曲线或注意力图快照（PNG、SVG、PDF）…</translation>
    </message>
    <message>
        <source>Animation (PNG frames, GIF)…</source>
        <translation>动画（PNG 帧、GIF）…</translation>
    </message>
    <message>
        <source>Maps of</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>Expected: %1</source>
        <translation>期望：%1</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>Head %1 · step %2</source>
        <translation>头 %1 · 第 %2 步</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>W_Q, W_K</source>
        <translation>W_Q、W_K</translation>
    </message>
    <message>
        <source>whole gradient</source>
        <translation>全部梯度</translation>
    </message>
    <message>
        <source>%1, head %2</source>
        <translation>%1，头 %2</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>uniform: log N</source>
        <translation>均匀：log N</translation>
    </message>
    <message>
        <source>Step %1 of %2 · loss %3 · accuracy %4%</source>
        <translation>第 %1 步，共 %2 步 · 损失 %3 · 准确率 %4%</translation>
    </message>
    <message>
        <source> · %1 steps/s</source>
        <translation> · 每秒 %1 步</translation>
    </message>
    <message numerus="yes">
        <source> · maps of step %1 (kept every %n step(s))</source>
        <translation>
            <numerusform> · 第 %1 步的注意力图（每 %n 步保存一次）</numerusform>
        </translation>
    </message>
    <message>
        <source> · training…</source>
        <translation> · 训练中…</translation>
    </message>
    <message>
        <source>Head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>expected</source>
        <translation>期望</translation>
    </message>
    <message>
        <source>%1: the attention map forming</source>
        <translation>%1：注意力图的形成过程</translation>
    </message>
    <message>
        <source>%1 — step %2 · loss %3 · accuracy %4%</source>
        <translation>%1 — 第 %2 步 · 损失 %3 · 准确率 %4%</translation>
    </message>
    <message>
        <source>No GIF: ImageMagick (convert) is not installed; the PNG frames are written.</source>
        <translation>未生成 GIF：没有安装 ImageMagick（convert）；已写出 PNG 帧。</translation>
    </message>
    <message>
        <source>Training curves (loss, accuracy, entropy, gradient norm)</source>
        <translation>训练曲线（损失、准确率、熵、梯度范数）</translation>
    </message>
    <message>
        <source>Map snapshots over training (grid)</source>
        <translation>训练过程中的注意力图快照（网格）</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>已写入 %1</translation>
    </message>
    <message>
        <source>Folder for the animation frames</source>
        <translation>动画帧的文件夹</translation>
    </message>
    <message numerus="yes">
        <source>Wrote %n file(s) to %1</source>
        <translation>
            <numerusform>已向 %1 写入 %n 个文件</numerusform>
        </translation>
    </message>
    <message>
        <source>Head scores on the repeated example</source>
        <translation>重复示例上的头得分</translation>
    </message>
    <message>
        <source>score (1 = only that key)</source>
        <translation>得分（1 = 只关注该键）</translation>
    </message>
    <message>
        <source>phase change · step %1</source>
        <translation>相变 · 第 %1 步</translation>
    </message>
    <message>
        <source> · induction score %1 (layer %2) · previous-token %3 (layer 1)</source>
        <translation> · 归纳得分 %1（第 %2 层）· 前一词元 %3（第 1 层）</translation>
    </message>
</context>
<context>
    <name>attn::ui::TrainingWindowAction</name>
    <message>
        <source>&amp;Training…</source>
        <translation>训练(&amp;T)…</translation>
    </message>
    <message>
        <source>Train a tiny attention model and watch its maps form</source>
        <translation>训练一个微型注意力模型，观看它的注意力图如何形成</translation>
    </message>
</context>
<context>
    <name>attn::ui::VariantMapsWidget</name>
    <message>
        <source>memory</source>
        <translation>记忆</translation>
    </message>
</context>
<context>
    <name>attn::ui::VariantsPanel</name>
    <message>
        <source>The head drawn and walked.</source>
        <translation>绘制并逐步讲解的头。</translation>
    </message>
    <message>
        <source>The query row of the step-through (follows the pinned row).</source>
        <translation>逐步讲解的查询行（跟随固定的行）。</translation>
    </message>
    <message>
        <source>◀ Previous</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一步 ▶</translation>
    </message>
    <message>
        <source>Export figure…</source>
        <translation>导出图…</translation>
    </message>
    <message>
        <source>The attention variant run on the current input and configuration.</source>
        <translation>在当前输入和配置上运行的注意力变体。</translation>
    </message>
    <message>
        <source>Write the maps and the chart as PNG, SVG or PDF.</source>
        <translation>把注意力图和曲线导出为 PNG、SVG 或 PDF。</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Query row</source>
        <translation>查询行</translation>
    </message>
    <message>
        <source>&lt;b&gt;Step-through&lt;/b&gt;</source>
        <translation>&lt;b&gt;逐步讲解&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Segment length L: tokens processed together.</source>
        <translation>段长 L：一起处理的词元数。</translation>
    </message>
    <message>
        <source>Memory length M: cached tokens of the previous segments each query may attend to.</source>
        <translation>记忆长度 M：每个查询可关注的前几段缓存词元数。</translation>
    </message>
    <message>
        <source>Layers stacked: each layer's memory holds the layer below, so the reach grows by about M per layer.</source>
        <translation>堆叠的层数：每层的记忆保存下一层的状态，因此每多一层可回溯范围约增加 M。</translation>
    </message>
    <message>
        <source>The segment drawn on the left (0: the last).</source>
        <translation>左侧绘制的段（0：最后一段）。</translation>
    </message>
    <message>
        <source>Segment L</source>
        <translation>段长 L</translation>
    </message>
    <message>
        <source>Memory M</source>
        <translation>记忆 M</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>Show segment</source>
        <translation>显示的段</translation>
    </message>
    <message>
        <source>Ramp length R: how softly the span ends.</source>
        <translation>斜坡长度 R：跨度结束得多平缓。</translation>
    </message>
    <message>
        <source>Ramp R</source>
        <translation>斜坡 R</translation>
    </message>
    <message>
        <source>Kernel width k (causal when the mask has a causal term, centred otherwise).</source>
        <translation>卷积核宽度 k（掩码含因果项时为因果，否则居中）。</translation>
    </message>
    <message>
        <source>Kernel k</source>
        <translation>卷积核 k</translation>
    </message>
    <message>
        <source>Number of hops K.</source>
        <translation>跳数 K。</translation>
    </message>
    <message>
        <source>q + o</source>
        <translation>q + o</translation>
    </message>
    <message>
        <source>q H + o (seeded H)</source>
        <translation>q H + o（随机种子生成的 H）</translation>
    </message>
    <message>
        <source>How the next hop's query is formed from the previous query and output.</source>
        <translation>下一跳的查询如何由上一跳的查询和输出构成。</translation>
    </message>
    <message>
        <source>Hops</source>
        <translation>跳数</translation>
    </message>
    <message>
        <source>Update</source>
        <translation>更新</translation>
    </message>
    <message>
        <source>IEEE half: 11-bit mantissa, largest value 65504.</source>
        <translation>IEEE 半精度：11 位尾数，最大值 65504。</translation>
    </message>
    <message>
        <source>bfloat16: fp32's range with an 8-bit mantissa.</source>
        <translation>bfloat16：与 fp32 相同的范围，8 位尾数。</translation>
    </message>
    <message>
        <source>Symmetric INT8 with one scale for the whole tensor.</source>
        <translation>对称 INT8，整个张量一个缩放因子。</translation>
    </message>
    <message>
        <source>Symmetric INT8 with one scale per channel (column).</source>
        <translation>对称 INT8，每个通道（列）一个缩放因子。</translation>
    </message>
    <message>
        <source>accumulate in fp32</source>
        <translation>以 fp32 累加</translation>
    </message>
    <message>
        <source>accumulate in low precision</source>
        <translation>以低精度累加</translation>
    </message>
    <message>
        <source>fp16/bf16: sum q·k in fp32 and round once, or round every product and partial sum.</source>
        <translation>fp16/bf16：以 fp32 累加 q·k 后舍入一次，或对每个乘积和部分和都舍入。</translation>
    </message>
    <message>
        <source>quantize Q and K</source>
        <translation>量化 Q 和 K</translation>
    </message>
    <message>
        <source>quantize W_Q, W_K, W_V</source>
        <translation>量化 W_Q、W_K、W_V</translation>
    </message>
    <message>
        <source>INT8: what is quantized.</source>
        <translation>INT8：量化的对象。</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Span z of head %1: keys farther than z + R are cut.</source>
        <translation>头 %1 的跨度 z：距离超过 z + R 的键被截去。</translation>
    </message>
    <message>
        <source>No result yet: type a sentence or open a file.</source>
        <translation>还没有结果：请输入句子或打开文件。</translation>
    </message>
    <message>
        <source>%1 tokens: the variants view draws up to %2 tokens. Shorten the input.</source>
        <translation>%1 个词元：变体视图最多绘制 %2 个词元。请缩短输入。</translation>
    </message>
    <message>
        <source>head %1: z = %2</source>
        <translation>头 %1：z = %2</translation>
    </message>
    <message>
        <source>Step %1 of %2: &lt;b&gt;%3&lt;/b&gt;</source>
        <translation>第 %1 步，共 %2 步：&lt;b&gt;%3&lt;/b&gt;</translation>
    </message>
    <message>
        <source>no variant result to draw</source>
        <translation>没有可绘制的变体结果</translation>
    </message>
    <message>
        <source> — head %1</source>
        <translation> — 头 %1</translation>
    </message>
    <message>
        <source>Export variant figure</source>
        <translation>导出变体图</translation>
    </message>
    <message>
        <source>Figures (*.png *.svg *.pdf)</source>
        <translation>图（*.png *.svg *.pdf）</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图</translation>
    </message>
    <message>
        <source>On a pretrained model this view shows segment memory as the model&apos;s key/value cache; the other variants run on text or tensor input.</source>
        <translation>在预训练模型上，此视图把段记忆显示为模型的键/值缓存；其他变体在文本或张量输入上运行。</translation>
    </message>
    <message>
        <source>Weight on cached keys per query</source>
        <translation>每个查询落在缓存键上的权重</translation>
    </message>
    <message>
        <source>query position</source>
        <translation>查询位置</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Key/value cache — layer %1, head %2</source>
        <translation>键/值缓存 — 第 %1 层，头 %2</translation>
    </message>
</context>
<context>
    <name>attn::ui::DockLayout</name>
    <message>
        <source>Hide &amp;Configuration While a Model Is Open</source>
        <translation>打开模型时隐藏配置(&amp;C)</translation>
    </message>
    <message>
        <source>A pretrained model fixes every configuration control; its card in the Input panel says what it is, and the maps get the room.</source>
        <translation>预训练模型固定了所有配置控件；输入面板中的模型卡片说明了模型是什么，注意力图因此获得更多空间。</translation>
    </message>
</context>
<context>
    <name>attn::ui::ImageOpenAction</name>
    <message>
        <source>Open &amp;Image…</source>
        <translation>打开图像(&amp;I)…</translation>
    </message>
    <message>
        <source>Open a picture (PNG, JPEG, BMP, PPM, NumPy) for the vision model to look at; its image processor resizes, crops and normalises it.</source>
        <translation>打开一张图片（PNG、JPEG、BMP、PPM、NumPy）交给视觉模型；模型的图像处理器会对它缩放、裁剪和归一化。</translation>
    </message>
    <message>
        <source>Opened the image %1</source>
        <translation>已打开图像 %1</translation>
    </message>
    <message>
        <source>Open Image</source>
        <translation>打开图像</translation>
    </message>
    <message>
        <source>Images (*.png *.jpg *.jpeg *.bmp *.gif *.ppm *.pgm *.npy *.npz);;All files (*)</source>
        <translation>图像 (*.png *.jpg *.jpeg *.bmp *.gif *.ppm *.pgm *.npy *.npz);;所有文件 (*)</translation>
    </message>
    <message>
        <source>example image</source>
        <translation>示例图像</translation>
    </message>
</context>
<context>
    <name>attn::ui::VisionHeadGrid</name>
    <message>
        <source>H%1</source>
        <translation>头%1</translation>
    </message>
    <message>
        <source>Roll.</source>
        <translation>展开</translation>
    </message>
    <message>
        <source>L%1</source>
        <translation>层%1</translation>
    </message>
</context>
<context>
    <name>attn::ui::VisionPanel</name>
    <message>
        <source>Head attention</source>
        <translation>头的注意力</translation>
    </message>
    <message>
        <source>Attention rollout</source>
        <translation>注意力展开</translation>
    </message>
    <message>
        <source>60% mass mask</source>
        <translation>60% 质量掩码</translation>
    </message>
    <message>
        <source>Head attention: the query&apos;s attention in the chosen layer and head. Attention rollout: the attention composed through the layers up to the chosen one, residual included (Abnar &amp; Zuidema 2020). 60% mass mask: the patches that together hold 60% of the head&apos;s attention, as in DINO (Caron et al. 2021).</source>
        <translation>头的注意力：查询在所选层和头中的注意力。注意力展开：从第一层复合到所选层的注意力，含残差连接（Abnar 与 Zuidema 2020）。60% 质量掩码：合计占该头 60% 注意力的图块，与 DINO 相同（Caron 等 2021）。</translation>
    </message>
    <message>
        <source>Opacity of the heat layer over the image</source>
        <translation>图像上热力层的不透明度</translation>
    </message>
    <message>
        <source>Reset to [CLS]</source>
        <translation>回到 [CLS]</translation>
    </message>
    <message>
        <source>Show the [CLS] token&apos;s attention again (click a patch to show that patch&apos;s)</source>
        <translation>重新显示 [CLS] 词元的注意力（点击图块可显示该图块的注意力）</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop computing the patch maps</source>
        <translation>停止计算图块注意力图</translation>
    </message>
    <message>
        <source>Brighter = more attention. Click a patch to see where it attends.</source>
        <translation>越亮 = 注意力越多。点击一个图块，查看它关注哪里。</translation>
    </message>
    <message>
        <source>Every layer (rows) and head (columns) for the same query; the last column is the rollout through each layer. Click a tile to open it above.</source>
        <translation>同一查询在每一层（行）和每个头（列）的注意力；最后一列是到该层为止的注意力展开。点击一格，在上方打开它。</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Opacity</source>
        <translation>不透明度</translation>
    </message>
    <message>
        <source>%1… %2%</source>
        <translation>%1… %2%</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Open a vision transformer (ViT, DeiT, DINOv2, CLIP) with File &gt; Open Model…, then an image with File &gt; Open Image…, to see its attention over the image.</source>
        <translation>用“文件 &gt; 打开模型…”打开一个视觉 Transformer（ViT、DeiT、DINOv2、CLIP），再用“文件 &gt; 打开图像…”打开一张图像，即可查看它在图像上的注意力。</translation>
    </message>
    <message>
        <source>Running the model on the image…</source>
        <translation>正在对图像运行模型…</translation>
    </message>
    <message>
        <source>Computing the patch maps</source>
        <translation>正在计算图块注意力图</translation>
    </message>
    <message>
        <source>Layer %1, head %2: attention of %3</source>
        <translation>第 %1 层，头 %2：%3 的注意力</translation>
    </message>
    <message>
        <source>Rollout through layer %1: attention of %2</source>
        <translation>展开到第 %1 层：%2 的注意力</translation>
    </message>
    <message>
        <source>Layer %1, head %2: patches holding 60% of %3&apos;s attention</source>
        <translation>第 %1 层，头 %2：占 %3 注意力 60% 的图块</translation>
    </message>
    <message>
        <source>Query: %1</source>
        <translation>查询：%1</translation>
    </message>
    <message>
        <source>%1 x %2 patches of %3 px. Layer %4, head %5: mean attention distance %6 px.</source>
        <translation>%1 x %2 个图块，每块 %3 像素。第 %4 层，头 %5：平均注意力距离 %6 像素。</translation>
    </message>
</context>
<context>
    <name>attn::ui::OllamaModelsDialog</name>
    <message>
        <source>Open Ollama Model</source>
        <translation>打开 Ollama 模型</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Tag</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>broken</source>
        <translation>已损坏</translation>
    </message>
    <message>
        <source>No Ollama store at %1. Ollama keeps its models in ~/.ollama/models unless $OLLAMA_MODELS names another folder; set it and reopen this dialog.</source>
        <translation>%1 处没有 Ollama 模型库。Ollama 将模型保存在 ~/.ollama/models，除非 $OLLAMA_MODELS 指定了其他文件夹；设置后请重新打开此对话框。</translation>
    </message>
    <message>
        <source>No models in %1. Pull one with ollama pull NAME, or set $OLLAMA_MODELS to another store.</source>
        <translation>%1 中没有模型。可用 ollama pull NAME 下载一个，或将 $OLLAMA_MODELS 设为另一个模型库。</translation>
    </message>
    <message>
        <source>Models in %1:</source>
        <translation>%1 中的模型：</translation>
    </message>
    <message numerus="yes">
        <source>%n manifest(s) could not be read:</source>
        <translation>
            <numerusform>%n 个清单无法读取：</numerusform>
        </translation>
    </message>
    <message>
        <source>Only the first %1 manifests are listed.</source>
        <translation>仅列出前 %1 个清单。</translation>
    </message>
</context>
<context>
    <name>attn::ui::TranslationInterventions</name>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>&amp;Rerun</source>
        <translation>重新运行(&amp;R)</translation>
    </message>
    <message>
        <source>Cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>Encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>Decoder self-attention</source>
        <translation>解码器自注意力</translation>
    </message>
    <message>
        <source>Ablate</source>
        <translation>消融</translation>
    </message>
    <message>
        <source>Uniform</source>
        <translation>均匀</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Ablate: the head&apos;s output is zero (Hugging Face&apos;s head masks). Uniform: equal weight on every key the head may see. Temperature: its logits divided by T.</source>
        <translation>消融：该头的输出为零（即 Hugging Face 的头掩码）。均匀：对该头可见的每个键赋予相同权重。温度：其 logits 除以 T。</translation>
    </message>
    <message>
        <source>Layer, numbered as the Layer box above</source>
        <translation>层，编号与上方的“层”框一致</translation>
    </message>
    <message>
        <source>Head, numbered as the Head box above</source>
        <translation>头，编号与上方的“头”框一致</translation>
    </message>
    <message>
        <source>Active interventions; Rerun applies them (right-click a head&apos;s map to ablate it).</source>
        <translation>当前的干预；点击“重新运行”应用它们（在某个头的图上右键可消融该头）。</translation>
    </message>
    <message>
        <source>Translate again with these interventions: the output and maps show before → after</source>
        <translation>应用这些干预重新翻译：输出和注意力图显示干预前 → 干预后</translation>
    </message>
    <message>
        <source>Intervene</source>
        <translation>干预</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>ablate</source>
        <translation>消融</translation>
    </message>
    <message>
        <source>uniform</source>
        <translation>均匀</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation>温度 %1</translation>
    </message>
    <message>
        <source>mask %1</source>
        <translation>掩码 %1</translation>
    </message>
    <message>
        <source>%1 %2.%3: %4</source>
        <translation>%1 %2.%3：%4</translation>
    </message>
    <message>
        <source>Translation: %1 → with the interventions: %2</source>
        <translation>译文：%1 → 干预后：%2</translation>
    </message>
    <message>
        <source>Forced target, p(token) before → after: %1</source>
        <translation>强制目标，p(词元) 干预前 → 干预后：%1</translation>
    </message>
</context>
<context>
    <name>attn::ui::TranslationPanel</name>
    <message>
        <source>Ablate this head (choose one head, not the mean)</source>
        <translation>消融此头（请选择单个头，而非各头平均）</translation>
    </message>
    <message>
        <source>Ablate this head (%1 %2.%3) and rerun</source>
        <translation>消融此头（%1 %2.%3）并重新运行</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Show this kind of attention, every layer and head, in the main window&apos;s heatmap, head grid, metrics, compare, export and step-through</source>
        <translation>在主窗口的热图、头网格、指标、比较、导出和逐步讲解中显示这类注意力的每一层、每个头</translation>
    </message>
    <message>
        <source>Show in &amp;Main Views</source>
        <translation>在主视图中显示(&amp;M)</translation>
    </message>
    <message>
        <source> — rows: the token each step writes</source>
        <translation> — 行：每一步生成的词元</translation>
    </message>
    <message>
        <source>&amp;Translate</source>
        <translation>翻译(&amp;T)</translation>
    </message>
    <message>
        <source>Reference alignment</source>
        <translation>参考对齐</translation>
    </message>
    <message>
        <source>e.g. 1-1 2-3 3?2 (source-target token positions; ? = possible)</source>
        <translation>例如 1-1 2-3 3?2（源-目标词元位置；? 表示可能的对齐）</translation>
    </message>
    <message>
        <source>A reference word alignment in the Pharaoh format: source-target pairs of 0-based token positions as the map numbers them (special tokens included; target 0 is the first token written); i?j or i-j-P marks a possible link. Scored against the argmax links by the alignment error rate (Och &amp; Ney 2003).</source>
        <translation>Pharaoh 格式的参考词对齐：按图中编号的从 0 开始的源-目标词元位置对（包括特殊词元；目标位置 0 是生成的第一个词元）；i?j 或 i-j-P 表示可能的对齐。用对齐错误率（Och &amp; Ney 2003）与最大权重连线比较打分。</translation>
    </message>
    <message>
        <source>Source tokens on top, target tokens below: a line for every weight of at least 0.1, darker for more; bold: each target token&apos;s largest weight; dashed green: the reference alignment.</source>
        <translation>上方为源词元，下方为目标词元：每个不小于 0.1 的权重画一条线，权重越大颜色越深；粗线：每个目标词元的最大权重；绿色虚线：参考对齐。</translation>
    </message>
    <message>
        <source>%1… %2%</source>
        <translation>%1… %2%</translation>
    </message>
    <message>
        <source>The sentence to translate</source>
        <translation>要翻译的句子</translation>
    </message>
    <message>
        <source>Empty: the model writes the translation. Or type one to force it.</source>
        <translation>留空：由模型生成译文。也可以输入一个译文强制解码。</translation>
    </message>
    <message>
        <source>Forced decoding: the decoder reads this target instead of generating one, so you can see the attention of a translation you choose.</source>
        <translation>强制解码：解码器读入这个目标句而不是自己生成，这样可以看到你所选译文的注意力。</translation>
    </message>
    <message>
        <source>as configured</source>
        <translation>按配置</translation>
    </message>
    <message>
        <source>Beam width: 1 greedy, 2 to 8 beam search; &apos;as configured&apos; follows the checkpoint&apos;s generation config (num_beams).</source>
        <translation>束宽：1 为贪心解码，2 到 8 为束搜索；“按配置”采用检查点生成配置中的 num_beams。</translation>
    </message>
    <message>
        <source>Most tokens to write (&apos;as configured&apos;: the checkpoint&apos;s max_length).</source>
        <translation>最多生成的词元数（“按配置”：检查点的 max_length）。</translation>
    </message>
    <message>
        <source>The same seed, source sentence and settings write the same translation</source>
        <translation>相同的种子、源句和设置写出相同的译文</translation>
    </message>
    <message>
        <source>Translate the source sentence (Enter in either field)</source>
        <translation>翻译源句（在任一输入框中按回车）</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the translation (Esc); the previous one stays</source>
        <translation>停止翻译（Esc）；保留上一次的结果</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>源句</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标句</translation>
    </message>
    <message>
        <source>Beams</source>
        <translation>束宽</translation>
    </message>
    <message>
        <source>Max tokens</source>
        <translation>最多词元</translation>
    </message>
    <message>
        <source>Cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>Encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>Decoder self-attention</source>
        <translation>解码器自注意力</translation>
    </message>
    <message>
        <source>Cross-attention: each target token&apos;s weights over the source tokens. Encoder: the source over itself. Decoder: the target over its earlier tokens.</source>
        <translation>交叉注意力：每个目标词元在源词元上的权重。编码器：源句对自身。解码器：目标句对其前面的词元。</translation>
    </message>
    <message>
        <source>Layer of the encoder or decoder stack</source>
        <translation>编码器或解码器堆栈中的层</translation>
    </message>
    <message>
        <source>One head, or the mean of the layer&apos;s heads</source>
        <translation>单个头，或该层所有头的平均</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Open an encoder–decoder model (Marian, BART, mBART, T5) with File &gt; Open Model Folder… to translate with it and see its attention.</source>
        <translation>用“文件 &gt; 打开模型文件夹…”打开一个编码器–解码器模型（Marian、BART、mBART、T5），即可用它翻译并查看其注意力。</translation>
    </message>
    <message>
        <source>%1 (%2): encoder %3 × %4 heads, decoder %5 × %6 heads</source>
        <translation>%1（%2）：编码器 %3 层 × %4 头，解码器 %5 层 × %6 头</translation>
    </message>
    <message>
        <source>not enough memory for this translation</source>
        <translation>内存不足，无法完成这次翻译</translation>
    </message>
    <message>
        <source>Translating</source>
        <translation>正在翻译</translation>
    </message>
    <message>
        <source>Decoding the target</source>
        <translation>正在解码目标句</translation>
    </message>
    <message>
        <source>Translating…</source>
        <translation>正在翻译…</translation>
    </message>
    <message>
        <source>Cancelled; the previous translation stays.</source>
        <translation>已取消；保留上一次的翻译。</translation>
    </message>
    <message>
        <source>Forced target: %1</source>
        <translation>强制目标句：%1</translation>
    </message>
    <message>
        <source>Translation: %1</source>
        <translation>译文：%1</translation>
    </message>
    <message>
        <source>%1 source and %2 target tokens in %3 ms</source>
        <translation>%1 个源词元和 %2 个目标词元，用时 %3 毫秒</translation>
    </message>
    <message>
        <source>forced decoding</source>
        <translation>强制解码</translation>
    </message>
    <message>
        <source>Settings: %1</source>
        <translation>设置：%1</translation>
    </message>
    <message>
        <source>Mean of heads</source>
        <translation>各头平均</translation>
    </message>
    <message>
        <source>mean of %1 heads</source>
        <translation>%1 个头的平均</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>%1, layer %2, %3</source>
        <translation>%1，第 %2 层，%3</translation>
    </message>
    <message>
        <source>no map yet</source>
        <translation>尚无注意力图</translation>
    </message>
    <message>
        <source>AER: cross-attention only</source>
        <translation>AER：仅适用于交叉注意力</translation>
    </message>
    <message>
        <source>AER %1 (precision %2, recall %3)</source>
        <translation>AER %1（精确率 %2，召回率 %3）</translation>
    </message>
</context>
<context>
    <name>attn::ui::AlignmentLinksView</name>
    <message>
        <source>Translate a sentence to see its alignment.</source>
        <translation>翻译一个句子即可看到它的对齐。</translation>
    </message>
</context>
<context>
    <name>attn::ui::ExplorerModel</name>
    <message>
        <source>Running the model</source>
        <translation>正在运行模型</translation>
    </message>
</context>
<context>
    <name>attn::ui::ModelRunProgress</name>
    <message>
        <source>Cancelled: the view keeps the previous run.</source>
        <translation>已取消：视图保留上一次运行的结果。</translation>
    </message>
    <message>
        <source>Stop the model run (Esc); the view keeps the previous run.</source>
        <translation>停止模型运行（Esc）；视图保留上一次运行的结果。</translation>
    </message>
</context>
<context>
    <name>attn::ui::RowColumnPanel</name>
    <message>
        <source>Layer %1, head %2</source>
        <translation>第 %1 层，第 %2 个头</translation>
    </message>
    <message>
        <source>Key column %1 “%2”: the weight each query gives it</source>
        <translation>键列 %1“%2”：每个查询给它的权重</translation>
    </message>
    <message>
        <source>Query row %1 “%2”: its weight on each key</source>
        <translation>查询行 %1“%2”：它在每个键上的权重</translation>
    </message>
    <message>
        <source>This view keeps no weights (metrics only): there is no row or column to show.</source>
        <translation>此视图不保留权重（仅指标）：没有可显示的行或列。</translation>
    </message>
    <message>
        <source>Click a heatmap cell: its query row and key column show here.</source>
        <translation>点击热力图的一个单元格：它的查询行和键列显示在这里。</translation>
    </message>
    <message>
        <source>Where the query token attends: top</source>
        <translation>查询词元关注哪里：前</translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>How many of the keys the query token attends to most are listed.</source>
        <translation>列出查询词元关注最多的键的个数。</translation>
    </message>
    <message>
        <source>query token</source>
        <translation>查询词元</translation>
    </message>
    <message>
        <source>key token</source>
        <translation>键词元</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
</context>
<context>
    <name>attn::ui::RoutesPanel</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Export Figure…</source>
        <translation>导出图形…</translation>
    </message>
    <message>
        <source>The token whose route is traced: the prediction made there</source>
        <translation>追踪其路径的词元：即在该处做出的预测</translation>
    </message>
    <message>
        <source>last token</source>
        <translation>最后一个词元</translation>
    </message>
    <message>
        <source>Keep an edge when its share of its block&apos;s output is at least this (Ferrando &amp; Voita 2024 use 0.04). Changing it traces the route again without a new run.</source>
        <translation>当一条边在其所属模块输出中的占比不低于此值时保留该边（Ferrando &amp; Voita 2024 使用 0.04）。修改它只重新追踪路径，无需重新运行。</translation>
    </message>
    <message>
        <source>Compute every edge&apos;s importance for the main window&apos;s text</source>
        <translation>为主窗口的文本计算每条边的重要性</translation>
    </message>
    <message>
        <source>Position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Threshold</source>
        <translation>阈值</translation>
    </message>
    <message>
        <source>Information flow routes (Ferrando &amp; Voita 2024): the parts of the forward pass that carry at least the threshold&apos;s share of each block&apos;s output, from the chosen token at the top down to the input tokens. Blue: attention heads; grey: the residual stream; orange: MLPs.</source>
        <translation>信息流路径（Ferrando &amp; Voita 2024）：前向计算中承载各模块输出至少阈值比例的部分，从顶部所选词元一直向下到输入词元。蓝色：注意力头；灰色：残差流；橙色：MLP。</translation>
    </message>
    <message>
        <source>%1… %2%</source>
        <translation>%1… %2%</translation>
    </message>
    <message>
        <source>Run traces the contribution graph of the main window&apos;s text.</source>
        <translation>“运行”会追踪主窗口文本的贡献图。</translation>
    </message>
    <message>
        <source>Open a causal language model and type a text first.</source>
        <translation>请先打开一个因果语言模型并输入文本。</translation>
    </message>
    <message>
        <source>Tracing the contribution graph</source>
        <translation>正在追踪贡献图</translation>
    </message>
    <message>
        <source>Cancelled; the graph shown is the one before.</source>
        <translation>已取消；显示的仍是之前的图。</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>%1  %2</source>
        <translation>%1  %2</translation>
    </message>
    <message>
        <source>Contribution graph of token %1 “%2”, threshold %3</source>
        <translation>词元 %1 “%2” 的贡献图，阈值 %3</translation>
    </message>
    <message numerus="yes">
        <source>%n edge(s). Hover an edge for its importance; click a head&apos;s edge to show that head.</source>
        <translation>
            <numerusform>%n 条边。悬停在边上查看其重要性；点击注意力头的边以显示该头。</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing to export yet: run the contribution graph first.</source>
        <translation>尚无可导出的内容：请先运行贡献图。</translation>
    </message>
    <message>
        <source>Contribution graph</source>
        <translation>贡献图</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图形</translation>
    </message>
</context>
<context>
    <name>attn::ui::RoutesView</name>
    <message>
        <source>embeddings</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>L%1 attention</source>
        <translation>L%1 注意力</translation>
    </message>
    <message>
        <source>L%1 MLP</source>
        <translation>L%1 MLP</translation>
    </message>
    <message>
        <source>attention head</source>
        <translation>注意力头</translation>
    </message>
    <message>
        <source>residual</source>
        <translation>残差</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>%1 “%2”</source>
        <translation>%1 “%2”</translation>
    </message>
    <message>
        <source>Layer %1, head %2</source>
        <translation>第 %1 层，第 %2 个头</translation>
    </message>
    <message>
        <source>Layer %1, residual around attention</source>
        <translation>第 %1 层，绕过注意力的残差</translation>
    </message>
    <message>
        <source>Layer %1, MLP</source>
        <translation>第 %1 层，MLP</translation>
    </message>
    <message>
        <source>Layer %1, residual around the MLP</source>
        <translation>第 %1 层，绕过 MLP 的残差</translation>
    </message>
    <message>
        <source>%1
from token %2 to token %3
importance %4</source>
        <translation>%1
从词元 %2 到词元 %3
重要性 %4</translation>
    </message>
    <message>
        <source>
Click to show this head</source>
        <translation>
点击以显示此注意力头</translation>
    </message>
</context>
</TS>
