// Model folders that are wrong in one way each: one message naming the file and
// the mismatch, never a crash. Also the Hugging Face cache layouts, config
// parsing, and the layers' formulas on values computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/models/nn_ops.h"
#include "attn/models/safetensors_mmap.h"
#include "attn/models/transformer_forward.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string fixture(const std::string& name) { return std::string(ATTN_FIXTURE_DIR) + "/models/" + name; }

std::string readAll(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// One tensor of a safetensors file being rewritten.
struct Tensor {
  std::string name, dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};

/// Rewrites `path` with `edit` applied to its tensors (drop one by clearing its name).
void rewriteSafetensors(const fs::path& path, const std::function<void(std::vector<Tensor>&)>& edit) {
  std::vector<Tensor> ts;
  {
    auto f = SafetensorsFile::open(path.string());
    ASSERT_TRUE(f.ok()) << f.error().message;
    for (const auto& e : (*f)->entries()) ts.push_back({e.name, e.dtype, e.shape, std::string((*f)->bytes(e))});
  }
  edit(ts);
  json h = json::object();
  std::string data;
  for (const auto& t : ts) {
    if (t.name.empty()) continue;
    h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
    data += t.bytes;
  }
  const std::string header = h.dump();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << out << header << data;
}

void editConfig(const fs::path& dir, const std::function<void(json&)>& edit) {
  json c = json::parse(readAll(dir / "config.json"));
  edit(c);
  std::ofstream(dir / "config.json", std::ios::trunc) << c.dump(2);
}

class ModelErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("attn_model_errors_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path copyOf(const std::string& name, const std::string& as = "") {
    const fs::path dst = root_ / (as.empty() ? name : as);
    fs::create_directories(dst.parent_path());
    fs::copy(fixture(name), dst, fs::copy_options::recursive);
    return dst;
  }
  static std::string openError(const fs::path& dir) {
    auto m = Model::open(dir.string());
    if (m.ok()) return "(opened)";
    EXPECT_EQ(m.error().message.find('\n'), std::string::npos) << m.error().message;
    return m.error().message;
  }
  fs::path root_;
};

TEST_F(ModelErrors, MissingConfigOrWeights) {
  const fs::path noConfig = copyOf("gpt2", "noconfig");
  fs::remove(noConfig / "config.json");
  EXPECT_EQ(openError(noConfig), (noConfig / "config.json").string() + ": no such file (not a Hugging Face model folder)");
  const fs::path noWeights = copyOf("gpt2", "noweights");
  fs::remove(noWeights / "model.safetensors");
  EXPECT_EQ(openError(noWeights),
            (noWeights / "model.safetensors").string() + ": no such file (nor model.safetensors.index.json)");
  EXPECT_EQ(openError(root_ / "absent"), (root_ / "absent").string() + ": no such folder");
}

TEST_F(ModelErrors, UnsupportedModelTypeNamesConfigAndType) {
  const fs::path dir = copyOf("gpt2");
  editConfig(dir, [](json& c) { c["model_type"] = "t5"; });
  EXPECT_EQ(openError(dir), (dir / "config.json").string() +
                                ": model_type 't5' is an encoder-decoder (translation) model: open it with "
                                "`attnscope-cli translate` or `run --target-text`, not here");
  editConfig(dir, [](json& c) { c["model_type"] = "xlnet"; });
  EXPECT_EQ(openError(dir),
            (dir / "config.json").string() +
                ": model_type 'xlnet' is not supported (gpt2, bert, roberta, xlm-roberta, distilbert, llama, "
                "mistral, qwen2, vit, deit, dinov2, dinov2_with_registers, clip_vision_model, clip (its "
                "vision tower); "
                "encoder-decoder: bart)");
  editConfig(dir, [](json& c) { c["model_type"] = "gpt2", c["n_head"] = 5; });
  EXPECT_EQ(openError(dir), (dir / "config.json").string() + ": n_embd 64 is not a multiple of n_head 5");
  editConfig(dir, [](json& c) { c["n_head"] = "four"; });
  EXPECT_EQ(openError(dir), (dir / "config.json").string() + ": 'n_head' must be an integer, not '\"four\"'");
}

