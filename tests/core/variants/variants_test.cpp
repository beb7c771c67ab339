// The attention variants against independent references: PyTorch
// along the papers' code paths (tests/scripts/gen_variant_fixtures.py) and
// small cases worked out by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "attn/attn.h"
#include "attn/io/npy_reader.h"
#include "attn/variants/variants.h"
#include "attn/variants/variant_run.h"
#include "matrix_matchers.h"

namespace attn::variants {
namespace {

using Arrays = std::map<std::string, NpyArray>;

Arrays fixture(const std::string& name) {
  auto z = readNpzFile((std::filesystem::path(ATTN_FIXTURE_DIR) / "variants" / name).string());
  EXPECT_TRUE(z.ok()) << (z.ok() ? "" : z.error().message);
  Arrays a;
  if (z.ok())
    for (auto& m : *z) a[m.name] = std::move(m);
  return a;
}

Mat slice(const Arrays& a, const std::string& n, int64_t i = 0) { return a.at(n).values.slice2d(i); }
float scalar(const Arrays& a, const std::string& n) { return a.at(n).values.data.at(0); }
Vec row(const Mat& m, int64_t r) { return m.row(r).transpose(); }

// --- segment memory --------------------------------------------------------

TEST(SegmentMemory, MatchesTransformerXlReference) {
  const auto a = fixture("xl.npz");
  const Mat x = slice(a, "x");
  const int heads = static_cast<int>(a.at("w_q").values.shape[0]);
  std::vector<XlHeadParams> p(static_cast<size_t>(heads));
  const Mat u = slice(a, "u"), v = slice(a, "v");
  for (int h = 0; h < heads; ++h) {
    auto& hp = p[static_cast<size_t>(h)];
    hp.wQ = slice(a, "w_q", h);
    hp.wK = slice(a, "w_k", h);
    hp.wV = slice(a, "w_v", h);
    hp.wR = slice(a, "w_r", h);
    hp.u = row(u, h);
    hp.v = row(v, h);
  }
  auto r = segmentMemoryAttention(x, p, static_cast<int>(scalar(a, "segment")), static_cast<int>(scalar(a, "memory")));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->segments.size(), 3u);  // 7 tokens in segments of 3
  EXPECT_EQ(r->segments[1].memLength, 2);
  EXPECT_EQ(r->segments[0].memLength, 0);
  for (size_t s = 0; s < r->segments.size(); ++s)
    for (int h = 0; h < heads; ++h) {
      const auto& sh = r->segments[s].heads[static_cast<size_t>(h)];
      EXPECT_MATRIX_NEAR(sh.weights, slice(a, "seg" + std::to_string(s) + "_weights", h), 1e-5);
      EXPECT_MATRIX_NEAR(sh.output, slice(a, "seg" + std::to_string(s) + "_output", h), 1e-5);
      // The four terms add up to the logit before the scale.
      for (Eigen::Index i = 0; i < sh.logits.rows(); ++i)
        for (Eigen::Index j = 0; j < sh.logits.cols(); ++j)
          if (std::isfinite(sh.logits(i, j)))
            EXPECT_NEAR(sh.logits(i, j), sh.scale * (sh.content(i, j) + sh.contentPosition(i, j) +
                                                     sh.globalContent(i, j) + sh.globalPosition(i, j)), 1e-5);
          else
            EXPECT_EQ(sh.weights(i, j), 0.0f);
    }
  for (int h = 0; h < heads; ++h) EXPECT_MATRIX_NEAR(r->fullWeights[static_cast<size_t>(h)], slice(a, "full_weights", h), 1e-5);
}

TEST(SegmentMemory, RelativeSinusoidIsSinThenCos) {
  const Mat r = relativeSinusoid(3, 4);  // f = 1, 1/100
  EXPECT_NEAR(r(2, 0), std::sin(2.0), 1e-6);
  EXPECT_NEAR(r(2, 1), std::sin(0.02), 1e-6);
  EXPECT_NEAR(r(2, 2), std::cos(2.0), 1e-6);
  EXPECT_NEAR(r(0, 3), 1.0, 1e-6);
}

TEST(SegmentMemory, ReachGrowsByTheMemoryPerLayer) {
  // N = 12, L = 4, M = 4: token 11 (segment 3, starting at 8) sees 4..11 with
  // one layer; token 4..7's own memory starts at 0, so two layers reach 0.
  EXPECT_EQ(xlEarliestReach(12, 4, 4, 1)[11], 4);
  EXPECT_EQ(xlEarliestReach(12, 4, 4, 2)[11], 0);
  // Without memory nothing crosses a segment boundary, whatever the depth.
  EXPECT_EQ(xlEarliestReach(12, 4, 0, 5)[11], 8);
  // M = 2: one layer 6, two layers 2 (token 6 is in segment 2, memory from 2), three 0.
  EXPECT_EQ(xlEarliestReach(12, 4, 2, 1)[11], 6);
  EXPECT_EQ(xlEarliestReach(12, 4, 2, 2)[11], 2);
  EXPECT_EQ(xlEarliestReach(12, 4, 2, 3)[11], 0);
}

TEST(SegmentMemory, RowWalkNamesMemoryKeysAndDistances) {
  const Mat x = seededTokenEmbeddings({"a", "b", "c", "d", "e"}, 8, 1);
  auto p = seededXlParams(8, 1, 4, InitScheme::XavierUniform, 1);
  auto r = segmentMemoryAttention(x, p, 2, 2);
  ASSERT_TRUE(r.ok());
  auto w = xlRowWalk(*r, 0, 1, 1);  // segment 2 = tokens 2, 3; memory 0, 1; query 3
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->absoluteQuery, 3);
  EXPECT_EQ(w->keyPositions, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(w->distances, (std::vector<int>{3, 2, 1, 0}));
  EXPECT_NEAR(w->memoryShare, w->weights(0) + w->weights(1), 1e-7);
  EXPECT_NEAR(w->weights.sum(), 1.0, 1e-6);
  EXPECT_FALSE(xlRowWalk(*r, 0, 5, 0).ok());
  EXPECT_FALSE(segmentMemoryAttention(x, p, 0, 2).ok());
}

// --- adaptive span ---------------------------------------------------------

TEST(AdaptiveSpan, RampByHand) {
  // z = 1, R = 2: m(0) = m(1) = 1, m(2) = 0.5, m(3) = 0.
  EXPECT_DOUBLE_EQ(spanRamp(0, 1, 2), 1.0);
  EXPECT_DOUBLE_EQ(spanRamp(1, 1, 2), 1.0);
  EXPECT_DOUBLE_EQ(spanRamp(2, 1, 2), 0.5);
  EXPECT_DOUBLE_EQ(spanRamp(3, 1, 2), 0.0);
  // Uniform causal row 3 over keys 0..3 (distances 3, 2, 1, 0): masked
  // 0, 0.125, 0.25, 0.25 -> sum 0.625 -> 0, 0.2, 0.4, 0.4.
  Mat w = Mat::Zero(4, 4);
  for (int i = 0; i < 4; ++i) w.row(i).head(i + 1).setConstant(1.0f / static_cast<float>(i + 1));
  auto s = adaptiveSpanHead(w, Mat(), 1, 2);
  ASSERT_TRUE(s.ok());
  EXPECT_FLOAT_EQ(s->weights(3, 0), 0.0f);
  EXPECT_NEAR(s->weights(3, 1), 0.2, 1e-6);
  EXPECT_NEAR(s->weights(3, 2), 0.4, 1e-6);
  EXPECT_NEAR(s->weights(3, 3), 0.4, 1e-6);
  auto walk = spanRowWalk(w, 1, 2, 3);
  ASSERT_TRUE(walk.ok());
  EXPECT_NEAR(walk->maskedSum, 0.625, 1e-6);
  EXPECT_FALSE(adaptiveSpanHead(w, Mat(), 1, 0).ok());
}

TEST(AdaptiveSpan, MatchesReference) {
  const auto a = fixture("span.npz");
  const auto& z = a.at("z").values.data;
  for (int h = 0; h < 3; ++h) {
    auto s = adaptiveSpanHead(slice(a, "weights", h), slice(a, "v", h), z.at(static_cast<size_t>(h)), scalar(a, "ramp"));
    ASSERT_TRUE(s.ok());
    EXPECT_MATRIX_NEAR(s->weights, slice(a, "spanned", h), 1e-5);
    EXPECT_MATRIX_NEAR(s->output, slice(a, "output", h), 1e-5);
  }
}

// --- dynamic convolution ---------------------------------------------------

TEST(DynamicConv, MatchesUnfoldReference) {
  for (const char* name : {"dynconv_causal.npz", "dynconv_centred.npz"}) {
    const auto a = fixture(name);
    const int heads = static_cast<int>(scalar(a, "heads")), k = static_cast<int>(scalar(a, "kernel"));
    auto r = dynamicConvolution(slice(a, "x"), slice(a, "w"), heads, k, scalar(a, "causal") != 0.0f);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const Mat out = slice(a, "output");
    for (int h = 0; h < heads; ++h) {
      const auto& dh = r->heads[static_cast<size_t>(h)];
      EXPECT_MATRIX_NEAR(dh.kernel, slice(a, "kernel_weights", h), 1e-5) << name;
      EXPECT_MATRIX_NEAR(dh.output, out.middleCols(dh.firstChannel, dh.channels), 1e-5) << name;
    }
  }
}

TEST(DynamicConv, BandedMapByHand) {
  // Zero kernel weights: every tap 1/3. Causal k = 3 over 4 tokens: row 0 keeps
  // only its own tap (1/3; the two before it read the padding), row 3 keys 1..3.
  const Mat x = Mat::Ones(4, 2);
  auto r = dynamicConvolution(x, Mat::Zero(2, 3), 1, 3, true);
  ASSERT_TRUE(r.ok());
  const Mat& b = r->heads[0].banded;
  EXPECT_NEAR(b(0, 0), 1.0 / 3, 1e-6);
  EXPECT_NEAR(b.row(0).sum(), 1.0 / 3, 1e-6);
  EXPECT_EQ(b(3, 0), 0.0f);
  EXPECT_NEAR(b.row(3).sum(), 1.0, 1e-6);
  EXPECT_EQ(b(1, 2), 0.0f);  // causal: no future key
  auto c = dynamicConvolution(x, Mat::Zero(2, 3), 1, 3, false);
  EXPECT_NEAR(c->heads[0].banded(1, 2), 1.0 / 3, 1e-6);  // centred: one key ahead
  EXPECT_FALSE(dynamicConvolution(x, Mat::Zero(2, 3), 3, 3, true).ok());  // 2 channels, 3 heads
}

// --- multi-hop -------------------------------------------------------------

TEST(MultiHop, MatchesReference) {
  for (const char* name : {"hops_add.npz", "hops_linear.npz"}) {
    const auto a = fixture(name);
    const Mat keep = slice(a, "keep");
    std::vector<uint8_t> allowed;
    for (Eigen::Index i = 0; i < keep.size(); ++i) allowed.push_back(keep.data()[i] != 0.0f);
    const auto update = std::string(name) == "hops_linear.npz" ? HopUpdate::Linear : HopUpdate::Add;
    auto r = multiHopAttention(slice(a, "q0"), slice(a, "k"), slice(a, "v"), allowed,
                               static_cast<int>(scalar(a, "hops")), update, slice(a, "h"), scalar(a, "scale"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->hops.size(), 3u);
    for (int t = 0; t < 3; ++t) {
      EXPECT_MATRIX_NEAR(r->hops[static_cast<size_t>(t)].weights, slice(a, "weights", t), 1e-5) << name << " hop " << t;
      EXPECT_MATRIX_NEAR(r->hops[static_cast<size_t>(t)].output, slice(a, "output", t), 1e-5) << name << " hop " << t;
    }
  }
}

TEST(MultiHop, SecondHopByHand) {
  // One query q0 = (0), keys k = (1), (-1), values v = (2), (0), scale 1:
  // hop 1 logits 0, 0 -> a = (1/2, 1/2), o = 1; q1 = 0 + 1 = 1;
  // hop 2 logits 1, -1 -> a = (e/(e+1/e), ...) = 1/(1+e^-2).
  Mat q(1, 1), k(2, 1), v(2, 1);
  q << 0;
  k << 1, -1;
  v << 2, 0;
  auto r = multiHopAttention(q, k, v, {}, 2, HopUpdate::Add, Mat(), 1.0f);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->hops[0].weights(0, 0), 0.5, 1e-7);
  EXPECT_NEAR(r->hops[1].query(0, 0), 1.0, 1e-7);
  EXPECT_NEAR(r->hops[1].weights(0, 0), 1.0 / (1.0 + std::exp(-2.0)), 1e-6);
  EXPECT_NEAR(r->hops[0].meanEntropy, std::log(2.0), 1e-6);
  EXPECT_LT(r->hops[1].meanEntropy, r->hops[0].meanEntropy);
  EXPECT_FALSE(multiHopAttention(q, k, v, {}, 0, HopUpdate::Add, Mat(), 1.0f).ok());
}

// --- reduced precision -----------------------------------------------------

TEST(Precision, RoundingByHand) {
  EXPECT_EQ(roundToHalf(1.0f + 1.0f / 4096), 1.0f);           // below half an fp16 ulp (2^-10)
  EXPECT_EQ(roundToHalf(65504.0f), 65504.0f);
  EXPECT_TRUE(std::isinf(roundToHalf(65536.0f)));
  EXPECT_EQ(roundToBf16(1.0f + 1.0f / 512), 1.0f);             // bf16 keeps 8 bits
  EXPECT_EQ(roundToBf16(3.0e38f) > 2.9e38f, true);             // fp32's range
  // int8 per tensor, max 2.54: scale 0.02; 1.011 -> 51 * 0.02 = 1.02.
  Mat x(1, 2);
  x << 2.54f, 1.011f;
  std::vector<float> scales;
  const Mat q = quantizeInt8(x, false, &scales);
  EXPECT_NEAR(scales[0], 0.02, 1e-7);
  EXPECT_NEAR(q(0, 1), 1.02, 1e-6);
  EXPECT_NEAR(std::exp(kHalfExpLimit), kHalfMax, 1e-6);
}

class PrecisionFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = fixture("precision.npz");
    const int heads = static_cast<int>(a_.at("q").values.shape[0]);
    for (int h = 0; h < heads; ++h) {
      in_.q.push_back(slice(a_, "q", h));
      in_.k.push_back(slice(a_, "k", h));
      in_.v.push_back(slice(a_, "v", h));
    }
    in_.queryTokens = {"a", "b", "c", "d", "e", "f"};
    spec_.heads = heads;
    spec_.dModel = 16;
    spec_.mask = Mask::causal();
    spec_.exec = ExecPath::Naive;
    auto r = runAttention(in_, spec_);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ref_ = std::move(r).value();
  }
  PrecisionResult run(LowPrecision f, Accumulation acc = Accumulation::Fp32) {
    PrecisionOptions o;
    o.format = f;
    o.accumulate = acc;
    auto r = reducedPrecision(in_, ref_, spec_, o);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? std::move(r).value() : PrecisionResult{};
  }
  Arrays a_;
  AttentionInput in_;
  AttentionSpec spec_;
  AttentionResult ref_;
};

