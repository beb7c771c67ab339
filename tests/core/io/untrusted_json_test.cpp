// Every JSON file the program reads goes through one entry point with a depth
// limit checked before nlohmann parses: 100 000 nested '[' in a config.json, a
// tokenizer.json, a shard index, a safetensors header or a session are one
// message naming the file, never a stack overflow.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "attn/io/json_document.h"
#include "attn/io/safetensors_reader.h"
#include "attn/io/session.h"
#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"

namespace attn {
namespace {

namespace fs = std::filesystem;

constexpr int kDeep = 100000;

std::string deepJson(int n, const std::string& inner = "1") {
  return std::string(static_cast<size_t>(n), '[') + inner + std::string(static_cast<size_t>(n), ']');
}

std::string readJsonFixture(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void writeJsonFixture(const fs::path& p, const std::string& s) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << s;
}

/// `inner` wrapped in n Sequence nodes of `kind` ("normalizers" or "pretokenizers").
std::string sequenceNodes(int n, const std::string& listKey, const std::string& inner) {
  std::string s;
  for (int i = 0; i < n; ++i) s += R"({"type":"Sequence",")" + listKey + R"(":[)";
  s += inner;
  for (int i = 0; i < n; ++i) s += "]}";
  return s;
}

class UntrustedJson : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("attn_untrusted_json_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path copyModel(const std::string& name, const std::string& as = "") {
    const fs::path dst = root_ / (as.empty() ? name : as);
    fs::copy(std::string(ATTN_FIXTURE_DIR) + "/models/" + name, dst, fs::copy_options::recursive);
    return dst;
  }
  /// Model::open's error for `dir`: must be one line.
  static std::string openError(const fs::path& dir) {
    auto m = models::Model::open(dir.string());
    if (m.ok()) return "(opened)";
    EXPECT_EQ(m.error().message.find('\n'), std::string::npos);
    return m.error().message;
  }
  fs::path root_;
};

TEST(JsonNesting, DepthIsCheckedBeforeParsingAndNamesTheSourceAndByte) {
  auto r = parseJsonText(deepJson(kDeep), "deep.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "deep.json: JSON nested deeper than 64 levels (at byte 64)");
  auto objects = parseJsonText(std::string(kDeep, '{'), "o.json");
  ASSERT_FALSE(objects.ok());
  EXPECT_NE(objects.error().message.find("nested deeper"), std::string::npos) << objects.error().message;
  // At the limit it parses; one deeper it does not.
  EXPECT_TRUE(parseJsonText(deepJson(kMaxJsonDepth), "ok.json").ok());
  EXPECT_FALSE(parseJsonText(deepJson(kMaxJsonDepth + 1), "no.json").ok());
}

TEST(JsonNesting, BracketsInsideStringsAndEscapesDoNotCount) {
  const std::string inString = R"({"a": ")" + std::string(kDeep, '[') + R"(\"[[[", "b": 2})";
  auto r = parseJsonText(inString, "s.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["b"], 2);
  EXPECT_EQ((*r)["a"].get<std::string>().size(), static_cast<size_t>(kDeep) + 4);
}

TEST(JsonNesting, SyntaxErrorsNameTheByteAndQuoteABoundedExcerpt) {
  const std::string longToken = "{\"a\": \"" + std::string(1 << 20, 'x');  // unterminated 1 MB string
  auto r = parseJsonText(longToken, "cut.json");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().message.starts_with("cut.json: not valid JSON (byte ")) << r.error().message;
  EXPECT_LT(r.error().message.size(), 400u);
}

TEST(JsonNesting, ExcerptsAreBoundedAndNeverRecurse) {
  EXPECT_EQ(jsonExcerpt(nlohmann::json("four")), "'\"four\"'");
  EXPECT_EQ(jsonExcerpt(nlohmann::json(12)), "'12'");
  EXPECT_EQ(jsonExcerpt(nlohmann::json::array({1, 2, 3})), "an array of 3 items");
  EXPECT_EQ(jsonExcerpt(nlohmann::json::object({{"k", 1}})), "an object of 1 keys");
  const std::string big(1 << 20, 'y');
  EXPECT_LT(jsonExcerpt(nlohmann::json(big)).size(), 120u);
}

TEST_F(UntrustedJson, DeepConfigFieldIsOneMessageNamingConfigJson) {
  const fs::path dir = copyModel("gpt2");
  std::string cfg = readJsonFixture(dir / "config.json");
  const std::string field = "\"n_head_extra\": ";
  const size_t at = cfg.find('{') + 1;
  cfg.insert(at, field + deepJson(kDeep) + ",");  // the enclosing object is level 1: the 64th '[' is level 65
  writeJsonFixture(dir / "config.json", cfg);
  EXPECT_EQ(openError(dir), fmt::format("{}: JSON nested deeper than 64 levels (at byte {})",
                                        (dir / "config.json").string(), at + field.size() + 63));
}