TEST_F(ModelErrors, TensorMissingOrOfTheWrongShape) {
  const fs::path dir = copyOf("gpt2");
  const fs::path st = dir / "model.safetensors";
  rewriteSafetensors(st, [](std::vector<Tensor>& ts) {
    for (auto& t : ts)
      if (t.name == "h.0.attn.c_attn.weight") t.shape = {t.shape[1], t.shape[0]};  // same bytes, transposed shape
  });
  EXPECT_EQ(openError(dir), st.string() + ": tensor 'h.0.attn.c_attn.weight' has shape [192, 64] but config.json "
                                          "needs [64, 192]");
  rewriteSafetensors(st, [](std::vector<Tensor>& ts) {
    for (auto& t : ts) {
      if (t.name == "h.0.attn.c_attn.weight") t.shape = {t.shape[1], t.shape[0]};
      if (t.name == "h.1.mlp.c_fc.bias") t.name.clear();
    }
  });
  EXPECT_EQ(openError(dir), st.string() + ": tensor 'h.1.mlp.c_fc.bias' is missing (config.json: gpt2 with 2 layers, "
                                          "d_model 64)");
  // More layers in the config than in the file.
  const fs::path more = copyOf("llama", "more");
  editConfig(more, [](json& c) { c["num_hidden_layers"] = 3; });
  EXPECT_EQ(openError(more), (more / "model.safetensors").string() +
                                 ": tensor 'model.layers.2.input_layernorm.weight' is missing (config.json: llama "
                                 "with 3 layers, d_model 64)");
}

TEST_F(ModelErrors, UntiedGpt2ReadsItsOwnLmHead) {
  // tie_word_embeddings false (GPT2LMHeadModel with its own lm_head.weight): without the tensor,
  // one message; with it, the logits come from it. Here it is wte with its rows reversed, so the
  // logit of token v equals the tied model's logit of token vocab - 1 - v.
  const fs::path dir = copyOf("gpt2", "untied");
  const fs::path st = dir / "model.safetensors";
  editConfig(dir, [](json& c) { c["tie_word_embeddings"] = false; });
  EXPECT_EQ(openError(dir), st.string() +
                                ": tensor 'lm_head.weight' is missing (config.json: gpt2 with 2 layers, "
                                "d_model 64)");
  rewriteSafetensors(st, [](std::vector<Tensor>& ts) {
    Tensor head;
    for (const auto& t : ts)
      if (t.name == "wte.weight") head = t;
    ASSERT_EQ(head.dtype, "F32");
    const size_t row = static_cast<size_t>(head.shape[1]) * sizeof(float), rows = head.bytes.size() / row;
    std::string reversed;
    for (size_t r = rows; r-- > 0;) reversed += head.bytes.substr(r * row, row);
    head.name = "lm_head.weight";
    head.bytes = reversed;
    ts.push_back(head);
  });
  auto tied = Model::open(fixture("gpt2"));
  auto untied = Model::open(dir.string());
  ASSERT_TRUE(tied.ok()) << tied.error().message;
  ASSERT_TRUE(untied.ok()) << untied.error().message;
  auto enc = (*tied)->encode("the cat sat on the mat", std::nullopt, "text");
  ASSERT_TRUE(enc.ok()) << enc.error().message;
  RunOptions opt;
  opt.keepFullLogits = true;
  opt.keepAttention = false;
  auto a = (*tied)->run(*enc, opt);
  auto b = (*untied)->run(*enc, opt);
  ASSERT_TRUE(a.ok() && b.ok());
  const int64_t vocab = a->logits.cols();
  ASSERT_EQ(b->logits.cols(), vocab);
  for (int64_t i = 0; i < a->logits.rows(); ++i)
    for (int64_t v = 0; v < vocab; ++v)
      ASSERT_NEAR(b->logits(i, v), a->logits(i, vocab - 1 - v), 1e-4) << i << " " << v;
}

