// The model forward's device pieces (core/attn/cuda/model_block.h and the causal / GQA
// flash block) run on the CPU, block by block and thread by thread, against the CPU
// model path: nn_ops' norms, RoPE and activations, the precision variants' 16-bit
// rounding, and the CPU flash kernel on each query head with its group's K/V head.
#include "attn/cuda/model_block.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "attn/cpu/tiled_attention.h"
#include "attn/cuda/half_bits.h"
#include "attn/models/nn_ops.h"
#include "emulated_device.h"

namespace attn::gpu {
namespace {

Mat blockRandomMat(int rows, int cols, std::mt19937& rng, float lo = -4.0f, float hi = 4.0f) {
  std::uniform_real_distribution<float> u(lo, hi);
  Mat m(rows, cols);
  for (Eigen::Index c = 0; c < m.size(); ++c) m.data()[c] = u(rng);
  return m;
}

models::WeightTensor blockVector(const std::vector<float>& v) {
  models::WeightTensor t;
  t.data = v.data();
  t.rows = 1;
  t.cols = static_cast<int64_t>(v.size());
  return t;
}

// |a - b| <= tol (1 + |b|) for every cell.
void expectCellsNear(const float* got, const Mat& want, double tol, const std::string& what) {
  int bad = 0;
  for (Eigen::Index c = 0; c < want.size() && bad < 5; ++c) {
    const double w = want.data()[c];
    if (std::abs(got[c] - w) > tol * (1 + std::abs(w))) {
      ++bad;
      ADD_FAILURE() << what << " cell " << c << ": " << got[c] << " vs the CPU's " << w;
    }
  }
}

// Rows chosen so that a block's threads (96 or 256 here) split the width unevenly.
TEST(GpuModelBlock, RmsNormAndLayerNormRowsEqualTheCpuModelPath) {
  std::mt19937 rng(5);
  for (int cols : {7, 64, 301}) {
    const Mat x = blockRandomMat(9, cols, rng);
    std::vector<float> gamma(static_cast<size_t>(cols)), beta(static_cast<size_t>(cols));
    for (int c = 0; c < cols; ++c) gamma[c] = 0.5f + 0.01f * c, beta[c] = 0.1f - 0.003f * c;
    for (bool rms : {true, false})
      for (int threads : {96, 256}) {
        models::NormWeight w;
        w.gamma = blockVector(gamma);
        if (!rms) w.beta = blockVector(beta);
        Mat want;
        if (rms)
          models::rmsNorm(x, w, 1e-6, want);
        else
          models::layerNorm(x, w, 1e-5, want);
        std::vector<float> y(static_cast<size_t>(x.size()), -7.0f);
        std::vector<uint16_t> y16(y.size());
        NormParams p;
        p.rows = 9, p.cols = cols, p.rms = rms, p.eps = rms ? 1e-6f : 1e-5f;
        p.x = x.data(), p.gamma = gamma.data(), p.beta = rms ? nullptr : beta.data();
        p.y = y.data(), p.y16 = y16.data(), p.y16Type = InputType::BF16;
        std::vector<double> shared(normSharedBytes(threads) / sizeof(double));
        HostExec ex{threads};
        for (int row = 0; row < p.rows; ++row) {
          std::fill(shared.begin(), shared.end(), std::numeric_limits<double>::quiet_NaN());  // stale values
          normRowBlock(p, shared.data(), row, ex);
        }
        expectCellsNear(y.data(), want, 1e-6, rms ? "rmsNorm" : "layerNorm");
        for (size_t c = 0; c < y.size(); ++c)
          ASSERT_EQ(y16[c], toBf16Bits(y[c])) << "16-bit copy, cell " << c;
      }
  }
}

// Both layouts: rotate-half as applyRope, and interleaved pairs as llama.cpp's row order,
// which the CPU handles by deinterleaveHeads before applyRope. Llama 3 scaling included.
TEST(GpuModelBlock, RopeBothConventionsEqualTheCpuTableAndRotation) {
  std::mt19937 rng(7);
  const int rows = 19, heads = 3, hd = 16;
  models::RopeScaling scaling;
  scaling.type = "llama3", scaling.factor = 8, scaling.lowFreqFactor = 1, scaling.highFreqFactor = 4;
  scaling.originalMaxPositions = 8;
  const models::RopeTable table = models::ropeTable(rows, hd, 500000.0, scaling);
  const Mat x = blockRandomMat(rows, heads * hd, rng);
  for (bool interleaved : {false, true})
    for (bool headMajor : {true, false}) {
      Mat want = x;
      if (interleaved) models::deinterleaveHeads(want, hd);
      models::applyRope(want, hd, table);
      std::vector<float> y(static_cast<size_t>(x.size()), -7.0f);
      std::vector<uint16_t> y16(y.size());
      RopeParams p;
      p.rows = rows, p.heads = heads, p.headDim = hd, p.interleaved = interleaved, p.headMajor = headMajor;
      p.x = x.data(), p.cos = table.cos.data(), p.sin = table.sin.data(), p.y = y.data(), p.y16 = y16.data();
      for (int r = 0; r < rows; ++r)
        for (int h = 0; h < heads; ++h)
          for (int i = 0; i < hd / 2; ++i) ropeCell(p, r, h, i);
      Mat got(rows, heads * hd);
      for (int r = 0; r < rows; ++r)
        for (int h = 0; h < heads; ++h)
          for (int d = 0; d < hd; ++d) got(r, h * hd + d) = y[ropeOut(p, r, h, d)];
      expectCellsNear(got.data(), want, 1e-6, interleaved ? "interleaved RoPE" : "rotate-half RoPE");
      for (size_t c = 0; c < y.size(); ++c) ASSERT_EQ(y16[c], toHalfBits(y[c])) << "f16 copy, cell " << c;
    }
}

TEST(GpuModelBlock, ActivationsAndSwiGluEqualTheCpuModelPath) {
  std::mt19937 rng(9);
  const Mat x = blockRandomMat(6, 97, rng), up = blockRandomMat(6, 97, rng);
  const std::pair<models::Activation, DeviceActivation> kinds[] = {
      {models::Activation::GeluNew, DeviceActivation::GeluTanh},
      {models::Activation::GeluErf, DeviceActivation::GeluErf},
      {models::Activation::Relu, DeviceActivation::Relu},
      {models::Activation::Silu, DeviceActivation::Silu},
      {models::Activation::QuickGelu, DeviceActivation::QuickGelu}};
  for (const auto& [cpu, dev] : kinds) {
    Mat want = x;
    models::activate(want, cpu);
    Mat gotX = x;
    ActivationParams p;
    p.count = static_cast<size_t>(x.size()), p.act = dev, p.x = gotX.data();
    for (size_t c = 0; c < p.count; ++c) activationCell(p, c);
    expectCellsNear(gotX.data(), want, 1e-6, "activation " + std::to_string(static_cast<int>(dev)));
    // SwiGLU as gatedMlp: up *= act(gate).
    Mat gotUp = up, gate = x;
    std::vector<uint16_t> out16(p.count);
    p.x = gate.data(), p.up = gotUp.data(), p.out16 = out16.data(), p.out16Type = InputType::F16;
    for (size_t c = 0; c < p.count; ++c) activationCell(p, c);
    // up * act(gate), the product of the activation checked above: the same f32 multiply.
    for (size_t c = 0; c < p.count; ++c)
      ASSERT_EQ(gotUp.data()[c], up.data()[c] * gotX.data()[c]) << "cell " << c;
    EXPECT_EQ(gate, x) << "the gate is read, not written, when up is given";
    for (size_t c = 0; c < p.count; ++c) ASSERT_EQ(out16[c], toHalfBits(gotUp.data()[c]));
  }
}

// The device encoders against the host's (the precision variants' rounding) on values
// that hit every branch: normal, subnormal, ties, overflow to infinity, zeros, infinities.
TEST(GpuModelBlock, SixteenBitEncodersRoundAsTheHostDoes) {
  std::mt19937 rng(13);
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               -1.0f,
                               65504.0f,
                               65519.0f,
                               65520.0f,
                               1e6f,
                               -1e6f,
                               6.1035156e-05f,
                               6.0975552e-05f,
                               5.9604645e-08f,
                               2.9802322e-08f,
                               2.98023259e-08f,
                               1e-10f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               1.00048828125f,
                               1.00146484375f,
                               3.3895314e38f};
  std::uniform_real_distribution<float> expo(-30.0f, 18.0f);
  for (int i = 0; i < 4000; ++i) values.push_back((i % 2 ? -1.0f : 1.0f) * std::exp2(expo(rng)));
  for (float v : values) {
    EXPECT_EQ(floatToHalfBits(v), toHalfBits(v)) << "fp16 of " << v;
    EXPECT_EQ(floatToBf16Bits(v), toBf16Bits(v)) << "bf16 of " << v;
  }
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalfBits(std::nanf("")))));
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16Bits(std::nanf("")))));
  // Round trip through the conversion cells: decoding is exact.
  std::vector<uint16_t> bits(values.size());
  std::vector<float> back(values.size());
  for (InputType t : {InputType::F16, InputType::BF16}) {
    ConvertParams enc{values.size(), t, nullptr, values.data(), nullptr, bits.data()};
    ConvertParams dec{values.size(), t, bits.data(), nullptr, back.data(), nullptr};
    for (size_t c = 0; c < values.size(); ++c) convertCell(enc, c);
    for (size_t c = 0; c < values.size(); ++c) convertCell(dec, c);
    for (size_t c = 0; c < values.size(); ++c)
      ASSERT_EQ(back[c], t == InputType::F16 ? halfToFloat(toHalfBits(values[c]))
                                             : bf16ToFloat(toBf16Bits(values[c])));
  }
}

