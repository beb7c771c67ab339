// Data export: the CSV/JSON text and the .npy bytes of a small known result.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/engine.h"
#include "attn/io/npy_reader.h"
#include "attn/io/table_export.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

// One head, q = k = I (2x2), v = [[1,2],[3,4]], dot product, tokens with a comma.
AttentionResult toyResult() {
  AttentionInput in;
  in.q = {Mat::Identity(2, 2)};
  in.k = {Mat::Identity(2, 2)};
  Mat v(2, 2);
  v << 1, 2, 3, 4;
  in.v = {v};
  in.queryTokens = {"a,b", "say \"hi\""};
  AttentionSpec spec;
  spec.mechanism = Mechanism::Dot;
  auto res = runAttention(in, spec);
  EXPECT_TRUE(res.ok());
  return std::move(res).value();
}

TEST(TableExport, CsvQuotesFieldsAfterRfc4180) {
  EXPECT_EQ(csvField("plain"), "plain");
  EXPECT_EQ(csvField("a,b"), "\"a,b\"");
  EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(TableExport, WeightsCsvHasOneLinePerCellWithSoftmaxValues) {
  const auto res = toyResult();
  const std::string csv = resultCsv(res, {DataKind::Weights, {}});
  // Row 0 logits [1, 0]: softmax = [e/(e+1), 1/(e+1)] = [0.7310586, 0.2689414].
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "head,query,query_token,key,key_token,weight");
  std::getline(in, line);
  EXPECT_EQ(line.substr(0, line.rfind(',')), "1,0,\"a,b\",0,\"a,b\"");
  EXPECT_NEAR(std::stof(line.substr(line.rfind(',') + 1)), 0.7310586f, 1e-6f);
  int lines = 1;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 4);
}

TEST(TableExport, MetricsJsonHasEntropyPerRow) {
  const auto res = toyResult();
  const auto doc = nlohmann::json::parse(metricsJson(res, {DataKind::Metrics, {}}));
  ASSERT_EQ(doc["heads"].size(), 1u);
  const double p = 0.7310586, h = -(p * std::log(p) + (1 - p) * std::log(1 - p));  // 0.5822
  EXPECT_NEAR(doc["heads"][0]["rows"][0]["entropy"].get<double>(), h, 1e-5);
  EXPECT_EQ(doc["heads"][0]["rows"][1]["argmax_key"].get<int>(), 1);
  EXPECT_EQ(doc["tokens"][1].get<std::string>(), "say \"hi\"");
}

TEST(TableExport, NpyReadsBackAsStackedHeads) {
  const auto res = toyResult();
  const auto path = (std::filesystem::temp_directory_path() / "attn_table_export_out.npy").string();
  ASSERT_TRUE(writeResultData(res, {DataKind::Outputs, {}}, path).ok());
  auto t = readNpyFile(path);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->shape, (std::vector<int64_t>{1, 2, 2}));
  EXPECT_MATRIX_NEAR(Mat(t->values.slice2d(0)), res.heads[0].output, 1e-7);
  std::filesystem::remove(path);
}

TEST(TableExport, RefusesJsonForWeightsAndUnknownExtensions) {
  const auto res = toyResult();
  auto st = writeResultData(res, {DataKind::Weights, {}}, "/tmp/attn_w.json");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("JSON holds metrics"), std::string::npos);
  st = writeResultData(res, {DataKind::Weights, {}}, "/tmp/attn_w.xlsx");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("unsupported data format"), std::string::npos);
  st = writeResultData(res, {DataKind::Weights, {5}}, "/tmp/attn_w.csv");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("head 6 is out of range"), std::string::npos);
}

}  // namespace
}  // namespace attn