TEST_F(PrecisionFixture, EveryFormatMatchesTorch) {
  const std::vector<std::pair<std::string, PrecisionResult>> runs{
      {"weights_fp16", run(LowPrecision::F16)},
      {"weights_bf16", run(LowPrecision::BF16)},
      {"weights_fp16_low", run(LowPrecision::F16, Accumulation::Low)},
      {"weights_int8_tensor", run(LowPrecision::Int8Tensor)},
      {"weights_int8_channel", run(LowPrecision::Int8Channel)}};
  for (const auto& [name, r] : runs)
    for (int h = 0; h < 2; ++h) {
      const auto& ph = r.heads.at(static_cast<size_t>(h));
      const Mat want = slice(a_, name, h);
      EXPECT_MATRIX_NEAR(ph.weights, want, 2e-5) << name << " head " << h;
      EXPECT_MATRIX_NEAR(ph.reference, slice(a_, "weights_fp32", h), 2e-5);
      EXPECT_NEAR(ph.maxError, (want - slice(a_, "weights_fp32", h)).cwiseAbs().maxCoeff(), 3e-5) << name;
    }
}

TEST_F(PrecisionFixture, OverflowMapMatchesTorch) {
  const auto r = run(LowPrecision::F16);
  for (int h = 0; h < 2; ++h) EXPECT_MATRIX_NEAR(r.heads[static_cast<size_t>(h)].overflow, slice(a_, "overflow", h), 0);
  EXPECT_EQ(r.heads[0].overflowRows, 0);
  EXPECT_GT(r.heads[1].overflowCells, 0);
  // The walk of an overflowing row: without the max, inf/inf = NaN or x/inf = 0;
  // with it every e^(s - m) is in (0, 1] and the weights match fp32 closely.
  int row = -1;
  for (int i = 0; i < 6 && row < 0; ++i)
    if (r.heads[1].overflow.row(i).maxCoeff() == 2.0f) row = i;
  ASSERT_GE(row, 0);
  auto w = precisionRowWalk(r, in_, 1, row);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_TRUE(std::isinf(w->sumNoMax));
  EXPECT_TRUE(w->weightsNoMax.hasNaN());
  EXPECT_LE(w->expWithMax.maxCoeff(), 1.0f);
  EXPECT_NEAR(w->sumWithMax32, w->sumWithMaxHalf, 2e-3 * w->sumWithMax32);
}