TEST_F(ModelErrors, IndexPointingAtAnAbsentShard) {
  const fs::path dir = copyOf("qwen2");
  fs::remove(dir / "model-00002-of-00002.safetensors");
  EXPECT_EQ(openError(dir), (dir / "model.safetensors.index.json").string() +
                                ": shard 'model-00002-of-00002.safetensors' is missing (" +
                                (dir / "model-00002-of-00002.safetensors").string() + " not found)");
  std::ofstream(dir / "model.safetensors.index.json", std::ios::trunc)
      << R"({"weight_map": {"model.embed_tokens.weight": "../../etc/passwd"}})";
  EXPECT_NE(openError(dir).find("not a file beside the index"), std::string::npos);
}

TEST_F(ModelErrors, TokenizerIdsPastTheEmbedding) {
  const fs::path dir = copyOf("gpt2");
  const int cut = 400;  // the tokenizer has 517 ids
  editConfig(dir, [&](json& c) { c["vocab_size"] = cut; });
  rewriteSafetensors(dir / "model.safetensors", [&](std::vector<Tensor>& ts) {
    for (auto& t : ts)
      if (t.name == "wte.weight") {
        t.bytes.resize(static_cast<size_t>(cut * t.shape[1] * 4));
        t.shape[0] = cut;
      }
  });
  EXPECT_EQ(openError(dir), (dir / "vocab.json").string() +
                                ": the tokenizer has ids up to 516 but config.json's vocab_size is 400 (embedding rows "
                                "in " + (dir / "model.safetensors").string() + ")");
}

TEST_F(ModelErrors, SequencePastMaxPositionsAndIdsOutOfRange) {
  auto model = Model::open(fixture("llama"));  // max_position_embeddings 128
  ASSERT_TRUE(model.ok()) << model.error().message;
  Encoding enc;
  enc.ids.assign(129, 5);
  enc.tokens.assign(129, "x");
  auto run = (*model)->run(enc);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().message,
            fixture("llama") + "/config.json: the input has 129 tokens but max_position_embeddings allows 128");
  enc.ids.assign(4, 5);
  enc.ids[2] = 100000;
  run = (*model)->run(enc);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().message, fixture("llama") +
                                     "/config.json: token id 100000 at position 2 is outside the vocabulary "
                                     "(vocab_size 488)");
  run = (*model)->run(Encoding{});
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().message.find("no tokens"), std::string::npos);
}

TEST_F(ModelErrors, CacheLayoutResolvesToItsSnapshot) {
  const fs::path cache = root_ / "models--openai-community--gpt2";
  copyOf("gpt2", "models--openai-community--gpt2/snapshots/0123abcd");
  copyOf("bert", "models--openai-community--gpt2/snapshots/ffff0000");
  fs::create_directories(cache / "refs");
  std::ofstream(cache / "refs" / "main") << "0123abcd";
  EXPECT_TRUE(isModelFolder(cache.string()));
  auto m = Model::open(cache.string());
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ((*m)->info().name, "openai-community/gpt2");
  EXPECT_EQ((*m)->info().dir, (cache / "snapshots" / "0123abcd").string());
  EXPECT_EQ((*m)->info().modelType, "gpt2");
  auto snap = Model::open((cache / "snapshots" / "ffff0000").string());
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  EXPECT_EQ((*snap)->info().name, "openai-community/gpt2");
  EXPECT_EQ((*snap)->info().modelType, "bert");
  // Without refs/main: the newest snapshot.
  fs::remove(cache / "refs" / "main");
  fs::last_write_time(cache / "snapshots" / "ffff0000", fs::file_time_type::clock::now() + std::chrono::hours(1));
  auto newest = resolveModelFolder(cache.string());
  ASSERT_TRUE(newest.ok()) << newest.error().message;
  EXPECT_EQ(newest->dir, (cache / "snapshots" / "ffff0000").string());
  EXPECT_FALSE(isModelFolder((root_ / "nothing").string()));
}

