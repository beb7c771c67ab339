// T5 specifics on the random t5 (relu, tied lm_head, spiece.model) and flan_t5 (gated-gelu,
// untied lm_head, tokenizer.json) folders of tests/scripts/gen_seq2seq_fixtures.py: the
// relative position buckets against the PyTorch port of T5Attention._relative_position_bucket
// (relative positions -300..300) and against values worked out by hand, the settings read
// from the folders, and broken folders (a missing relative_attention_bias, a feed_forward_proj
// that is not one, buckets the bucket function cannot use): one message naming the file.
// The maps, logits and greedy ids are checked in seq2seq_reference_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/models/safetensors_mmap.h"
#include "attn/models/seq2seq/relative_position.h"
#include "attn/models/seq2seq/seq2seq_model.h"
#include "model_fixtures.h"

namespace attn::models::t5test {
namespace {

namespace fs = std::filesystem;
using attn::test::loadNpz;
using attn::test::modelDir;
using nlohmann::json;

TEST(T5Buckets, MatchThePyTorchBucketFunctionOverSixHundredPositions) {
  for (const std::string name : {"t5", "flan_t5"}) {
    SCOPED_TRACE(name);
    std::ifstream in(modelDir(name) + "/config.json");
    const json cfg = json::parse(in);
    const int nb = cfg["relative_attention_num_buckets"], md = cfg["relative_attention_max_distance"];
    auto ref = loadNpz(modelDir(name) + "/reference.npz");
    const auto& enc = ref.at("buckets_encoder").values.data;
    const auto& dec = ref.at("buckets_decoder").values.data;
    ASSERT_EQ(enc.size(), 601u);
    int mismatches = 0;
    for (int r = -300; r <= 300; ++r) {
      const size_t i = static_cast<size_t>(r + 300);
      mismatches += relativePositionBucket(r, true, nb, md) != static_cast<int>(enc[i]);
      mismatches += relativePositionBucket(r, false, nb, md) != static_cast<int>(dec[i]);
    }
    EXPECT_EQ(mismatches, 0);
  }
}

TEST(T5Buckets, HandWorkedValuesWithT5sDefaults) {
  // 32 buckets, max distance 128. Encoder: 16 per side, exact below 8, then
  // 8 + floor(log(n / 8) / log(16) * 8), at most 15; keys to the right add 16.
  EXPECT_EQ(relativePositionBucket(0, true, 32, 128), 0);
  EXPECT_EQ(relativePositionBucket(-3, true, 32, 128), 3);
  EXPECT_EQ(relativePositionBucket(3, true, 32, 128), 19);
  EXPECT_EQ(relativePositionBucket(-8, true, 32, 128), 8);
  EXPECT_EQ(relativePositionBucket(-12, true, 32, 128), 9);   // log(1.5) / log(16) * 8 = 1.17
  EXPECT_EQ(relativePositionBucket(-40, true, 32, 128), 12);  // log(5) / log(16) * 8 = 4.64
  EXPECT_EQ(relativePositionBucket(1000, true, 32, 128), 31);
  // Decoder: the future is distance 0; exact below 16, then 16 + floor(log(n / 16) / log(8) * 16).
  EXPECT_EQ(relativePositionBucket(5, false, 32, 128), 0);
  EXPECT_EQ(relativePositionBucket(-15, false, 32, 128), 15);
  EXPECT_EQ(relativePositionBucket(-16, false, 32, 128), 16);
  EXPECT_EQ(relativePositionBucket(-32, false, 32, 128), 21);  // log 2 / log 8 * 16 = 5.33
  EXPECT_EQ(relativePositionBucket(-127, false, 32, 128), 31);
  EXPECT_EQ(relativePositionBucket(-5000, false, 32, 128), 31);
}

TEST(T5Buckets, BiasRowsFollowTheQueryPosition) {
  const float table[4 * 2] = {0, 10, 1, 11, 2, 12, 3, 13};  // [buckets 4, heads 2]
  WeightTensor t;
  t.data = table, t.rows = 4, t.cols = 2;
  std::vector<Mat> bias;
  // 4 causal buckets, exact below 2: distance 0 -> 0, 1 -> 1, 2 -> 2 + floor(log 1 ...) = 2.
  relativePositionBias(t, 2, 1, 3, false, 8, bias);  // one query at position 2 over keys 0..2
  ASSERT_EQ(bias.size(), 2u);
  EXPECT_EQ(bias[0](0, 0), 2.0f);
  EXPECT_EQ(bias[0](0, 1), 1.0f);
  EXPECT_EQ(bias[0](0, 2), 0.0f);
  EXPECT_EQ(bias[1](0, 0), 12.0f);
}

TEST(T5Folders, SettingsFromConfigAndGenerationConfig) {
  auto t5 = Seq2SeqModel::open(modelDir("t5"));
  ASSERT_TRUE(t5.ok()) << t5.error().message;
  const Seq2SeqInfo& i = (*t5)->info();
  EXPECT_EQ(i.modelType, "t5");
  EXPECT_EQ(i.encoderLayers, 2);
  EXPECT_EQ(i.decoderLayers, 3);  // num_decoder_layers
  EXPECT_EQ(i.generation.decoderStartTokenId, 0);
  EXPECT_EQ(i.generation.eosTokenId, 1);
  EXPECT_NE(i.tokenizerKind.find("spiece.model"), std::string::npos) << i.tokenizerKind;
  auto src = (*t5)->encode("The cat", "source");
  ASSERT_TRUE(src.ok());
  EXPECT_EQ(src->ids.back(), 1);  // </s> appended, as T5Tokenizer does
  auto flan = Seq2SeqModel::open(modelDir("flan_t5"));
  ASSERT_TRUE(flan.ok()) << flan.error().message;
  EXPECT_EQ((*flan)->info().modelType, "t5");
  const std::string kind = (*flan)->info().tokenizerKind;  // tokenizer.json's Unigram, not spiece.model
  EXPECT_NE(kind.find("Unigram"), std::string::npos) << kind;
  EXPECT_EQ(kind.find("spiece.model"), std::string::npos) << kind;
}

/// A copy of a fixture folder, removed at the end of the test.
class T5Broken : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("attn_t5_broken_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::copy(modelDir("flan_t5"), root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string openError() {
    auto m = Seq2SeqModel::open(root_.string());
    return m ? "(opened)" : m.error().message;
  }
  void editConfig(const std::function<void(json&)>& edit) {
    std::ifstream in(root_ / "config.json");
    json c = json::parse(in);
    edit(c);
    std::ofstream(root_ / "config.json", std::ios::trunc) << c.dump(2);
  }
  fs::path root_;
};

TEST_F(T5Broken, MissingRelativeAttentionBiasNamesTheTensorAndTheFile) {
  const fs::path st = root_ / "model.safetensors";
  std::string data;
  json header = json::object();
  {
    auto f = SafetensorsFile::open(st.string());
    ASSERT_TRUE(f.ok()) << f.error().message;
    for (const auto& e : (*f)->entries()) {
      if (e.name == "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight") continue;
      const std::string bytes((*f)->bytes(e));
      header[e.name] = {{"dtype", e.dtype},
                        {"shape", e.shape},
                        {"data_offsets", {data.size(), data.size() + bytes.size()}}};
      data += bytes;
    }
  }
  const std::string h = header.dump();
  std::string len(8, '\0');
  for (int i = 0; i < 8; ++i) len[static_cast<size_t>(i)] = static_cast<char>((h.size() >> (8 * i)) & 0xFF);
  std::ofstream(st, std::ios::binary | std::ios::trunc) << len << h << data;
  const std::string e = openError();
  EXPECT_NE(e.find("model.safetensors: tensor "
                   "'decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight' is missing"),
            std::string::npos)
      << e;
}

TEST_F(T5Broken, FeedForwardProjThatIsNotOneIsRefused) {
  editConfig([](json& c) { c["feed_forward_proj"] = "gated-softplus-x"; });
  EXPECT_EQ(openError(), (root_ / "config.json").string() +
                             ": feed_forward_proj 'gated-softplus-x' is not supported (relu, gelu, gelu_new, "
                             "silu, each optionally as gated-ACT, e.g. gated-gelu)");
  editConfig([](json& c) { c["feed_forward_proj"] = 7; });
  EXPECT_EQ(openError(), (root_ / "config.json").string() + ": 'feed_forward_proj' must be a string");
}

TEST_F(T5Broken, BucketsTheBucketFunctionCannotUseAreRefused) {
  editConfig([](json& c) { c["relative_attention_max_distance"] = 16; });  // 32 buckets: log(16 / 16)
  const std::string e = openError();
  EXPECT_NE(
      e.find("relative_attention_max_distance 16 must exceed half of relative_attention_num_buckets 32"),
      std::string::npos)
      << e;
  editConfig([](json& c) {
    c["relative_attention_max_distance"] = 128;
    c["d_kv"] = 8;  // q [32, 64] in the file
  });
  const std::string shape = openError();
  EXPECT_NE(shape.find("has shape [64, 64] but config.json needs [32, 64]"), std::string::npos) << shape;
}

TEST_F(T5Broken, AFolderWithoutGenerationConfigUsesT5sDefaults) {
  fs::remove(root_ / "generation_config.json");
  editConfig([](json& c) {
    c.erase("decoder_start_token_id");
    c.erase("eos_token_id");
    c.erase("max_length");
  });
  auto m = Seq2SeqModel::open(root_.string());
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ((*m)->info().generation.decoderStartTokenId, 0);  // T5Config: the pad token
  EXPECT_EQ((*m)->info().generation.eosTokenId, 1);
  EXPECT_EQ((*m)->info().generation.maxLength, 20);
}

TEST_F(T5Broken, BeamSettingsTheSearchDoesNotRunAreRefused) {
  const fs::path gen = root_ / "generation_config.json";
  std::ofstream(gen, std::ios::trunc) << R"({"decoder_start_token_id": 0, "early_stopping": "never"})";
  EXPECT_EQ(openError(),
            gen.string() + ": 'early_stopping' must be true or false (\"never\" is not supported)");
  std::ofstream(gen, std::ios::trunc)
      << R"({"decoder_start_token_id": 0, "num_beams": 9, "length_penalty": 0.5})";
  auto m = Seq2SeqModel::open(root_.string());
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ((*m)->info().generation.lengthPenalty, 0.5);
  auto src = (*m)->encode("The cat", "source");
  ASSERT_TRUE(src.ok());
  auto run = (*m)->generate(*src, GenerateOptions{});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().message,
            "9 beams (num_beams in " + gen.string() + "): beam search takes 1 to 8; choose with --beam");
  GenerateOptions two;
  two.beams = 2;  // the option over the config
  EXPECT_TRUE((*m)->generate(*src, two).ok());
}

}  // namespace
}  // namespace attn::models::t5test
