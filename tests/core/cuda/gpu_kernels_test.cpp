// The CUDA kernels' code (core/attn/cuda/flash_block.h, mask_device.h) run on
// the CPU, block by block and thread by thread, against the CPU engine's own
// kernels: the index arithmetic, tile skipping, online softmax and masks the
// GPU runs are checked here on every machine, GPU or not.
#include <gtest/gtest.h>

#include <random>

#include "attn/cpu/tiled_attention.h"
#include "attn/cuda/flash_block.h"
#include "attn/cuda/mask_view.h"
#include "attn/variants/precision.h"
#include "emulated_device.h"

namespace attn::gpu {
namespace {

constexpr int kGpuNq = 37, kGpuNk = 41;

Mask boundGpuMask(const std::string& spec, int nq, int nk) {
  std::vector<std::string> keys(static_cast<size_t>(nk), "w");
  keys[static_cast<size_t>(nk - 1)] = keys[static_cast<size_t>(nk - 2)] = "[PAD]";
  if (spec == "custom") {
    std::vector<uint8_t> keep(static_cast<size_t>(nq) * nk);
    for (size_t c = 0; c < keep.size(); ++c) keep[c] = (c * 7 + c / 5) % 3 != 0;
    for (int j = 0; j < nk; ++j) keep[static_cast<size_t>(5) * nk + j] = 0;  // row 5 sees nothing
    auto m = Mask::custom(std::move(keep), nq, nk).bind(nq, nk, keys);
    EXPECT_TRUE(m.ok());
    return *m;
  }
  auto m = Mask::parse(spec);
  EXPECT_TRUE(m.ok()) << spec;
  auto b = m->bind(nq, nk, keys);
  EXPECT_TRUE(b.ok()) << spec << ": " << (b ? "" : b.error().message);
  return *b;
}

const std::vector<std::string> kGpuMaskSpecs = {
    "none", "causal", "window:3", "causal+window:4", "dilated:2,3", "global:0,5,40", "block:6",
    "random:0.3,7", "window:3+global:0+random:0.1,7", "padding", "padding:30+causal", "window2d:1,7",
    "custom"};

TEST(GpuMaskView, EveryMaskFamilyAgreesWithMaskAllowedCellByCell) {
  for (const auto& spec : kGpuMaskSpecs) {
    const Mask mask = spec == "none" ? Mask() : boundGpuMask(spec, kGpuNq, kGpuNk);
    auto view = hostMaskView(mask);
    ASSERT_TRUE(view.ok()) << spec;
    int allowed = 0;
    for (int i = 0; i < kGpuNq; ++i)
      for (int j = 0; j < kGpuNk; ++j) {
        ASSERT_EQ(maskAllowed(*view, i, j), mask.allowed(i, j)) << spec << " at " << i << "," << j;
        allowed += mask.allowed(i, j);
      }
    if (spec != "none") {
      EXPECT_LT(allowed, kGpuNq * kGpuNk) << spec << " masks nothing: a weak case";
    }
  }
}

TEST(GpuMaskView, TooManyTermsIsRefusedWithAReason) {
  std::string spec = "window:1";
  for (int t = 0; t < kMaxMaskTerms; ++t) spec += "+block:" + std::to_string(t + 2);
  auto mask = Mask::parse(spec);
  ASSERT_TRUE(mask.ok());
  auto view = hostMaskView(*mask);
  ASSERT_FALSE(view.ok());
  EXPECT_NE(view.error().message.find("at most 16"), std::string::npos) << view.error().message;
}

TEST(GpuTilePlan, PicksTheLargestTileThatFitsAndLaysSharedMemoryOutWithoutOverlap) {
  EXPECT_EQ(chooseFlashTile(64, 64, 99 * 1024).br, 64);
  EXPECT_EQ(chooseFlashTile(128, 128, 99 * 1024).br, 32);
  EXPECT_EQ(chooseFlashTile(128, 128, 48 * 1024).br, 16);
  EXPECT_FALSE(chooseFlashTile(4096, 4096, 48 * 1024).ok);
  for (int dk : {1, 7, 64, 128})
    for (int dv : {1, 9, 64}) {
      const TilePlan plan = chooseFlashTile(dk, dv, 227 * 1024);
      ASSERT_TRUE(plan.ok);
      EXPECT_EQ(plan.threads % 32, 0);
      std::vector<double> buf((plan.sharedBytes + 7) / 8);
      const FlashShared sh = flashSharedLayout(buf.data(), plan.br, plan.bc, dk, dv);
      auto* begin = reinterpret_cast<char*>(buf.data());
      // Each array starts where the previous one ends; the last ends at sharedBytes.
      EXPECT_EQ(reinterpret_cast<char*>(sh.t), reinterpret_cast<char*>(sh.l + plan.br));
      EXPECT_EQ(reinterpret_cast<char*>(sh.m), reinterpret_cast<char*>(sh.t + plan.br));
      EXPECT_EQ(sh.q, sh.alpha + plan.br);
      EXPECT_EQ(sh.k, sh.q + plan.br * dk);
      EXPECT_EQ(sh.v, sh.k + plan.bc * (dk + 1));  // key rows padded by one float
      EXPECT_EQ(sh.s, sh.v + plan.bc * dv);
      EXPECT_EQ(sh.o, sh.s + plan.br * (plan.bc + 1));  // score rows too
      EXPECT_EQ(reinterpret_cast<char*>(sh.o + plan.br * dv) - begin, static_cast<std::ptrdiff_t>(plan.sharedBytes));
    }
}

Mat randomGpuMat(int rows, int cols, std::mt19937& rng, float scale = 1.0f) {
  std::normal_distribution<float> nd(0.0f, scale);
  Mat m(rows, cols);
  for (Eigen::Index c = 0; c < m.size(); ++c) m.data()[c] = nd(rng);
  return m;
}

// A launch's shape, tiles and output arrays ([heads, nq, dv] outputs, [heads,
// nq] row results, sized here; outputs start at -7 so unwritten cells show).
FlashParams flashShape(int heads, int nq, int nk, int dk, int dv, const TilePlan& plan,
                       const std::vector<uint8_t>& tiles, std::vector<float>& out, std::vector<float>& ent,
                       std::vector<float>& mx, std::vector<float>& sum) {
  out.assign(static_cast<size_t>(heads) * nq * dv, -7.0f);
  for (auto* v : {&ent, &mx, &sum}) v->assign(static_cast<size_t>(heads) * nq, 0.0f);
  FlashParams p;
  p.heads = heads;
  p.nq = nq;
  p.nk = nk;
  p.dk = dk;
  p.dv = dv;
  p.tiles = tiles.empty() ? nullptr : tiles.data();
  p.br = plan.br;
  p.bc = plan.bc;
  p.out = out.data();
  p.entropy = ent.data();
  p.rowMax = mx.data();
  p.rowSum = sum.data();
  return p;
}

struct FlashCase {
  std::string mask;
  bool bias;
  int nq, nk, dk, dv;
  size_t shared;  // the device's shared-memory limit: picks the tile
};

void PrintTo(const FlashCase& c, std::ostream* os) {
  *os << "mask " << c.mask << (c.bias ? " + bias, " : ", ") << c.nq << " x " << c.nk << ", d_k " << c.dk
      << ", d_v " << c.dv << ", " << c.shared / 1024 << " KiB shared";
}

std::string flashCaseName(const ::testing::TestParamInfo<FlashCase>& info) {
  std::string m = info.param.mask;
  for (char& c : m)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return m + (info.param.bias ? "_bias_" : "_") + std::to_string(info.param.nq) + "x" +
         std::to_string(info.param.nk) + "_d" + std::to_string(info.param.dk) + "_s" +
         std::to_string(info.param.shared / 1024);
}

class GpuFlashEmulation : public ::testing::TestWithParam<FlashCase> {};

// Two heads packed one after the other, as the backend uploads them, against
// the CPU's flashAttention head by head.
TEST_P(GpuFlashEmulation, MatchesTheCpuFlashKernelHeadByHead) {
  const FlashCase& c = GetParam();
  std::mt19937 rng(11);
  const Mask mask = c.mask == "none" ? Mask() : boundGpuMask(c.mask, c.nq, c.nk);
  const float scale = 0.3f;
  std::vector<Mat> q, k, v, bias;
  std::vector<float> pq, pk, pv, pb;
  for (int h = 0; h < 2; ++h) {
    q.push_back(randomGpuMat(c.nq, c.dk, rng, 2.0f));
    k.push_back(randomGpuMat(c.nk, c.dk, rng));
    v.push_back(randomGpuMat(c.nk, c.dv, rng));
    bias.push_back(randomGpuMat(c.nq, c.nk, rng, 0.5f));
    pq.insert(pq.end(), q[h].data(), q[h].data() + q[h].size());
    pk.insert(pk.end(), k[h].data(), k[h].data() + k[h].size());
    pv.insert(pv.end(), v[h].data(), v[h].data() + v[h].size());
    pb.insert(pb.end(), bias[h].data(), bias[h].data() + bias[h].size());
  }
  const TilePlan plan = chooseFlashTile(c.dk, c.dv, c.shared);
  ASSERT_TRUE(plan.ok);
  const auto tiles = tileKinds(mask, c.nq, c.nk, plan.br, plan.bc);
  std::vector<float> out, ent, mx, sum;
  FlashParams p = flashShape(2, c.nq, c.nk, c.dk, c.dv, plan, tiles, out, ent, mx, sum);
  p.scale = scale;
  p.q = pq.data();
  p.k = pk.data();
  p.v = pv.data();
  p.bias = c.bias ? pb.data() : nullptr;
  auto view = hostMaskView(mask);
  ASSERT_TRUE(view.ok());
  p.mask = *view;
  emulateFlash(p, plan);

  for (int h = 0; h < 2; ++h) {
    HeadView in;
    in.q = &q[h];
    in.k = &k[h];
    in.v = &v[h];
    in.scale = scale;
    in.bias = c.bias ? &bias[h] : nullptr;
    in.mask = mask.isNone() ? nullptr : &mask;
    TileScratch scratch;
    Mat cpuOut;
    RowStats st;
    flashAttention(in, TileConfig{}, scratch, cpuOut, st);
    int fully = 0;
    for (int i = 0; i < c.nq; ++i) {
      const size_t r = static_cast<size_t>(h) * c.nq + i;
      EXPECT_NEAR(ent[r], st.entropy[i], 2e-5) << "head " << h << " row " << i;
      if (std::isinf(st.max[i])) {
        ++fully;
        EXPECT_TRUE(std::isinf(mx[r]) && mx[r] < 0) << "row " << i << " is fully masked on the CPU";
        EXPECT_EQ(sum[r], 0.0f);
      } else {
        EXPECT_NEAR(mx[r], st.max[i], 1e-5 * (1 + std::abs(st.max[i]))) << "row " << i;  // dot products summed in another order
        EXPECT_NEAR(sum[r], st.sum[i], 1e-5 * st.sum[i]) << "row " << i;
      }
      for (int d = 0; d < c.dv; ++d)
        EXPECT_NEAR(out[r * c.dv + d], cpuOut(i, d), 1e-5 * (1 + std::abs(cpuOut(i, d))))
            << "head " << h << " out(" << i << "," << d << ")";
    }
    EXPECT_EQ(fully, static_cast<int>(st.fullyMaskedRows.size()));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GpuFlashEmulation,
    ::testing::Values(FlashCase{"none", false, 37, 41, 8, 5, 99 * 1024},
                      FlashCase{"causal", true, 37, 41, 8, 5, 99 * 1024},
                      FlashCase{"causal", false, 150, 150, 16, 16, 48 * 1024},
                      FlashCase{"window:3+global:0+random:0.1,7", true, 130, 97, 12, 6, 20 * 1024},
                      FlashCase{"padding:30+causal", false, 70, 41, 4, 3, 12 * 1024},
                      FlashCase{"custom", true, 37, 41, 8, 8, 99 * 1024},
                      FlashCase{"dilated:2,3", false, 100, 100, 32, 16, 99 * 1024},
                      FlashCase{"window2d:1,7", false, 49, 49, 8, 8, 48 * 1024},
                      FlashCase{"block:6", true, 65, 65, 64, 64, 227 * 1024}),
    flashCaseName);

// Counts the phases a block runs: 1 (load q) + 4 per computed tile + 1 (finish).
struct CountingExec {
  HostExec inner;
  int phases = 0;
  int threads() const { return inner.threads(); }
  template <class F>
  void each(F&& f) {
    ++phases;
    inner.each(f);
  }
};

TEST(GpuFlashEmulation, SkipsTheTilesTheMaskClassifiesAllMasked) {
  const int n = 256;
  const Mask mask = boundGpuMask("causal+window:20", n, n);
  std::mt19937 rng(3);
  const Mat q = randomGpuMat(n, 4, rng), k = randomGpuMat(n, 4, rng), v = randomGpuMat(n, 4, rng);
  const TilePlan plan = chooseFlashTile(4, 4, 48 * 1024);
  const auto tiles = tileKinds(mask, n, n, plan.br, plan.bc);
  std::vector<float> out, ent, mx, sum;
  FlashParams p = flashShape(1, n, n, 4, 4, plan, tiles, out, ent, mx, sum);
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  p.mask = *hostMaskView(mask);
  std::vector<double> shared(plan.sharedBytes / 8 + 1);
  int phases = 0;
  for (int qb = 0; qb < numBlocks(n, plan.br); ++qb) {
    CountingExec ex{HostExec{plan.threads}};
    flashBlock(p, flashSharedLayout(shared.data(), plan.br, plan.bc, 4, 4), 0, qb, ex);
    phases += ex.phases;
  }
  const BlockSchedule sched = blockSchedule(mask, n, n, TileConfig{plan.br, plan.bc});
  const int blocks = numBlocks(n, plan.br);
  EXPECT_EQ(phases, 2 * blocks + 4 * sched.computedTiles());
  EXPECT_LT(sched.computedTiles(), blocks * blocks / 2) << "a band mask should skip most tiles";
}

TEST(GpuSoftmaxRow, MatchesTheNaivePathsSoftmaxWithBiasAndMask) {
  const Mask mask = boundGpuMask("custom", kGpuNq, kGpuNk);
  std::mt19937 rng(5);
  const Mat raw = randomGpuMat(kGpuNq, kGpuNk, rng, 3.0f), bias = randomGpuMat(kGpuNq, kGpuNk, rng);
  const float scale = 0.7f;
  Mat logits = raw * scale + bias;
  for (int i = 0; i < kGpuNq; ++i)
    for (int j = 0; j < kGpuNk; ++j)
      if (!mask.allowed(i, j)) logits(i, j) = -std::numeric_limits<float>::infinity();
  RowStats st;
  softmaxRowsInPlace(logits, st);

  std::vector<float> w(kGpuNq * kGpuNk, -1.0f), ent(kGpuNq), mx(kGpuNq), sum(kGpuNq);
  SoftmaxParams p;
  p.heads = 1;
  p.nq = kGpuNq;
  p.nk = kGpuNk;
  p.scale = scale;
  p.raw = raw.data();
  p.bias = bias.data();
  p.mask = *hostMaskView(mask);
  p.weights = w.data();
  p.entropy = ent.data();
  p.rowMax = mx.data();
  p.rowSum = sum.data();
  for (int i = 0; i < kGpuNq; ++i) softmaxRow(p, 0, i);
  for (int i = 0; i < kGpuNq; ++i) {
    EXPECT_NEAR(ent[i], st.entropy[i], 1e-5) << i;
    for (int j = 0; j < kGpuNk; ++j) {
      if (!mask.allowed(i, j)) {
        ASSERT_EQ(w[i * kGpuNk + j], 0.0f) << "masked weight not exactly 0";
      }
      EXPECT_NEAR(w[i * kGpuNk + j], logits(i, j), 1e-6) << i << "," << j;
    }
  }
  EXPECT_EQ(sum[5], 0.0f) << "row 5 of the custom mask keeps no key";
  ASSERT_EQ(st.fullyMaskedRows, std::vector<int>{5});
}

TEST(GpuWeightCell, MatchesTheCpuBlockedWeightsAndScaledLogits) {
  const int nq = 45, nk = 52, dk = 6, dv = 3;
  const Mask mask = boundGpuMask("window:3+global:0+random:0.1,7", nq, nk);
  std::mt19937 rng(8);
  const Mat q = randomGpuMat(nq, dk, rng, 2.0f), k = randomGpuMat(nk, dk, rng), v = randomGpuMat(nk, dv, rng);
  const Mat bias = randomGpuMat(nq, nk, rng, 0.5f);
  HeadView in;
  in.q = &q;
  in.k = &k;
  in.v = &v;
  in.scale = 0.4f;
  in.bias = &bias;
  in.mask = &mask;
  Mat cpuW, cpuOut, cpuScaled;
  RowStats st;
  blockedAttentionWithWeights(in, TileConfig{}, cpuW, cpuOut, st, 1, &cpuScaled);

  std::vector<float> w(nq * nk), scaled(nq * nk), mx(st.max.data(), st.max.data() + nq),
      sum(st.sum.data(), st.sum.data() + nq);
  WeightsParams p;
  p.f.heads = 1;
  p.f.nq = nq;
  p.f.nk = nk;
  p.f.dk = dk;
  p.f.dv = dv;
  p.f.scale = in.scale;
  p.f.q = q.data();
  p.f.k = k.data();
  p.f.bias = bias.data();
  p.f.mask = *hostMaskView(mask);
  p.f.rowMax = mx.data();
  p.f.rowSum = sum.data();
  p.weights = w.data();
  p.scaledLogits = scaled.data();
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nk; ++j) weightCell(p, 0, i, j);
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nk; ++j) {
      EXPECT_NEAR(scaled[i * nk + j], cpuScaled(i, j), 1e-5 * (1 + std::abs(cpuScaled(i, j))));
      EXPECT_NEAR(w[i * nk + j], cpuW(i, j), 1e-6) << i << "," << j;
      if (!mask.allowed(i, j)) {
        ASSERT_EQ(w[i * nk + j], 0.0f);
      }
    }
}

}  // namespace
}  // namespace attn::gpu

