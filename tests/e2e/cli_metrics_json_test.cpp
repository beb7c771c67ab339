// attnscope-cli metrics --json prints its heads one at a time (the
// whole document in memory was most of the process' resident memory at long
// N); the text must stay exactly what nlohmann's dump(2) of the whole
// document printed before, on every path that prints heads.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "attn/io/npy_writer.h"
#include "cli_runner.h"

namespace attn::test {
namespace metrics_json_e2e {

using nlohmann::json;

void expectPrettyPrintOfItself(const std::vector<std::string>& args, size_t heads) {
  const auto r = runCli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out.substr(0, 400);
  EXPECT_EQ(doc["heads"].size(), heads);
  // Parsing and pretty-printing again gives the same bytes: the streamed
  // printer's indentation, separators and key order are nlohmann's.
  EXPECT_EQ(doc.dump(2) + "\n", r.out);
}

TEST(CliMetricsJson, HeadByHeadOutputIsTheWholeDocumentsPrettyPrint) {
  const auto dir = scratchDir("metrics_json_stream");
  Tensor q, k, v;
  for (Tensor* t : {&q, &k, &v}) {
    t->shape = {3, 40, 8};
    t->data.resize(3 * 40 * 8);
    for (size_t i = 0; i < t->data.size(); ++i)
      t->data[i] = static_cast<float>((i * 2654435761u + (t == &k   ? 17
                                                          : t == &v ? 31
                                                                    : 0)) %
                                      1000) /
                       250.0f -
                   2.0f;
  }
  NpzWriter w;
  w.add("q", q);
  w.add("k", k);
  w.add("v", v);
  const auto npz = (dir / "qkv.npz").string();
  ASSERT_TRUE(w.write(npz).ok());
  expectPrettyPrintOfItself(
      {"metrics", "--input", npz, "--analysis-path", "streamed", "--mask", "causal", "--json"}, 3);
  expectPrettyPrintOfItself({"metrics", "--input", npz, "--analysis-path", "materialized", "--json"}, 3);
  expectPrettyPrintOfItself({"metrics", "--text", "The cat sat on the mat.", "--heads", "2", "--json"}, 2);
  const auto run = (dir / "r.npz").string();
  ASSERT_EQ(runCli({"run", "--text", "The cat sat on the mat.", "--heads", "2", "--out", run}).status, 0);
  expectPrettyPrintOfItself({"metrics", "--attn", run, "--json"}, 2);
}

}  // namespace metrics_json_e2e
}  // namespace attn::test