TEST_F(PrecisionFixture, ProjectionsNeedEmbeddings) {
  PrecisionOptions o;
  o.format = LowPrecision::Int8Tensor;
  o.target = QuantTarget::Projections;
  EXPECT_FALSE(reducedPrecision(in_, ref_, spec_, o).ok());
}

TEST(Precision, Int8ProjectionsFromText) {
  const AttentionInput in = inputFromTokens({"a", "b", "c", "d"}, 16, 3);
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  VariantOptions v;
  v.kind = VariantKind::Precision;
  v.precision.format = LowPrecision::Int8Channel;
  v.precision.target = QuantTarget::Projections;
  auto r = runVariant(in, spec, v);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& ph = r->precision->heads[0];
  // Every weight moves a little, none a lot; the quantized W_Q is reproduced by hand for one entry.
  EXPECT_GT(ph.maxError, 0.0);
  EXPECT_LT(ph.maxError, 0.05);
  std::vector<float> scales;
  const Mat wq = quantizeInt8(r->base->wQ, true, &scales);
  const float s0 = r->base->wQ.col(0).cwiseAbs().maxCoeff() / 127.0f;
  EXPECT_NEAR(scales[0], s0, 1e-9);
  EXPECT_NEAR(wq(0, 0), std::nearbyint(r->base->wQ(0, 0) / s0) * s0, 1e-7);
}