TEST(GpuModelBlock, HeadLayoutAddAndEmbedMoveTheRightCells) {
  const int rows = 5, heads = 3, width = 4;
  std::vector<float> tokenMajor(rows * heads * width), headMajor(tokenMajor.size()), back(tokenMajor.size());
  for (size_t c = 0; c < tokenMajor.size(); ++c) tokenMajor[c] = static_cast<float>(c);
  HeadLayoutParams split{rows, heads, width, true, tokenMajor.data(), headMajor.data(), 0};
  HeadLayoutParams merge{rows, heads, width, false, headMajor.data(), back.data(), 0};
  for (int r = 0; r < rows; ++r)
    for (int h = 0; h < heads; ++h)
      for (int d = 0; d < width; ++d) headLayoutCell(split, r, h, d);
  EXPECT_EQ(headMajor[(2 * rows + 1) * width + 3], tokenMajor[1 * heads * width + 2 * width + 3]);
  for (int r = 0; r < rows; ++r)
    for (int h = 0; h < heads; ++h)
      for (int d = 0; d < width; ++d) headLayoutCell(merge, r, h, d);
  EXPECT_EQ(back, tokenMajor);

  std::vector<float> y = {1, 2, 3, 4, 5, 6}, bias = {10, 20, 30}, res = {100, 100, 100, 200, 200, 200};
  AddParams add;
  add.rows = 2, add.cols = 3, add.y = y.data(), add.bias = bias.data(), add.residual = res.data();
  for (size_t c = 0; c < 6; ++c) addCell(add, c);
  EXPECT_EQ(y, (std::vector<float>{111, 122, 133, 214, 225, 236}));

  // GPT-2: token row + position row, tables in bf16.
  std::vector<uint16_t> tok(4 * 2), pos(3 * 2);
  for (size_t c = 0; c < tok.size(); ++c) tok[c] = toBf16Bits(static_cast<float>(c) + 0.5f);
  for (size_t c = 0; c < pos.size(); ++c) pos[c] = toBf16Bits(100.0f * static_cast<float>(c));
  const std::vector<int32_t> ids = {3, 0, 3};
  std::vector<float> e(6, -7.0f);
  EmbedParams ep;
  ep.rows = 3, ep.cols = 2, ep.ids = ids.data(), ep.type = InputType::BF16, ep.tok16 = tok.data(),
  ep.pos16 = pos.data(), ep.y = e.data();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 2; ++c) embedCell(ep, r, c);
  EXPECT_EQ(e, (std::vector<float>{6.5f, 107.5f, 200.5f, 301.5f, 406.5f, 507.5f}));
}