namespace attn::gpu {
namespace {

TEST(GpuHalfBits, DecodingTheEncodedValueGivesThePrecisionVariantsRounding) {
  std::mt19937 rng(4);
  std::vector<float> xs = {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 65520.0f, 1e6f, -1e6f, 6.1e-5f, 5.96e-8f,
                           3.0e-8f, 1e-9f, 0.1f, 1.0009765625f, 1.00048828125f, 3.14159265f};
  std::normal_distribution<float> nd(0.0f, 30.0f);
  for (int i = 0; i < 2000; ++i) xs.push_back(nd(rng) * std::pow(10.0f, static_cast<float>(i % 9) - 6.0f));
  for (float x : xs) {
    const float h = variants::roundToHalf(x), b = variants::roundToBf16(x);
    EXPECT_EQ(halfToFloat(toHalfBits(x)), h) << x;
    EXPECT_EQ(std::signbit(halfToFloat(toHalfBits(x))), std::signbit(h)) << x;
    EXPECT_EQ(bf16ToFloat(toBf16Bits(x)), b) << x;
  }
  EXPECT_EQ(toHalfBits(1.0f), 0x3c00u);
  EXPECT_EQ(toHalfBits(-2.0f), 0xc000u);
  EXPECT_EQ(toHalfBits(65504.0f), 0x7bffu);
  EXPECT_EQ(toHalfBits(1e6f), 0x7c00u);
  EXPECT_EQ(toHalfBits(5.9604645e-8f), 0x0001u);  // the smallest subnormal
  EXPECT_EQ(toBf16Bits(1.0f), 0x3f80u);
}

// The flash kernel reading fp16 / bf16 patterns equals the CPU kernel on the
// inputs rounded to that format: decoding is exact and arithmetic stays fp32.
TEST(GpuFlashEmulation, SixteenBitInputsEqualTheCpuKernelOnRoundedInputs) {
  const int nq = 50, nk = 70, dk = 16, dv = 8;
  const Mask mask = boundGpuMask("causal+window:20", nq, nk);
  std::mt19937 rng(21);
  const Mat q = randomGpuMat(nq, dk, rng, 2.0f), k = randomGpuMat(nk, dk, rng), v = randomGpuMat(nk, dv, rng);
  for (InputType type : {InputType::F16, InputType::BF16}) {
    const bool half = type == InputType::F16;
    auto rounded = [&](const Mat& m) {
      return Mat(m.unaryExpr([&](float x) { return half ? variants::roundToHalf(x) : variants::roundToBf16(x); }));
    };
    auto bits = [&](const Mat& m) {
      std::vector<uint16_t> b(static_cast<size_t>(m.size()));
      for (size_t c = 0; c < b.size(); ++c) b[c] = half ? toHalfBits(m.data()[c]) : toBf16Bits(m.data()[c]);
      return b;
    };
    const Mat qr = rounded(q), kr = rounded(k), vr = rounded(v);
    const auto q16 = bits(q), k16 = bits(k), v16 = bits(v);
    const TilePlan plan = chooseFlashTile(dk, dv, 16 * 1024);
    const auto tiles = tileKinds(mask, nq, nk, plan.br, plan.bc);
    std::vector<float> out, ent, mx, sum;
    FlashParams p = flashShape(1, nq, nk, dk, dv, plan, tiles, out, ent, mx, sum);
    p.scale = 0.25f;
    p.inputs = type;
    p.q16 = q16.data();
    p.k16 = k16.data();
    p.v16 = v16.data();
    p.mask = *hostMaskView(mask);
    emulateFlash(p, plan);
    HeadView in;
    in.q = &qr;
    in.k = &kr;
    in.v = &vr;
    in.scale = 0.25f;
    in.mask = &mask;
    TileScratch scratch;
    Mat cpuOut;
    RowStats st;
    flashAttention(in, TileConfig{}, scratch, cpuOut, st);
    double fromFp32 = 0;
    {
      HeadView full = in;
      full.q = &q;
      full.k = &k;
      full.v = &v;
      Mat o32;
      RowStats s32;
      flashAttention(full, TileConfig{}, scratch, o32, s32);
      fromFp32 = (o32 - cpuOut).cwiseAbs().maxCoeff();
    }
    for (int i = 0; i < nq; ++i) {
      EXPECT_NEAR(ent[i], st.entropy[i], 2e-5);
      for (int d = 0; d < dv; ++d) EXPECT_NEAR(out[i * dv + d], cpuOut(i, d), 1e-5 * (1 + std::abs(cpuOut(i, d))));
    }
    EXPECT_GT(fromFp32, 1e-5) << "rounding the inputs should be visible: a weak case";
  }
}

}  // namespace
}  // namespace attn::gpu