// --- one entry point ---------------------------------------------------------

TEST(VariantRun, EveryVariantDrawsItsMaps) {
  const AttentionInput in = inputFromTokens({"the", "cat", "sat", "on", "the", "mat", "again"}, 16, 42);
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  spec.mask = Mask::causal();
  for (auto name : allVariants()) {
    VariantOptions v;
    v.kind = *parseVariant(name);
    v.segment = 3;
    v.memory = 2;
    auto r = runVariant(in, spec, v);
    ASSERT_TRUE(r.ok()) << name << ": " << r.error().message;
    EXPECT_EQ(r->numHeads(), 2) << name;
    const auto maps = variantMaps(*r, 1);
    ASSERT_FALSE(maps.empty()) << name;
    for (const auto& m : maps) {
      EXPECT_EQ(static_cast<Eigen::Index>(m.rowLabels.size()), m.values.rows()) << name << " " << m.title;
      EXPECT_EQ(static_cast<Eigen::Index>(m.colLabels.size()), m.values.cols()) << name << " " << m.title;
    }
    EXPECT_FALSE(variantSummary(*r).empty());
  }
  EXPECT_FALSE(parseVariant("nope").has_value());
}

TEST(VariantRun, ParsesPerHeadLists) {
  auto one = parsePerHeadList("3", 4, "--span-z");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, (std::vector<double>{3, 3, 3, 3}));
  EXPECT_FALSE(parsePerHeadList("1,2", 4, "--span-z").ok());
  auto bad = parsePerHeadList("1,x", 2, "--span-z");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'x'"), std::string::npos);
}

}  // namespace
}  // namespace attn::variants