// ---- Causal, grouped-query flash attention ----------------------------------

struct GqaCase {
  int heads, group, n, dk;
  size_t shared;  // picks the tile
};

// Every query head through the flash block (its group's heads stacked in one tile,
// causal tiles classified procedurally) against the CPU flash kernel on that head with
// its K/V head and the causal mask; then the weights of every head cell by cell.
void checkGqaFlash(const GqaCase& c) {
  std::mt19937 rng(17);
  const int kv = c.heads / c.group, n = c.n;
  std::vector<Mat> q, k, v;
  std::vector<float> pq, pk, pv;
  for (int h = 0; h < c.heads; ++h) {
    q.push_back(blockRandomMat(n, c.dk, rng, -2, 2));
    pq.insert(pq.end(), q.back().data(), q.back().data() + q.back().size());
  }
  for (int h = 0; h < kv; ++h) {
    k.push_back(blockRandomMat(n, c.dk, rng, -1, 1));
    v.push_back(blockRandomMat(n, c.dk, rng, -1, 1));
    pk.insert(pk.end(), k.back().data(), k.back().data() + k.back().size());
    pv.insert(pv.end(), v.back().data(), v.back().data() + v.back().size());
  }
  const TilePlan plan = chooseFlashTile(c.dk, c.dk, c.shared);
  ASSERT_TRUE(plan.ok);
  std::vector<float> out(static_cast<size_t>(c.heads) * n * c.dk, -7.0f),
      ent(static_cast<size_t>(c.heads) * n, -7.0f), mx(ent.size(), -7.0f), sum(ent.size(), -7.0f);
  FlashParams p;
  p.heads = c.heads, p.nq = n, p.nk = n, p.dk = c.dk, p.dv = c.dk, p.scale = 1.0f / std::sqrt(float(c.dk));
  p.q = pq.data(), p.k = pk.data(), p.v = pv.data(), p.br = plan.br, p.bc = plan.bc;
  p.group = c.group, p.causal = true;
  p.out = out.data(), p.entropy = ent.data(), p.rowMax = mx.data(), p.rowSum = sum.data();
  emulateFlash(p, plan);

  const Mask causal = *Mask::causal().bind(n, n, std::vector<std::string>(static_cast<size_t>(n), "t"));
  for (int h = 0; h < c.heads; ++h) {
    HeadView in;
    in.q = &q[h], in.k = &k[h / c.group], in.v = &v[h / c.group], in.scale = p.scale, in.mask = &causal;
    TileScratch scratch;
    Mat cpuOut, cpuWeights;
    RowStats st;
    blockedAttentionWithWeights(in, TileConfig{}, cpuWeights, cpuOut, st);
    for (int i = 0; i < n; ++i) {
      const size_t r = static_cast<size_t>(h) * n + i;
      ASSERT_NEAR(ent[r], st.entropy[i], 1e-6) << "head " << h << " row " << i;
      ASSERT_NEAR(mx[r], st.max[i], 1e-6 * (1 + std::abs(st.max[i]))) << "head " << h << " row " << i;
      ASSERT_NEAR(sum[r], st.sum[i], 1e-6 * st.sum[i]) << "head " << h << " row " << i;
      for (int d = 0; d < c.dk; ++d)
        ASSERT_NEAR(out[r * c.dk + d], cpuOut(i, d), 1e-6 * (1 + std::abs(cpuOut(i, d))))
            << "head " << h << " out(" << i << "," << d << ")";
    }
    WeightsParams w;
    w.f = p;
    std::vector<float> weights(static_cast<size_t>(n) * n);
    // weightCell writes head h's cells at [h, n, n]: point its base there.
    w.weights = weights.data() - static_cast<ptrdiff_t>(h) * n * n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) weightCell(w, h, i, j);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const float want = cpuWeights(i, j), got = weights[static_cast<size_t>(i) * n + j];
        if (j > i)
          ASSERT_EQ(got, 0.0f) << "masked weight, head " << h;
        else
          ASSERT_NEAR(got, want, 1e-6) << "head " << h << " weight(" << i << "," << j << ")";
      }
  }
}

