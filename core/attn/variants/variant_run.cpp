#include "attn/variants/variant_run.h"

#include <fmt/format.h>

#include <cmath>

#include "attn/engine/scores.h"

namespace attn::variants {

std::string_view variantName(VariantKind k) {
  switch (k) {
    case VariantKind::SegmentMemory: return "xl";
    case VariantKind::AdaptiveSpan: return "span";
    case VariantKind::DynamicConv: return "dynconv";
    case VariantKind::MultiHop: return "hops";
    case VariantKind::Precision: return "precision";
  }
  return "xl";
}

std::optional<VariantKind> parseVariant(std::string_view name) {
  for (auto k : {VariantKind::SegmentMemory, VariantKind::AdaptiveSpan, VariantKind::DynamicConv, VariantKind::MultiHop,
                 VariantKind::Precision})
    if (variantName(k) == name) return k;
  return std::nullopt;
}

std::vector<std::string_view> allVariants() { return {"xl", "span", "dynconv", "hops", "precision"}; }

int VariantRun::numHeads() const {
  if (xl && !xl->segments.empty()) return static_cast<int>(xl->segments.front().heads.size());
  if (dynconv) return static_cast<int>(dynconv->heads.size());
  if (base) return base->numHeads();
  return 0;
}

namespace {

Result<AttentionResult> runBase(const AttentionInput& input, AttentionSpec spec) {
  spec.exec = ExecPath::Naive;  // every intermediate (q, k, v, logits) is needed
  spec.weightsHead = -1;
  return runAttention(input, spec);
}

Status needsEmbeddings(const AttentionInput& input, std::string_view variant) {
  if (input.isProjected() || input.x.size() == 0)
    return Error{fmt::format("--variant {}: needs token embeddings (text, or an 'x' array), not projected q/k/v", variant)};
  if (input.isCross()) return Error{fmt::format("--variant {}: works on self-attention (no --key-text)", variant)};
  return okStatus();
}

std::vector<std::string> slice(const std::vector<std::string>& v, int start, int count) {
  std::vector<std::string> out;
  for (int i = start; i < start + count && i < static_cast<int>(v.size()); ++i) out.push_back(v[static_cast<size_t>(i)]);
  return out;
}

}  // namespace

Result<VariantRun> runVariant(const AttentionInput& input, const AttentionSpec& spec, const VariantOptions& options) {
  VariantRun run;
  run.options = options;
  run.tokens = input.queryTokens;
  switch (options.kind) {
    case VariantKind::SegmentMemory: {
      if (auto st = needsEmbeddings(input, "xl"); !st) return st.error();
      if (options.layers < 1 || options.layers > 64)
        return Error{fmt::format("--layers must be between 1 and 64 (got {})", options.layers)};
      const int dModel = static_cast<int>(input.x.cols());
      const int dHead = spec.dK > 0 ? spec.dK : std::max(1, dModel / std::max(spec.heads, 1));
      if (spec.heads < 1) return Error{fmt::format("--heads must be at least 1 (got {})", spec.heads)};
      auto params = seededXlParams(dModel, spec.heads, dHead, spec.init, spec.seed);
      auto xl = segmentMemoryAttention(input.x, params, options.segment, options.memory);
      if (!xl) return xl.error();
      run.xl = std::move(xl).value();
      run.xlReach = xlEarliestReach(static_cast<int>(input.x.rows()), options.segment, options.memory, options.layers);
      break;
    }
    case VariantKind::DynamicConv: {
      if (auto st = needsEmbeddings(input, "dynconv"); !st) return st.error();
      const int dModel = static_cast<int>(input.x.cols());
      const Mat w = seededDynamicConvWeights(dModel, spec.heads, options.kernel, spec.init, spec.seed);
      const bool causal = spec.mask.spec().find("causal") != std::string::npos;
      auto dc = dynamicConvolution(input.x, w, spec.heads, options.kernel, causal);
      if (!dc) return dc.error();
      run.dynconv = std::move(dc).value();
      break;
    }
    case VariantKind::AdaptiveSpan: {
      auto base = runBase(input, spec);
      if (!base) return base.error();
      std::vector<double> z = options.spanZ;
      if (z.empty())
        for (int h = 0; h < base->numHeads(); ++h) z.push_back(std::ldexp(1.0, h));
      auto s = adaptiveSpan(*base, z, options.spanRamp);
      if (!s) return s.error();
      run.span = std::move(s).value();
      run.base = std::move(base).value();
      break;
    }
    case VariantKind::MultiHop: {
      if (spec.mechanism != Mechanism::Dot && spec.mechanism != Mechanism::ScaledDot)
        return Error{fmt::format("--hops: mechanism '{}' is not covered (dot and scaled_dot are)",
                                 mechanismName(spec.mechanism))};
      auto base = runBase(input, spec);
      if (!base) return base.error();
      const auto allowed = base->mask.bitmap(base->nq(), base->nk());
      for (int h = 0; h < base->numHeads(); ++h) {
        const auto& bh = base->heads[static_cast<size_t>(h)];
        const float scale = logitScale(spec.mechanism, bh.q.cols(), spec.temperature);
        const Mat hm = options.hopUpdate == HopUpdate::Linear
                           ? seededHopMap(static_cast<int>(bh.q.cols()), h, spec.init, spec.seed)
                           : Mat();
        auto mh = multiHopAttention(bh.q, bh.k, bh.v, allowed, options.hops, options.hopUpdate, hm, scale, bh.logitBias);
        if (!mh) return mh.error();
        run.hops.push_back(std::move(mh).value());
      }
      run.base = std::move(base).value();
      break;
    }
    case VariantKind::Precision: {
      auto base = runBase(input, spec);
      if (!base) return base.error();
      auto p = reducedPrecision(input, *base, spec, options.precision);
      if (!p) return p.error();
      run.precision = std::move(p).value();
      run.base = std::move(base).value();
      break;
    }
  }
  if (run.base) run.tokens = run.base->queryTokens;
  return run;
}

std::vector<VariantMap> variantMaps(const VariantRun& run, int head, int segment) {
  std::vector<VariantMap> maps;
  if (head < 0 || head >= run.numHeads()) return maps;
  const auto h = static_cast<size_t>(head);
  const auto& tok = run.tokens;
  const auto keyTok = run.base ? run.base->keyTokens : tok;
  if (run.xl) {
    const auto& segs = run.xl->segments;
    const int s = segment < 0 || segment >= static_cast<int>(segs.size()) ? static_cast<int>(segs.size()) - 1 : segment;
    const auto& seg = segs[static_cast<size_t>(s)];
    VariantMap m;
    m.title = fmt::format("segment {} of {}: {} memory + {} current keys", s + 1, segs.size(), seg.memLength, seg.length);
    m.values = seg.heads[h].weights;
    m.rowLabels = slice(tok, seg.start, seg.length);
    m.colLabels = slice(tok, seg.memStart, seg.keyCount());
    m.memoryColumns = seg.memLength;
    maps.push_back(std::move(m));
    VariantMap full;
    full.title = fmt::format("every segment (L = {}, M = {})", run.xl->segmentLength, run.xl->memoryLength);
    full.values = run.xl->fullWeights[h];
    full.rowLabels = tok;
    full.colLabels = tok;
    maps.push_back(std::move(full));
  } else if (!run.span.empty() && run.base) {
    maps.push_back({"softmax attention", run.base->heads[h].weights, tok, keyTok, 0, false});
    maps.push_back({fmt::format("with span z = {:g}, R = {:g}", run.span[h].z, run.options.spanRamp), run.span[h].weights,
                    tok, keyTok, 0, false});
  } else if (run.dynconv) {
    maps.push_back({fmt::format("dynamic convolution, k = {} ({})", run.dynconv->kernelWidth,
                                run.dynconv->causal ? "causal" : "centred"),
                    run.dynconv->heads[h].banded, tok, tok, 0, false});
  } else if (!run.hops.empty()) {
    const auto& hops = run.hops[h].hops;
    for (size_t t = 0; t < hops.size(); ++t)
      maps.push_back({fmt::format("hop {} (mean entropy {:.3f} nats)", t + 1, hops[t].meanEntropy), hops[t].weights, tok,
                      keyTok, 0, false});
  } else if (run.precision) {
    const auto& ph = run.precision->heads[h];
    const std::string name(precisionName(run.precision->options.format));
    maps.push_back({"fp32", ph.reference, tok, keyTok, 0, false});
    maps.push_back({name, ph.weights, tok, keyTok, 0, false});
    maps.push_back({fmt::format("|A_{} - A_fp32| (max {:.2g})", name, ph.maxError), ph.error, tok, keyTok, 0, true});
  }
  return maps;
}

std::vector<std::string> variantSummary(const VariantRun& run) {
  std::vector<std::string> lines;
  if (run.xl) {
    const auto& xl = *run.xl;
    lines.push_back(fmt::format("xl: {} segment(s) of {} tokens, memory {} (relative positions with u, v biases)",
                                xl.segments.size(), xl.segmentLength, xl.memoryLength));
    for (size_t h = 0; h < xl.segments.front().heads.size(); ++h) {
      double mem = 0;
      int rows = 0;
      for (const auto& seg : xl.segments)
        if (seg.memLength > 0) {
          mem += seg.heads[h].weights.leftCols(seg.memLength).sum();
          rows += seg.length;
        }
      lines.push_back(fmt::format("head {}: weight on memory keys {:.3f} per query (segments after the first)", h + 1,
                                  rows ? mem / rows : 0.0));
    }
    if (!run.xlReach.empty()) {
      const int n = static_cast<int>(run.xlReach.size());
      lines.push_back(fmt::format("reach with {} layer(s): the last token draws on tokens from {} on ({} back)",
                                  run.options.layers, run.xlReach.back(), n - 1 - run.xlReach.back()));
    }
  } else if (!run.span.empty()) {
    for (size_t h = 0; h < run.span.size(); ++h)
      lines.push_back(fmt::format("head {}: span z = {:g}, R = {:g}: {:.2f} keys kept per query, mean entropy {:.3f} nats",
                                  h + 1, run.span[h].z, run.options.spanRamp, run.span[h].meanSpan,
                                  run.span[h].entropy.size() ? run.span[h].entropy.cast<double>().mean() : 0.0));
  } else if (run.dynconv) {
    lines.push_back(fmt::format("dynconv: kernel width {}, {}, window offset {}", run.dynconv->kernelWidth,
                                run.dynconv->causal ? "causal" : "centred", run.dynconv->offset));
    for (size_t h = 0; h < run.dynconv->heads.size(); ++h)
      lines.push_back(fmt::format("head {}: mean kernel entropy {:.3f} nats (log k = {:.3f})", h + 1,
                                  run.dynconv->heads[h].entropy.cast<double>().mean(),
                                  std::log(static_cast<double>(run.dynconv->kernelWidth))));
  } else if (!run.hops.empty()) {
    lines.push_back(fmt::format("hops: {} hop(s), update {}", run.options.hops,
                                run.options.hopUpdate == HopUpdate::Add ? "q + o" : "q H + o"));
    for (size_t h = 0; h < run.hops.size(); ++h) {
      std::string e;
      for (const auto& hop : run.hops[h].hops) e += fmt::format(" {:.3f}", hop.meanEntropy);
      lines.push_back(fmt::format("head {}: mean entropy per hop (nats):{}", h + 1, e));
    }
  } else if (run.precision) {
    const auto& o = run.precision->options;
    const bool isInt8 = o.format == LowPrecision::Int8Tensor || o.format == LowPrecision::Int8Channel;
    lines.push_back(fmt::format("precision: {}{}", precisionName(o.format),
                                isInt8 ? (o.target == QuantTarget::QK ? ", Q and K quantized" : ", W_Q/W_K/W_V quantized")
                                       : (o.accumulate == Accumulation::Fp32 ? ", fp32 accumulation" : ", low-precision accumulation")));
    for (size_t h = 0; h < run.precision->heads.size(); ++h) {
      const auto& ph = run.precision->heads[h];
      lines.push_back(fmt::format("head {}: max |A_low - A_fp32| {:.3g}, mean row KL {:.3g} nats, top-1 agreement {:.1f}%; "
                                  "fp16 softmax without max subtraction: {} cell(s) overflow, {} row(s) lost (max logit {:.3g})",
                                  h + 1, ph.maxError, ph.meanRowKl, 100.0 * ph.topOneAgreement, ph.overflowCells,
                                  ph.overflowRows, ph.maxLogit));
    }
  }
  return lines;
}

}  // namespace attn::variants
