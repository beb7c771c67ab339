// run --variant: the attention variants, headless.
#include <fmt/format.h>

#include <cmath>

#include "attn/io/npy_writer.h"
#include "attn/variants/variant_rows.h"
#include "commands.h"
#include "variant_options.h"

namespace attn::cli {

namespace {
// Options that name their variant when --variant is absent.
struct Implied {
  const char* option;
  const char* variant;
};
constexpr Implied kImplied[] = {{"--segment", "xl"},     {"--memory", "xl"},       {"--layers", "xl"},
                                {"--span-z", "span"},    {"--span-ramp", "span"},  {"--kernel", "dynconv"},
                                {"--hops", "hops"},      {"--hop-update", "hops"}, {"--precision", "precision"},
                                {"--accumulate", "precision"}, {"--quantize", "precision"}};

std::vector<std::string> toStrings(const std::vector<std::string_view>& v) {
  return {v.begin(), v.end()};
}

Tensor stackRows(const std::vector<Vec>& rows) {
  Tensor t;
  t.shape = {static_cast<int64_t>(rows.size()), rows.empty() ? 0 : static_cast<int64_t>(rows[0].size())};
  for (const auto& r : rows) t.data.insert(t.data.end(), r.data(), r.data() + r.size());
  return t;
}
}  // namespace

bool VariantCliOptions::active() const {
  if (!variant.empty()) return true;
  if (!cmd) return false;
  for (const auto& i : kImplied)
    if (cmd->count(i.option) > 0) return true;
  return false;
}

void addVariantOptions(CLI::App& cmd, VariantCliOptions& o) {
  o.cmd = &cmd;
  const std::string group = "Attention variants";
  std::string names;
  for (auto v : variants::allVariants()) names += (names.empty() ? "" : ", ") + std::string(v);
  cmd.add_option("--variant", o.variant,
                 "Attention variant: xl (Transformer-XL segment memory), span (adaptive span), dynconv (dynamic "
                 "convolution), hops (multi-hop), precision (fp16/bf16/int8). A parameter below alone picks its variant")
      ->check(CLI::IsMember(toStrings(variants::allVariants())))
      ->group(group);
  cmd.add_option("--segment", o.segment, "xl: segment length L")->capture_default_str()->group(group);
  cmd.add_option("--memory", o.memory, "xl: memory length M (cached tokens of the previous segments)")
      ->capture_default_str()->group(group);
  cmd.add_option("--layers", o.layers, "xl: layers stacked for the reach (each reaches about M further back)")
      ->capture_default_str()->group(group);
  cmd.add_option("--show-segment", o.segmentShown, "xl, export: the segment drawn beside the whole map, 1-based "
                 "(default: the last)")->group(group);
  cmd.add_option("--span-z", o.spanZ, "span: z per head, e.g. 1,2,4,8, or one value for all (default 2^h)")
      ->group(group);
  cmd.add_option("--span-ramp", o.spanRamp, "span: ramp length R of m_z(x) = clamp((R + z - x) / R, 0, 1)")
      ->capture_default_str()->group(group);
  cmd.add_option("--kernel", o.kernel, "dynconv: kernel width k (causal when --mask has causal)")
      ->capture_default_str()->group(group);
  cmd.add_option("--hops", o.hops, "hops: number of hops K")->capture_default_str()->group(group);
  cmd.add_option("--hop-update", o.hopUpdate, "hops: query update, add (q + o) or linear (q H + o, H seeded)")
      ->check(CLI::IsMember({"add", "linear"}))
      ->capture_default_str()->group(group);
  std::string precisions;
  for (auto p : variants::allPrecisions()) precisions += (precisions.empty() ? "" : ", ") + std::string(p);
  cmd.add_option("--precision", o.precision, "precision: " + precisions)
      ->check(CLI::IsMember(toStrings(variants::allPrecisions())))
      ->group(group);
  cmd.add_option("--accumulate", o.accumulate, "precision fp16/bf16: accumulate q.k in fp32 or low")
      ->check(CLI::IsMember({"fp32", "low"}))
      ->capture_default_str()->group(group);
  cmd.add_option("--quantize", o.quantize, "precision int8: quantize qk (Q and K) or proj (W_Q, W_K, W_V)")
      ->check(CLI::IsMember({"qk", "proj"}))
      ->capture_default_str()->group(group);
}

Result<variants::VariantOptions> buildVariantOptions(const VariantCliOptions& o) {
  std::string name = o.variant;
  if (o.cmd)
    for (const auto& i : kImplied) {
      if (o.cmd->count(i.option) == 0) continue;
      if (name.empty()) name = i.variant;
      if (name != i.variant)
        return Error{fmt::format("{} belongs to --variant {}, not {}", i.option, i.variant, name)};
    }
  auto kind = variants::parseVariant(name);
  if (!kind) return Error{fmt::format("--variant: unknown variant '{}'", name)};
  variants::VariantOptions v;
  v.kind = *kind;
  v.segment = o.segment;
  v.memory = o.memory;
  v.layers = o.layers;
  if (o.spanRamp <= 0) return Error{fmt::format("--span-ramp must be more than 0 (got {})", o.spanRamp)};
  v.spanRamp = o.spanRamp;
  v.kernel = o.kernel;
  v.hops = o.hops;
  v.hopUpdate = o.hopUpdate == "linear" ? variants::HopUpdate::Linear : variants::HopUpdate::Add;
  auto p = variants::parsePrecision(o.precision.empty() ? "fp16" : o.precision);
  v.precision.format = *p;
  v.precision.accumulate = o.accumulate == "low" ? variants::Accumulation::Low : variants::Accumulation::Fp32;
  v.precision.target = o.quantize == "proj" ? variants::QuantTarget::Projections : variants::QuantTarget::QK;
  return v;
}

namespace {
Result<variants::VariantRun> buildAndRun(const CommonOptions& opts, const VariantCliOptions& vo,
                                         AttentionInput* inputOut = nullptr) {
  if (!opts.modelDir.empty()) return Error{"--variant: runs on --text or --input, not on --model"};
  auto v = buildVariantOptions(vo);
  if (!v) return v.error();
  auto req = buildRequest(opts);
  if (!req) return req.error();
  if (opts.loaded && !opts.loaded->hasEngineInput())
    return Error{opts.inputFile + ": --variant needs embeddings or q/k/v, not only precomputed 'attn'"};
  if (!vo.spanZ.empty()) {
    auto z = variants::parsePerHeadList(vo.spanZ, req->second.heads, "--span-z");
    if (!z) return z.error();
    v->spanZ = std::move(z).value();
  }
  auto run = variants::runVariant(req->first, req->second, *v);
  if (run && inputOut) *inputOut = req->first;
  return run;
}
}  // namespace

Result<variants::VariantRun> runVariantRequest(const CommonOptions& opts, const VariantCliOptions& vo,
                                               AttentionInput* input) {
  return buildAndRun(opts, vo, input);
}

int runVariantCommand(const CommonOptions& opts, const VariantCliOptions& vo, const std::string& out) {
  auto run = buildAndRun(opts, vo);
  if (!run) return fail(run.error().message);
  NpzWriter npz;
  const int nh = run->numHeads();
  std::vector<Mat> weights, entropy;
  if (run->xl) {
    npz.add("weights", Tensor::stack(run->xl->fullWeights));
    for (size_t s = 0; s < run->xl->segments.size(); ++s) {
      std::vector<Mat> seg;
      for (const auto& h : run->xl->segments[s].heads) seg.push_back(h.weights);
      npz.add(fmt::format("segment_{}", s + 1), Tensor::stack(seg));
    }
    Tensor reach;
    reach.shape = {static_cast<int64_t>(run->xlReach.size())};
    for (int r : run->xlReach) reach.data.push_back(static_cast<float>(r));
    npz.add("reach", reach);
  } else if (!run->span.empty()) {
    std::vector<Mat> before, out2;
    std::vector<Vec> ramps, ent;
    for (int h = 0; h < nh; ++h) {
      const auto& s = run->span[static_cast<size_t>(h)];
      weights.push_back(s.weights);
      before.push_back(run->base->heads[static_cast<size_t>(h)].weights);
      out2.push_back(s.output);
      ramps.push_back(s.ramp);
      ent.push_back(s.entropy);
    }
    npz.add("weights", Tensor::stack(weights));
    npz.add("weights_softmax", Tensor::stack(before));
    npz.add("output", Tensor::stack(out2));
    npz.add("ramp", stackRows(ramps));
    npz.add("entropy", stackRows(ent));
    Vec z(nh);
    for (int h = 0; h < nh; ++h) z(h) = static_cast<float>(run->span[static_cast<size_t>(h)].z);
    npz.add("span_z", stackRows({z}));
  } else if (run->dynconv) {
    std::vector<Mat> kernels, outs;
    std::vector<Vec> ent;
    for (const auto& h : run->dynconv->heads) {
      weights.push_back(h.banded);
      kernels.push_back(h.kernel);
      outs.push_back(h.output);
      ent.push_back(h.entropy);
    }
    npz.add("weights", Tensor::stack(weights));
    npz.add("kernel", Tensor::stack(kernels));
    npz.add("output", Tensor::stack(outs));
    npz.add("entropy", stackRows(ent));
  } else if (!run->hops.empty()) {
    // [K, H, Nq, Nk]: hop-major, so weights[t] is one hop of every head.
    Tensor w, e;
    const auto& first = run->hops[0].hops[0].weights;
    const int k = static_cast<int>(run->hops[0].hops.size());
    w.shape = {k, nh, first.rows(), first.cols()};
    e.shape = {k, nh, first.rows()};
    for (int t = 0; t < k; ++t)
      for (int h = 0; h < nh; ++h) {
        const auto& hop = run->hops[static_cast<size_t>(h)].hops[static_cast<size_t>(t)];
        w.data.insert(w.data.end(), hop.weights.data(), hop.weights.data() + hop.weights.size());
        e.data.insert(e.data.end(), hop.entropy.data(), hop.entropy.data() + hop.entropy.size());
      }
    npz.add("weights", w);
    npz.add("entropy", e);
    std::vector<Mat> last;
    for (const auto& h : run->hops) last.push_back(h.hops.back().output);
    npz.add("output", Tensor::stack(last));
  } else if (run->precision) {
    std::vector<Mat> ref, err, over, logits;
    Mat summary(nh, 5);
    for (int h = 0; h < nh; ++h) {
      const auto& ph = run->precision->heads[static_cast<size_t>(h)];
      weights.push_back(ph.weights);
      ref.push_back(ph.reference);
      err.push_back(ph.error);
      over.push_back(ph.overflow);
      Mat lg = ph.logits.unaryExpr([](float x) { return std::isfinite(x) ? x : 0.0f; });
      logits.push_back(lg);
      summary.row(h) << static_cast<float>(ph.maxError), static_cast<float>(ph.meanRowKl),
          static_cast<float>(ph.topOneAgreement), static_cast<float>(ph.overflowCells),
          static_cast<float>(ph.overflowRows);
    }
    npz.add("weights", Tensor::stack(weights));
    npz.add("weights_fp32", Tensor::stack(ref));
    npz.add("error", Tensor::stack(err));
    npz.add("overflow", Tensor::stack(over));
    npz.add("logits", Tensor::stack(logits));
    npz.add("summary", Tensor::fromMat(summary));
  }
  npz.addStrings("tokens", run->tokens);
  npz.addStrings("variant", {std::string(variants::variantName(run->options.kind))});
  if (auto st = npz.write(out); !st) return fail(st.error().message);
  for (const auto& line : variants::variantSummary(*run)) fmt::print("{}\n", line);
  fmt::print("wrote {} (variant {}, {} heads, {} tokens)\n", out, variants::variantName(run->options.kind), nh,
             run->tokens.size());
  return 0;
}

}  // namespace attn::cli
