// Masks through the engine: weights exactly 0 where masked, rows summing to 1
// elsewhere, fully masked rows flagged; and PyTorch's nn.MultiheadAttention
// (tests/scripts/gen_mask_fixtures.py) reproduced within 1e-5.
#include <gtest/gtest.h>

#include <map>

#include "attn/attn.h"
#include "attn/io/npy_reader.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

const std::vector<std::string> kTokens = {"[PAD]", "the", "cat", "sat", "on", "the",
                                          "mat", "and", "slept", ".", "[PAD]", "[PAD]"};

Result<AttentionResult> runMasked(const std::string& maskSpec, std::vector<std::string> keys = {}) {
  auto mask = Mask::parse(maskSpec);
  if (!mask) return mask.error();
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  spec.mask = *mask;
  spec.seed = 5;
  return runAttention(inputFromTokens(kTokens, spec.dModel, spec.seed, std::move(keys)), spec);
}

TEST(MaskEngine, WeightsAreZeroExactlyWhereMaskedAndRowsSumToOne) {
  for (const char* s :
       {"none", "causal", "padding", "padding:7", "window:2", "causal+window:3", "dilated:2,2", "global:1,6",
        "global:0,5+window:2", "block:4", "random:0.3,11", "window:1+global:1+random:0.2,3", "causal+padding",
        "block:3+padding", "global:4+window:1+padding+causal", "padding:0"}) {
    auto res = runMasked(s);
    ASSERT_TRUE(res.ok()) << s << ": " << res.error().message;
    const int n = static_cast<int>(kTokens.size());
    // An independent reading of which cells the spec keeps: the parsed mask
    // with pad positions removed by hand where "padding" reads tokens.
    const Mask parsed = *Mask::parse(s);
    const bool tokenPadding = std::string(s).find("padding") != std::string::npos &&
                              std::string(s).find("padding:") == std::string::npos;
    std::vector<int> expectedFlagged;
    for (int i = 0; i < n; ++i) {
      int kept = 0;
      for (int j = 0; j < n; ++j) {
        const bool keep = parsed.allowed(i, j) && !(tokenPadding && isPadToken(kTokens[j]));
        ASSERT_EQ(res->mask.allowed(i, j), keep) << s << " (" << i << "," << j << ")";
        kept += keep;
        for (const auto& h : res->heads) {
          if (!keep) {
            ASSERT_EQ(h.weights(i, j), 0.0f) << s << " (" << i << "," << j << ")";
          } else {
            ASSERT_GT(h.weights(i, j), 0.0f) << s << " (" << i << "," << j << ")";
          }
        }
      }
      if (kept == 0) expectedFlagged.push_back(i);
      for (const auto& h : res->heads) {
        ASSERT_TRUE(h.weights.row(i).allFinite()) << s;
        if (kept > 0) {
          EXPECT_NEAR(h.weights.row(i).sum(), 1.0f, 1e-5f) << s << " row " << i;
        }
      }
    }
    for (const auto& h : res->heads) EXPECT_EQ(h.fullyMaskedRows, expectedFlagged) << s;
    EXPECT_EQ(res->warnings.empty(), expectedFlagged.empty()) << s;
  }
}