// Tile boundaries: n not a multiple of the tile; groups of 1 (MHA), 2, 4 and 7 (Qwen2-0.5B's
// 14 / 2, whose stacked rows leave idle rows in the tile); 16-, 32- and 64-row tiles.
TEST(GpuModelBlock, CausalGqaFlashEqualsTheCpuKernelPerQueryHead) {
  for (const GqaCase& c : {GqaCase{2, 1, 45, 8, 99 * 1024}, GqaCase{4, 2, 70, 16, 48 * 1024},
                           GqaCase{8, 4, 33, 8, 227 * 1024}, GqaCase{14, 7, 29, 4, 12 * 1024}}) {
    SCOPED_TRACE(::testing::Message() << c.heads << " heads in groups of " << c.group << ", n " << c.n);
    checkGqaFlash(c);
  }
}

// Phases counted: the causal classification skips every tile above the diagonal, without a
// tile table, and a block loads each K/V tile once for all the query heads of its group.
struct CausalCountingExec {
  HostExec inner;
  int phases = 0;
  int threads() const { return inner.threads(); }
  template <class F>
  void each(F&& f) {
    ++phases;
    inner.each(f);
  }
};

TEST(GpuModelBlock, CausalTilesAboveTheDiagonalAreSkippedAndGroupsShareKvTiles) {
  const int n = 256, dk = 4;
  // K/V for 4 KV heads: group 1 reads them all.
  std::vector<float> q(4 * n * dk, 0.1f), kv(4 * n * dk, 0.2f), out(4 * n * dk), row(4 * n);
  std::vector<float> mx(row.size()), sum(row.size());
  for (int group : {1, 2}) {
    const TilePlan plan = chooseFlashTile(dk, dk, 48 * 1024);  // 64 x 64
    FlashParams p;
    p.heads = 4, p.nq = n, p.nk = n, p.dk = dk, p.dv = dk, p.br = plan.br, p.bc = plan.bc;
    p.q = q.data(), p.k = kv.data(), p.v = kv.data(), p.group = group, p.causal = true;
    p.out = out.data(), p.entropy = row.data(), p.rowMax = mx.data(), p.rowSum = sum.data();
    std::vector<double> shared(plan.sharedBytes / 8 + 1);
    int phases = 0, blocks = 0;
    for (int kvHead = 0; kvHead < flashKvHeads(p); ++kvHead)
      for (int qb = 0; qb < flashQueryBlocks(p); ++qb) {
        CausalCountingExec ex{HostExec{plan.threads}};
        flashBlock(p, flashSharedLayout(shared.data(), plan.br, plan.bc, dk, dk), kvHead, qb, ex);
        phases += ex.phases, ++blocks;
      }
    // Query blocks of `rows` positions against 64-key tiles: block b computes the tiles
    // that start at or before its last row.
    const int rows = plan.br / group;
    int tiles = 0;
    for (int qb = 0; qb < numBlocks(n, rows); ++qb) tiles += (std::min(n, (qb + 1) * rows) - 1) / plan.bc + 1;
    const int kvHeads = 4 / group;
    EXPECT_EQ(blocks, kvHeads * numBlocks(n, rows));
    EXPECT_EQ(phases, kvHeads * (2 * numBlocks(n, rows) + 4 * tiles)) << "group " << group;
    EXPECT_LT(tiles, numBlocks(n, rows) * (n / plan.bc)) << "tiles above the diagonal are skipped";
    // K/V tile loads: group 1, 4 heads x (4 blocks of 64 rows: 1 + 2 + 3 + 4 tiles); group 2,
    // 2 K/V heads x (8 blocks of 32 rows per head: 1,1,2,2,3,3,4,4), each load serving both
    // query heads of the group, with K/V stored once per K/V head (no repeat_kv copy).
    EXPECT_EQ(kvHeads * tiles, 40);
  }
}

}  // namespace
}  // namespace attn::gpu
