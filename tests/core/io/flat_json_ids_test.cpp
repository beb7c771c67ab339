// The fast reader of flat {token: id} objects must agree with nlohmann's parser wherever it
// answers, answer for every plain vocab.json form, and leave everything else to the full parser.
#include "attn/io/flat_json_ids.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace attn {
namespace {

std::unordered_map<std::string, int> viaDom(const std::string& text) {
  std::unordered_map<std::string, int> out;
  const nlohmann::json doc = nlohmann::json::parse(text);  // items() would outlive a temporary
  for (const auto& [k, v] : doc.items()) out[k] = v.get<int>();
  return out;
}

TEST(FlatJsonIds, AgreesWithTheFullParserOnPlainVocabularies) {
  const std::vector<std::string> texts = {
      "{}",
      " \t\r\n{ } \n",
      R"({"a":0,"b":1})",
      "{\n  \"</s>\": 0,\n  \"<unk>\": 1,\n  \"\xe2\x96\x81the\": 4\n}\n",
      R"({"\"q\"": 1, "\\": 2, "\/": 3, "\b\f\n\r\t": 4, "\u0000": 5, "\u00e9": 6, "\u20AC": 7})",
      R"({"\ud83d\ude00 emoji": 8, "\uD834\uDD1E": 9, "é直接": 10})",
      R"({"dup": 1, "x": 2, "dup": 3})",
      R"({"max": 2147483646})",
  };
  for (const auto& t : texts) {
    auto got = parseFlatJsonIds(t, 0x7FFFFFFE);
    ASSERT_TRUE(got.has_value()) << t;
    EXPECT_EQ(*got, viaDom(t)) << t;
  }
  // A generated vocabulary of every escape and multi-byte form, as json.dump writes it.
  std::mt19937 gen(3);
  nlohmann::json doc = nlohmann::json::object();
  for (int i = 0; i < 3000; ++i) {
    std::string key;
    for (int c = 0; c < 1 + static_cast<int>(gen() % 6); ++c) {
      const uint32_t pick = gen() % 5;
      if (pick == 0)
        key += static_cast<char>(gen() % 0x20);  // control: written \u00XX
      else if (pick == 1)
        key += "\xc3\xa9";
      else if (pick == 2)
        key += "\xf0\x9f\x98\x80";
      else
        key += static_cast<char>('!' + gen() % 90);
    }
    doc[key] = static_cast<int>(gen() % 100000);
  }
  for (const bool ascii : {false, true}) {
    const std::string text = doc.dump(ascii ? 2 : -1, ' ', ascii);
    auto got = parseFlatJsonIds(text, 0x7FFFFFFE);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, viaDom(text));
  }
}

TEST(FlatJsonIds, LeavesEverythingElseToTheFullParser) {
  for (const std::string& t : std::vector<std::string>{"",
                                                       "[]",
                                                       "1",
                                                       "{",
                                                       "{\"a\":1",
                                                       "{\"a\":1,}",
                                                       "{\"a\" 1}",
                                                       "{a:1}",
                                                       "{\"a\":1} x",
                                                       "{\"a\":-1}",
                                                       "{\"a\":-0}",
                                                       "{\"a\":01}",
                                                       "{\"a\":1.0}",
                                                       "{\"a\":1e3}",
                                                       "{\"a\":2147483647}",
                                                       "{\"a\":\"1\"}",
                                                       "{\"a\":null}",
                                                       "{\"a\":{}}",
                                                       "{\"a\":[1]}",
                                                       "{\"\\ud800\":1}",
                                                       "{\"\\udc00\":1}",
                                                       "{\"\\ud800\\u0041\":1}",
                                                       "{\"\\x\":1}",
                                                       "{\"\\u12\":1}",
                                                       "{\"tab\there\":1}",
                                                       "{\"\xff\":1}",
                                                       "{\"a\":1}\xc3",
                                                       std::string("{\"a\0\":1}", 9)}) {
    EXPECT_FALSE(parseFlatJsonIds(t, 0x7FFFFFFE).has_value()) << t;
  }
  EXPECT_FALSE(parseFlatJsonIds(R"({"a": 11})", 10).has_value());
  EXPECT_TRUE(parseFlatJsonIds(R"({"a": 10})", 10).has_value());
}

}  // namespace
}  // namespace attn