TEST(MaskEngine, FullyMaskedRowsAreFlaggedNotNaN) {
  // Row 0 is a [PAD] key's own query: causal+padding leaves it nothing.
  auto res = runMasked("causal+padding");
  ASSERT_TRUE(res.ok());
  for (const auto& h : res->heads) {
    EXPECT_EQ(h.fullyMaskedRows, std::vector<int>{0});
    EXPECT_EQ(h.weights.row(0).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_TRUE(h.output.allFinite());
    EXPECT_TRUE(h.entropy.allFinite());
  }
  ASSERT_FALSE(res->warnings.empty());
}

TEST(MaskEngine, BadMasksAreClearErrors) {
  auto global = runMasked("global:0,12");
  ASSERT_FALSE(global.ok());
  EXPECT_NE(global.error().message.find("mask 'global:0,12': global index 12 is past the sequence"),
            std::string::npos);
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  spec.mask = Mask::custom(std::vector<uint8_t>(12 * 11, 1), 12, 11);
  auto custom = runAttention(inputFromTokens(kTokens, 16, 5), spec);
  ASSERT_FALSE(custom.ok());
  EXPECT_NE(custom.error().message.find("custom mask has shape [12, 11] but attention is [12, 12]"),
            std::string::npos);
  // Token padding over projected arrays without tokens: says how to fix it.
  AttentionInput in;
  in.q = {Mat::Random(3, 4)};
  in.k = {Mat::Random(3, 4)};
  in.v = {Mat::Random(3, 4)};
  spec.mask = *Mask::parse("padding");
  auto pad = runAttention(in, spec);
  ASSERT_FALSE(pad.ok());
  EXPECT_NE(pad.error().message.find("padding:LEN"), std::string::npos);
}

TEST(MaskEngine, CrossAttentionPaddingReadsKeyTokens) {
  auto res = runMasked("padding", {"a", "b", "<pad>", "c", "[PAD]"});
  ASSERT_TRUE(res.ok()) << res.error().message;
  for (const auto& h : res->heads) {
    ASSERT_EQ(h.weights.cols(), 5);
    EXPECT_EQ(h.weights.col(2).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_EQ(h.weights.col(4).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_GT(h.weights.col(0).minCoeff(), 0.0f);  // the query [PAD] tokens still attend
  }
}

// --- PyTorch fixtures -------------------------------------------------------

std::map<std::string, NpyArray> loadFixture(const std::string& name) {
  std::map<std::string, NpyArray> out;
  auto arrays = readNpzFile(std::string(ATTN_FIXTURE_DIR) + "/masks/" + name + ".npz");
  EXPECT_TRUE(arrays.ok()) << (arrays.ok() ? "" : arrays.error().message);
  if (arrays.ok())
    for (auto& a : *arrays) out[a.name] = std::move(a);
  return out;
}

Mat toMat(const NpyArray& a, int64_t offset = 0) {
  const int64_t rows = a.shape[a.shape.size() - 2], cols = a.shape.back();
  Mat m(rows, cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) m(i, j) = a.values.data.data()[offset + i * cols + j];
  return m;
}

void expectMatchesTorch(const std::string& fixture, const std::string& maskSpec,
                        std::vector<std::string> queryTokens, std::vector<std::string> keyTokens) {
  SCOPED_TRACE(fixture + " with mask " + maskSpec);
  auto f = loadFixture(fixture);
  ASSERT_TRUE(f.count("weights") && f.count("keep"));
  AttentionInput in;
  in.x = toMat(f["x"]);
  if (f.count("x_kv")) in.xKv = toMat(f["x_kv"]);
  in.wQ = toMat(f["w_q"]);
  in.wK = toMat(f["w_k"]);
  in.wV = toMat(f["w_v"]);
  in.wO = toMat(f["w_o"]);
  in.queryTokens = std::move(queryTokens);
  in.keyTokens = std::move(keyTokens);
  const int nq = static_cast<int>(in.x.rows());
  const int nk = static_cast<int>(in.xKv.size() > 0 ? in.xKv.rows() : nq);
  AttentionSpec spec;
  spec.dModel = static_cast<int>(in.x.cols());
  spec.heads = static_cast<int>(f["weights"].shape[0]);
  auto mask = Mask::parse(maskSpec);
  ASSERT_TRUE(mask.ok());
  spec.mask = *mask;
  if (spec.mask.needsCustomData()) {
    std::vector<uint8_t> keep(f["keep"].values.data.data(), f["keep"].values.data.data() + nq * nk);
    spec.mask = spec.mask.withCustom(std::move(keep), nq, nk);
  }
  auto res = runAttention(in, spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  // Our mask keeps exactly the cells PyTorch's masks keep.
  const Mat keep = toMat(f["keep"]);
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nk; ++j) ASSERT_EQ(res->mask.allowed(i, j), keep(i, j) != 0.0f) << i << "," << j;
  for (int h = 0; h < spec.heads; ++h) {
    const Mat expected = toMat(f["weights"], int64_t{h} * nq * nk);
    EXPECT_MATRIX_NEAR(res->heads[h].weights, expected, 1e-5);
    for (int i = 0; i < nq; ++i)
      for (int j = 0; j < nk; ++j)
        if (keep(i, j) == 0.0f) { ASSERT_EQ(res->heads[h].weights(i, j), 0.0f); }
  }
  EXPECT_MATRIX_NEAR(res->output, toMat(f["output"]), 1e-5);
}

const std::vector<std::string> kSix = {"a", "b", "c", "d", "[PAD]", "[PAD]"};

TEST(MaskTorchFixtures, CausalMatchesAttnMask) { expectMatchesTorch("causal", "causal", {}, {}); }

TEST(MaskTorchFixtures, PaddingMatchesKeyPaddingMask) {
  expectMatchesTorch("padding", "padding:4", {}, {});
  expectMatchesTorch("padding", "padding", kSix, {});
}

TEST(MaskTorchFixtures, CausalPlusPaddingMatchesBothMasks) {
  expectMatchesTorch("causal_padding", "causal+padding", kSix, {});
  expectMatchesTorch("causal_padding", "padding:4+causal", {}, {});
}

TEST(MaskTorchFixtures, CrossAttentionPadding) {
  expectMatchesTorch("cross_padding", "padding", {"w", "x", "y", "z"},
                     {"k0", "k1", "k2", "k3", "<pad>", "<pad>", "<pad>"});
  expectMatchesTorch("cross_padding", "padding:4", {}, {});
}

TEST(MaskTorchFixtures, CustomBoolMask) { expectMatchesTorch("custom", "custom", {}, {}); }

}  // namespace
}  // namespace attn
