// attnscope-cli heads on the GPT-2 fixture: the JSON's scores are the map
// scores of the model's run on the same seeded sequence, the labels follow the
// stated thresholds, CSV and text agree, and bad input gets one clear line.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "attn/models/experiments/head_types_run.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn {
namespace {

using test::runCli;

TEST(CliHeads, JsonScoresAreTheModelRunsMapScores) {
  const std::string dir = test::modelDir("gpt2");
  auto r = runCli({"heads", "--model", dir, "--json", "--seed", "3", "--length", "20"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["n_layers"], 2);
  EXPECT_EQ(doc["period"], 20);
  EXPECT_EQ(doc["sequence_length"], 41);
  EXPECT_EQ(doc["local_window"], 3);
  EXPECT_FLOAT_EQ(doc["thresholds"]["induction"].get<float>(), 0.4f);
  EXPECT_FLOAT_EQ(doc["thresholds"]["local"].get<float>(), 0.6f);
  EXPECT_EQ(doc["precedence"].front(), "induction");
  // The same sequence and maps, in process.
  auto model = models::Model::open(dir);
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto seq = models::repeatedRandomSequence(**model, 20, 3);
  ASSERT_TRUE(seq.ok()) << seq.error().message;
  auto run = (*model)->run(seq->encoding);
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(doc["layers"].size(), 2u);
  HeadTypeThresholds th;
  th.induction = doc["thresholds"]["induction"];
  th.duplicate = doc["thresholds"]["duplicate"];
  th.previousToken = doc["thresholds"]["previous_token"];
  th.sink = doc["thresholds"]["sink"];
  th.self = doc["thresholds"]["self"];
  th.local = doc["thresholds"]["local"];
  for (size_t l = 0; l < 2; ++l) {
    const auto& heads = doc["layers"][l]["heads"];
    ASSERT_EQ(heads.size(), 4u);
    for (size_t h = 0; h < 4; ++h) {
      const Mat& w = run->layers[l].heads[h].weights;
      const HeadTypeScores s = headTypeScores(w, 20, seq->secondCopy);
      EXPECT_NEAR(heads[h]["induction"].get<double>(), s.induction, 1e-6);
      EXPECT_NEAR(heads[h]["duplicate"].get<double>(), s.duplicate, 1e-6);
      EXPECT_NEAR(heads[h]["previous_token"].get<double>(), s.previousToken, 1e-6);
      EXPECT_NEAR(heads[h]["sink"].get<double>(), s.sink, 1e-6);
      EXPECT_NEAR(heads[h]["self"].get<double>(), s.self, 1e-6);
      EXPECT_NEAR(heads[h]["local"].get<double>(), s.local, 1e-6);
      EXPECT_EQ(heads[h]["head_type"], std::string(headTypeName(classifyHead(s, th))));
    }
  }
}

TEST(CliHeads, TextAndCsvAgreeAndTheSeedMatters) {
  const std::string dir = test::modelDir("gpt2");
  const auto out = test::scratchDir("heads_csv");
  const std::string csv = (out / "heads.csv").string();
  auto r = runCli({"heads", "--model", dir, "--csv", csv});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("layers x"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("induction >= 0.4"), std::string::npos) << r.out;
  const std::string text = test::readFile(csv);
  EXPECT_EQ(text.rfind("layer,head,head_type,previous_token,induction,duplicate,sink,self,local\n", 0), 0u);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 2 * 4);
  // An existing --csv is kept unless --force.
  auto again = runCli({"heads", "--model", dir, "--csv", csv});
  EXPECT_NE(again.status, 0);
  EXPECT_NE(again.err.find("file exists"), std::string::npos) << again.err;
  auto a = runCli({"heads", "--model", dir, "--json", "--seed", "1"});
  auto b = runCli({"heads", "--model", dir, "--json", "--seed", "1"});
  auto c = runCli({"heads", "--model", dir, "--json", "--seed", "2"});
  ASSERT_EQ(a.status, 0);
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
}

TEST(CliHeads, BadInputGivesOneClearLine) {
  const std::string dir = test::modelDir("gpt2");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"heads", "--model", dir, "--length", "0"}, "--length must be at least 2 (got 0)"},
      {{"heads", "--model", dir, "--length", "40"}, "64 positions"},
      {{"heads", "--model", "/nonexistent/model"}, "/nonexistent/model"},
      {{"heads", "--model", dir, "--csv", "out.txt"}, "must name a .csv file"},
  };
  for (const auto& c : cases) {
    auto r = runCli(c.args);
    EXPECT_NE(r.status, 0) << c.says;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(CliHeads, MetricsJsonOfAModelCarriesHeadTypesAndThresholds) {
  auto r = runCli({"metrics", "--model", test::modelDir("gpt2"), "--text", "the cat sat", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_TRUE(doc.contains("head_types")) << r.out.substr(0, 400);
  EXPECT_FLOAT_EQ(doc["head_types"]["thresholds"]["previous_token"].get<float>(), 0.4f);
  const auto& head = doc["layers"][1]["heads"][2];
  EXPECT_EQ(head["head_type"], doc["head_types"]["layers"][1]["heads"][2]["head_type"]);
  EXPECT_EQ(head["head_type_scores"]["induction"], doc["head_types"]["layers"][1]["heads"][2]["induction"]);
}

}  // namespace
}  // namespace attn