TEST_F(ModelErrors, BertSepInTextIsASentencePairAndPaddingIsMasked) {
  auto m = Model::open(fixture("bert"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto joined = (*m)->encode("The cat sat on the mat. [SEP] It was very happy!", std::nullopt, "text");
  auto pair = (*m)->encode("The cat sat on the mat.", std::string_view("It was very happy!"), "text");
  ASSERT_TRUE(joined.ok() && pair.ok());
  EXPECT_EQ(joined->ids, pair->ids);
  EXPECT_EQ(joined->typeIds, pair->typeIds);
  EXPECT_EQ(joined->typeIds.back(), 1);
  auto padded = (*m)->encode("Hello, World!", std::nullopt, "text", 12);
  ASSERT_TRUE(padded.ok());
  ASSERT_EQ(padded->size(), 12);
  EXPECT_EQ(padded->tokens.back(), "[PAD]");
  EXPECT_EQ(padded->attention.back(), 0);
  const int real = static_cast<int>(std::count(padded->attention.begin(), padded->attention.end(), 1));
  auto run = (*m)->run(*padded);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->layers[0].mask.spec(), "padding:" + std::to_string(real));
  for (const auto& h : run->layers[1].heads)
    for (int i = 0; i < 12; ++i) {
      EXPECT_NEAR(h.weights.row(i).sum(), 1.0f, 1e-5);
      for (int j = real; j < 12; ++j) EXPECT_EQ(h.weights(i, j), 0.0f);
    }
  EXPECT_TRUE(run->nextTokens.empty());  // an encoder predicts no next token
}

TEST(ModelConfigParse, FamiliesDefaultsAndRopeScaling) {
  auto g = parseModelConfig(R"({"model_type": "gpt2", "n_layer": 12, "n_head": 12, "n_embd": 768,
                                "vocab_size": 50257})", "c.json");
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->intermediate, 3072);
  EXPECT_EQ(g->maxPositions, 1024);
  EXPECT_EQ(g->activation, Activation::GeluNew);
  auto r = parseModelConfig(R"({"model_type": "roberta", "num_hidden_layers": 2, "num_attention_heads": 2,
                                "hidden_size": 8, "intermediate_size": 16, "vocab_size": 50, "max_position_embeddings": 514,
                                "pad_token_id": 1, "type_vocab_size": 1})", "c.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->positionOffset, 2);
  EXPECT_EQ(r->maxSequence(), 512);
  auto q = parseModelConfig(R"({"model_type": "qwen2", "num_hidden_layers": 2, "num_attention_heads": 4,
                                "num_key_value_heads": 2, "hidden_size": 64, "intermediate_size": 128,
                                "vocab_size": 100, "rope_scaling": {"rope_type": "yarn", "factor": 4}})", "q.json");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().message, "q.json: rope_scaling type 'yarn' is not supported (default, linear, llama3)");
  auto gqa = parseModelConfig(R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4,
                                  "num_key_value_heads": 3, "hidden_size": 64, "intermediate_size": 128,
                                  "vocab_size": 100})", "l.json");
  ASSERT_FALSE(gqa.ok());
  EXPECT_EQ(gqa.error().message, "l.json: num_attention_heads 4 is not a multiple of num_key_value_heads 3");
  EXPECT_FALSE(parseModelConfig("[1]", "a.json").ok());
  EXPECT_TRUE(
      parseModelConfig("{", "a.json").error().message.starts_with("a.json: not valid JSON (byte 2): "))
      << parseModelConfig("{", "a.json").error().message;
}