TEST_F(UntrustedJson, DeepConfigValueUnderTheLimitIsQuotedShortly) {
  // Nested within the limit: the message describes the value instead of dumping it.
  const fs::path dir = copyModel("gpt2");
  std::string cfg = readJsonFixture(dir / "config.json");
  const auto at = cfg.find("\"n_head\"");
  ASSERT_NE(at, std::string::npos);
  cfg.replace(at, 8, "\"n_head\": " + deepJson(40) + ", \"unused\"");
  writeJsonFixture(dir / "config.json", cfg);
  EXPECT_EQ(openError(dir),
            (dir / "config.json").string() + ": 'n_head' must be an integer, not an array of 1 items");
}

TEST_F(UntrustedJson, DeepSequenceOfNormalizersOrPreTokenizers) {
  for (const char* key : {"normalizer", "pre_tokenizer"}) {
    const std::string list = std::string(key) == "normalizer" ? "normalizers" : "pretokenizers";
    const std::string leaf =
        std::string(key) == "normalizer" ? R"({"type":"Lowercase"})" : R"({"type":"Whitespace"})";
    // 100 000 levels: refused by the depth scan before any parse.
    const fs::path dir = copyModel("llama", key);
    auto tok = nlohmann::json::parse(readJsonFixture(dir / "tokenizer.json"));
    tok[key] = nullptr;
    std::string text = tok.dump();
    const std::string slot = "\"" + std::string(key) + "\":null";
    ASSERT_NE(text.find(slot), std::string::npos);
    text.replace(text.find(slot), slot.size(),
                 "\"" + std::string(key) + "\":" + sequenceNodes(kDeep, list, leaf));
    writeJsonFixture(dir / "tokenizer.json", text);
    const std::string msg = openError(dir);
    EXPECT_TRUE(msg.starts_with((dir / "tokenizer.json").string() + ": JSON nested deeper than 64 levels"))
        << msg;
    // Within the JSON limit but past the Sequence limit: the loader's own bound.
    tok[key] = nlohmann::json::parse(sequenceNodes(9, list, leaf));
    auto r = models::HfTokenizer::fromTokenizerJson(tok.dump(), "t.json");
    ASSERT_FALSE(r.ok()) << key;
    EXPECT_NE(r.error().message.find("t.json: Sequence "), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("nested deeper than 8 levels"), std::string::npos) << r.error().message;
    // Eight levels, as deep as allowed, still load and tokenize.
    tok[key] = nlohmann::json::parse(sequenceNodes(8, list, leaf));
    auto ok = models::HfTokenizer::fromTokenizerJson(tok.dump(), "t.json");
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_TRUE(ok->encode("Hello world", std::nullopt, false, "text").ok());
  }
}

TEST_F(UntrustedJson, DeepShardIndexAndSafetensorsHeader) {
  auto idx = models::parseSafetensorsIndex("{\"weight_map\": " + deepJson(kDeep) + "}", "m.index.json");
  ASSERT_FALSE(idx.ok());
  EXPECT_TRUE(idx.error().message.starts_with("m.index.json: JSON nested deeper")) << idx.error().message;
  const fs::path dir = copyModel("qwen2");
  writeJsonFixture(dir / "model.safetensors.index.json",
                   "{\"weight_map\": {\"a\": " + deepJson(kDeep, "\"x\"") + "}}");
  EXPECT_TRUE(openError(dir).starts_with((dir / "model.safetensors.index.json").string() +
                                         ": JSON nested deeper than 64 levels"))
      << openError(dir);
  auto header = parseSafetensorsHeader("{\"t\": " + deepJson(kDeep) + "}", 0, "w.safetensors", ReadLimits{});
  ASSERT_FALSE(header.ok());
  EXPECT_NE(header.error().message.find("w.safetensors"), std::string::npos);
  EXPECT_NE(header.error().message.find("nested deeper"), std::string::npos) << header.error().message;
}

TEST_F(UntrustedJson, DeepSessionFieldNamesTheSessionFile) {
  const fs::path p = root_ / "s.json";
  writeJsonFixture(
      p, R"({"format": "attnscope-session", "version": 1, "view": {"head": )" + deepJson(kDeep) + "}}");
  auto s = loadSession(p.string());
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.error().message.starts_with(p.string() + ": JSON nested deeper than 64 levels"))
      << s.error().message;
  // Within the limit, a mistyped field is described, not dumped.
  writeJsonFixture(
      p, R"({"format": "attnscope-session", "version": 1, "view": {"head": )" + deepJson(60) + "}}");
  auto t = loadSession(p.string());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, p.string() + ": view.head must be an integer (got an array of 1 items)");
}

}  // namespace
}  // namespace attn
