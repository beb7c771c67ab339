// The input loader against files written by numpy/torch
// (tests/scripts/gen_input_fixtures.py): contract names map onto the engine
// input, precomputed weights, mask and tokens.
#include <gtest/gtest.h>

#include "attn/engine.h"
#include "attn/io/input_file.h"
#include "attn/io/csv_reader.h"
#include "attn/io/safetensors_reader.h"
#include "matrix_matchers.h"
#include "model_fixtures.h"

namespace attn {
namespace {

using attn::test::ioFixture;

TEST(Safetensors, ConvertsF32F16Bf16ToFloat) {
  auto st = readSafetensorsFile(ioFixture("dtypes.safetensors"));
  ASSERT_TRUE(st.ok()) << st.error().message;
  ASSERT_EQ(st->size(), 3u);
  EXPECT_EQ((*st)[0].name, "f32");  // file order (by offset), not JSON key order
  EXPECT_EQ((*st)[1].name, "f16");
  EXPECT_EQ((*st)[2].descr, "BF16");
  // Values after each dtype's rounding, as numpy/torch compute them.
  EXPECT_EQ((*st)[0].values.data, (std::vector<float>{0.0f, 0.25f, -1.5f, 3.0f, 1e-3f, 65504.0f}));
  EXPECT_EQ((*st)[1].values.data, (std::vector<float>{0.0f, 0.25f, -1.5f, 3.0f, 0.0010004043579101562f, 65504.0f}));
  EXPECT_EQ((*st)[2].values.data, (std::vector<float>{0.0f, 0.25f, -1.5f, 3.0f, 0.00099945068359375f, 65536.0f}));
  EXPECT_EQ((*st)[2].shape, (std::vector<int64_t>{2, 3}));
}

TEST(Csv, HeaderRowAndLabelColumnBecomeTokens) {
  auto m = readCsvMatrixFile(ioFixture("attn_tokens.csv"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->columnTokens, (std::vector<std::string>{"the", "a,b", "猫"}));
  EXPECT_EQ(m->rowTokens, (std::vector<std::string>{"the", "a,b", "猫"}));
  Mat want(3, 3);
  want << 0.5f, 0.25f, 0.25f, 1, 0, 0, 0.125f, 0.375f, 0.5f;
  EXPECT_MATRIX_NEAR(m->values, want, 0.0f);

  auto plain = parseCsvMatrix("1.5,-2\n3,4e-1\n", "inline.csv");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->columnTokens.empty());
  EXPECT_TRUE(plain->rowTokens.empty());
  EXPECT_FLOAT_EQ(plain->values(1, 1), 0.4f);
}

TEST(InputFile, ProjectedQkvWithTokensAndMask) {
  auto in = loadInputFile(ioFixture("contract_qkv.npz"));
  ASSERT_TRUE(in.ok()) << in.error().message;
  EXPECT_EQ(in->format, "npz");
  ASSERT_TRUE(in->input.isProjected());
  ASSERT_EQ(in->input.q.size(), 2u);
  EXPECT_EQ(in->input.queryTokens, (std::vector<std::string>{"the", "cat", "sat", "."}));
  ASSERT_EQ(in->maskKeep.size(), 16u);
  EXPECT_EQ(in->maskKeep[1], 0);  // causal: row 0 keeps only key 0
  EXPECT_EQ(in->maskKeep[4], 1);
  EXPECT_FALSE(in->hasAttention());

  AttentionSpec spec;
  ASSERT_TRUE(fitSpecToInput(in->input, spec).ok());
  EXPECT_EQ(spec.heads, 2);
  auto res = runAttention(in->input, spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  // numpy: softmax(q k^T / sqrt(3)) for head 0, row 0 (printed by the generator).
  Mat want(1, 4);
  want << 0.29714834690093994f, 0.20060619711875916f, 0.22127565741539001f, 0.2809698283672333f;
  EXPECT_MATRIX_NEAR(res->heads[0].weights.topRows(1), want, 1e-5f);
}

TEST(InputFile, SafetensorsFeedsTheSameNames) {
  auto st = loadInputFile(ioFixture("contract_qkv.safetensors"));
  auto npz = loadInputFile(ioFixture("contract_qkv.npz"));
  ASSERT_TRUE(st.ok()) << st.error().message;
  ASSERT_TRUE(npz.ok());
  EXPECT_EQ(st->format, "safetensors");
  ASSERT_EQ(st->input.k.size(), 2u);
  EXPECT_MATRIX_NEAR(st->input.q[1], npz->input.q[1], 0.0f);
  EXPECT_MATRIX_NEAR(st->input.k[1], npz->input.k[1], 2e-3f);  // stored as F16
}

TEST(InputFile, PrecomputedLayersWithKeyTokensAndUnknownArrays) {
  auto in = loadInputFile(ioFixture("contract_attn.npz"));
  ASSERT_TRUE(in.ok()) << in.error().message;
  EXPECT_FALSE(in->hasEngineInput());
  ASSERT_EQ(in->attention.numLayers(), 3);
  EXPECT_EQ(in->attention.numHeads(), 2);
  EXPECT_EQ(in->attention.nq(), 4);
  EXPECT_EQ(in->attention.nk(), 5);
  EXPECT_NEAR(in->attention.layers[2][1].row(3).sum(), 1.0f, 1e-5f);
  EXPECT_EQ(in->input.keyTokens.back(), ".");
  ASSERT_EQ(in->warnings.size(), 1u);
  EXPECT_NE(in->warnings[0].find("'extra'"), std::string::npos);
  const auto views = in->views();
  EXPECT_NE(std::find(views.begin(), views.end(), "rollout and flow over 3 layers"), views.end());
  const std::string text = describeInput(*in);
  EXPECT_NE(text.find("precomputed weights: 3 layer(s) x 2 head(s), 4 x 5"), std::string::npos) << text;
  EXPECT_NE(text.find("[3, 2, 4, 5]"), std::string::npos);

  auto res = resultFromPrecomputed(in->attention, 1, in->input.queryTokens, in->input.keyTokens);
  ASSERT_EQ(res.numHeads(), 2);
  EXPECT_MATRIX_NEAR(res.heads[0].weights, in->attention.layers[1][0], 0.0f);
  // Entropy of row 0 by hand: -sum p log p.
  const auto& p = in->attention.layers[1][0];
  float h = 0;
  for (int j = 0; j < p.cols(); ++j) h -= p(0, j) * std::log(p(0, j));
  EXPECT_NEAR(res.heads[0].entropy(0), h, 1e-5f);
}

TEST(InputFile, EmbeddingsWithLoadedProjections) {
  auto in = loadInputFile(ioFixture("contract_x.npz"));
  ASSERT_TRUE(in.ok()) << in.error().message;
  EXPECT_EQ(in->input.x.rows(), 4);
  EXPECT_EQ(in->input.wO.cols(), 8);
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 64;  // adapted to x
  ASSERT_TRUE(fitSpecToInput(in->input, spec).ok());
  EXPECT_EQ(spec.dModel, 8);
  EXPECT_EQ(spec.dK, 4);
  auto res = runAttention(in->input, spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  // Head 1 uses columns 4..7 of x W_q and x W_k.
  const Mat q = in->input.x * in->input.wQ, k = in->input.x * in->input.wK;
  Mat s = q.middleCols(4, 4) * k.middleCols(4, 4).transpose() / 2.0f;
  for (int i = 0; i < s.rows(); ++i) {
    s.row(i) = (s.row(i).array() - s.row(i).maxCoeff()).exp();
    s.row(i) /= s.row(i).sum();
  }
  EXPECT_MATRIX_NEAR(res->heads[1].weights, s, 1e-5f);
  spec.heads = 3;
  EXPECT_FALSE(fitSpecToInput(in->input, spec).ok());
}

TEST(InputFile, CsvAndLoneNpyAreGuessedByContent) {
  auto csv = loadInputFile(ioFixture("attn_tokens.csv"));
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  EXPECT_TRUE(csv->hasAttention());  // rows are probabilities
  EXPECT_EQ(csv->input.keyTokens, (std::vector<std::string>{"the", "a,b", "猫"}));
  auto plain = loadInputFile(ioFixture("plain.csv"));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->input.x.rows(), 2);  // negative values: embeddings
  auto npy = loadInputFile(ioFixture("f4_c.npy"));
  ASSERT_TRUE(npy.ok()) << npy.error().message;
  EXPECT_EQ(npy->arrays[0].name, "x");
}

TEST(InputFile, LeadingBatchAxisOfOneIsDropped) {
  std::vector<NpyArray> arrays(1);
  arrays[0].name = "attn";
  arrays[0].descr = "<f4";
  arrays[0].shape = {1, 2, 3, 2, 2};  // a batch of one in front of [L, H, N, N]
  arrays[0].values.shape = arrays[0].shape;
  arrays[0].values.data.assign(24, 0.5f);
  auto in = inputFromArrays(arrays, "mem.npz");
  ASSERT_TRUE(in.ok()) << in.error().message;
  EXPECT_EQ(in->attention.numLayers(), 2);
  EXPECT_EQ(in->attention.numHeads(), 3);
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

NpyArray numeric(std::string name, std::vector<int64_t> shape, std::vector<float> data) {
  NpyArray a;
  a.name = std::move(name);
  a.descr = "<f4";
  a.shape = shape;
  a.values.shape = std::move(shape);
  a.values.data = std::move(data);
  return a;
}

TEST(InputFile, AdditiveScoreParametersWithDifferentQueryAndKeyWidths) {
  // One head: q [2, 2], k and v [3, 1]; hidden 2. Bahdanau et al. 2015, eq. 6.
  std::vector<NpyArray> arrays{numeric("q", {2, 2}, {1, 0, 0, 1}),
                               numeric("k", {3, 1}, {1, -1, 2}),
                               numeric("v", {3, 1}, {1, 2, 3}),
                               numeric("w_add_q", {2, 2}, {0.5f, 0, 0, 0.5f}),
                               numeric("w_add_k", {1, 2}, {1, -1}),
                               numeric("v_add", {2}, {1, 2}),
                               numeric("b_add", {2}, {0.1f, 0})};
  auto in = inputFromArrays(arrays, "add.npz");
  ASSERT_TRUE(in.ok()) << in.error().message;
  AttentionSpec spec;
  spec.mechanism = Mechanism::Additive;
  ASSERT_TRUE(fitSpecToInput(in->input, spec).ok());
  EXPECT_EQ(spec.hidden, 2);
  auto res = runAttention(in->input, spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  // By hand, row 0 (q = [1, 0]): W_q^T q = [0.5, 0]; key k: W_k^T k = [k, -k]; + b = [0.1, 0].
  Mat want(1, 3);
  for (int j = 0; j < 3; ++j) {
    const float kj = in->input.k[0](j, 0);
    want(0, j) = std::tanh(0.5f + kj + 0.1f) + 2.0f * std::tanh(-kj);
  }
  want = (want.array() - want.maxCoeff()).exp().matrix();
  want /= want.sum();
  EXPECT_MATRIX_NEAR(res->heads[0].weights.topRows(1), want, 1e-5f);
}

TEST(InputFile, ProjectionBiasesMustFitTheirWeights) {
  std::vector<NpyArray> arrays{numeric("x", {2, 2}, {1, 2, 3, 4}), numeric("w_q", {2, 2}, {1, 0, 0, 1}),
                               numeric("b_q", {3}, {0, 0, 0})};
  auto in = inputFromArrays(arrays, "b.npz");
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.error().message, "b.npz: 'w_q' [2, 2] and 'b_q' [3] disagree: 'b_q' needs one entry per column of 'w_q'");
  arrays[2] = numeric("b_q", {2}, {0.5f, 0});
  auto ok = inputFromArrays(arrays, "b.npz");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_FLOAT_EQ(ok->input.bQ(0), 0.5f);
  AttentionSpec spec;
  spec.heads = 1;
  ASSERT_TRUE(fitSpecToInput(ok->input, spec).ok());
  EXPECT_TRUE(spec.projectionBias);
}

}  // namespace
}  // namespace attn