TEST(ModelLayers, RopeRotatesPairsHalfADimensionApart) {
  // head_dim 4, theta 10000: inv_freq = [1, 0.01]; position 2 rotates (x0, x2) by 2 rad, (x1, x3) by 0.02.
  const RopeTable t = ropeTable(3, 4, 10000.0, {});
  Mat x(3, 4);
  x << 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4;
  applyRope(x, 4, t);
  EXPECT_NEAR(x(2, 0), 1 * std::cos(2.0) - 3 * std::sin(2.0), 1e-6);
  EXPECT_NEAR(x(2, 2), 3 * std::cos(2.0) + 1 * std::sin(2.0), 1e-6);
  EXPECT_NEAR(x(2, 1), 2 * std::cos(0.02) - 4 * std::sin(0.02), 1e-6);
  EXPECT_NEAR(x(2, 3), 4 * std::cos(0.02) + 2 * std::sin(0.02), 1e-6);
  EXPECT_EQ(x.row(0), (Eigen::RowVector4f(1, 2, 3, 4)));  // position 0: no rotation
  // llama3 scaling (factor 8, low 1, high 4, original 32): wavelength 2*pi/0.01 = 628 > 32 -> inv_freq / 8;
  // 2*pi/1 = 6.3 < 8 -> unchanged.
  RopeScaling s;
  s.type = "llama3";
  s.factor = 8, s.lowFreqFactor = 1, s.highFreqFactor = 4, s.originalMaxPositions = 32;
  const RopeTable l3 = ropeTable(3, 4, 10000.0, s);
  EXPECT_NEAR(l3.cos(2, 1), std::cos(2 * 0.01 / 8), 1e-7);
  EXPECT_NEAR(l3.cos(2, 0), std::cos(2.0), 1e-7);
}

TEST(ModelLayers, NormsActivationsAndLinearByHand) {
  NormWeight n;
  const float g[3] = {1, 2, 3}, b[3] = {0, 1, 0};
  n.gamma = {g, 1, 3};
  n.beta = {b, 1, 3};
  Mat x(1, 3), y;
  x << 1, 2, 3;  // mean 2, var 2/3
  layerNorm(x, n, 0.0, y);
  const float s = 1.0f / std::sqrt(2.0f / 3.0f);
  EXPECT_NEAR(y(0, 0), -s, 1e-6);
  EXPECT_NEAR(y(0, 1), 1.0f, 1e-6);
  EXPECT_NEAR(y(0, 2), 3 * s, 1e-5);
  NormWeight rms;
  rms.gamma = {g, 1, 3};
  rmsNorm(x, rms, 0.0, y);  // mean square 14/3
  EXPECT_NEAR(y(0, 2), 3 * 3 / std::sqrt(14.0f / 3), 1e-5);
  Mat a(1, 3);
  a << -1, 0, 2;
  Mat gelu = a, geluNew = a, silu = a;
  activate(gelu, Activation::GeluErf);
  activate(geluNew, Activation::GeluNew);
  activate(silu, Activation::Silu);
  EXPECT_NEAR(gelu(0, 0), -0.15865525f, 1e-6);  // x * Phi(x)
  EXPECT_NEAR(gelu(0, 2), 1.95449974f, 1e-6);
  EXPECT_NEAR(geluNew(0, 2), 1.95459769f, 1e-6);  // 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)))
  EXPECT_NEAR(silu(0, 0), -0.26894142f, 1e-6);
  // nn.Linear [out, in] and Conv1D [in, out] give the same product.
  const float w[6] = {1, 2, 3, 4, 5, 6}, wt[6] = {1, 4, 2, 5, 3, 6}, bias[2] = {10, 20};
  LinearWeight lin, conv;
  lin.w = {w, 2, 3};
  lin.b = {bias, 1, 2};
  conv.w = {wt, 3, 2};
  conv.b = lin.b;
  conv.inOut = true;
  Mat y1, y2;
  linear(x, lin, y1);
  linear(x, conv, y2);
  EXPECT_EQ(y1(0, 0), 24.0f);  // 1 + 4 + 9 + 10
  EXPECT_EQ(y1(0, 1), 52.0f);  // 4 + 10 + 18 + 20
  EXPECT_EQ(y1, y2);
}

}  // namespace
}  // namespace attn::models
