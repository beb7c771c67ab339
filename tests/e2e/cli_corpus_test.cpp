// End-to-end: attnscope-cli corpus / corpus-merge on the small GPT-2 and BERT
// fixture folders: the .jsonl stays valid line by line, 3 shards merged equal one
// run, --resume after a cut-off output equals an uninterrupted run, long lines are
// split and counted, and bad input gives one message and no output file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

using attn::test::modelDir;

namespace fs = std::filesystem;
using nlohmann::json;

// 40 lines: words and punctuation, every 7th line empty, line 20 far longer than the
// fixtures' 64-token context, line 33 not UTF-8.
std::string writeCorpus(const fs::path& path) {
  static const char* const kWords[] = {"the", "cat", "sat", "on", "a", "mat", ",", "and", "dog",
                                       "ran", "far", "away", ".", "hello", "world"};
  std::ofstream f(path, std::ios::binary);
  uint64_t x = 7;
  for (int i = 1; i <= 40; ++i) {
    if (i % 7 == 0) {
      f << (i % 14 == 0 ? "   " : "") << "\n";
      continue;
    }
    if (i == 33) {
      f << "bad \xff\xfe bytes\n";
      continue;
    }
    const int n = i == 20 ? 150 : 2 + i % 9;
    std::string s;
    for (int k = 0; k < n; ++k) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      s += (s.empty() ? "" : " ") + std::string(kWords[(x >> 33) % std::size(kWords)]);
    }
    f << s << "\n";
  }
  return path.string();
}

std::vector<json> jsonLines(const fs::path& p) {
  std::ifstream f(p);
  std::vector<json> out;
  std::string line;
  while (std::getline(f, line)) {
    json j = json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << p << ": not JSON: " << line.substr(0, 80);
    out.push_back(std::move(j));
  }
  return out;
}

json lastState(const fs::path& p) {
  auto lines = jsonLines(p);
  return lines.empty() ? json() : lines.back();
}

void expectOneErrorLine(const CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.err.rfind("attnscope-cli: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

class CliCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(CliCorpus, RunsSplitsSkipsAndCheckpoints) {
  const auto dir = scratchDir("corpus_run_" + GetParam());
  const auto corpus = writeCorpus(dir / "c.txt");
  auto r = runCli({"corpus", "--model", modelDir(GetParam()), "--text-file", corpus, "--out", (dir / "s.jsonl").string(),
                   "--checkpoint-every", "10", "--measure", "first", "--top", "3"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto lines = jsonLines(dir / "s.jsonl");
  ASSERT_GE(lines.size(), 4u);  // the empty start, checkpoints after 10, 20, 30 lines, the result
  for (size_t k = 0; k + 1 < lines.size(); ++k) EXPECT_FALSE(lines[k]["complete"].get<bool>());
  const auto& s = lines.back();
  EXPECT_TRUE(s["complete"].get<bool>());
  EXPECT_EQ(s["lines_read"], 40);
  // 40 lines - 5 empty (7, 14 blanks, 21, 28, 35) - 1 not UTF-8 = 34 taken, line 20 split.
  EXPECT_EQ(s["counts"]["lines"], 34);
  EXPECT_EQ(s["counts"]["skipped_lines"], 1);
  EXPECT_EQ(s["counts"]["split_lines"], 1);
  EXPECT_GE(s["counts"]["sentences"].get<int>(), 36);  // 150 words at 64 tokens a chunk: at least 3 chunks
  EXPECT_EQ(s["max_tokens"], 64);
  EXPECT_NE(r.err.find("1 lines split"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 skipped"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 33"), std::string::npos) << r.err;
  const int heads = s["layers"].get<int>() * s["heads"].get<int>();
  ASSERT_EQ(s["top_sentences"].size(), static_cast<size_t>(heads));
  for (const auto& top : s["top_sentences"]) {
    ASSERT_EQ(top.size(), 3u);
    EXPECT_GE(top[0]["value"].get<double>(), top[1]["value"].get<double>());
  }
  // Means are sums over sentences.
  const double n = s["counts"]["sentences"].get<double>();
  EXPECT_NEAR(s["means"]["entropy"][0][0].get<double>(), s["sums"][0][0].get<double>() / n, 1e-15);
  // An existing output is neither overwritten nor appended to without --resume / --force.
  const std::string before = readFile(dir / "s.jsonl");
  r = runCli({"corpus", "--model", modelDir(GetParam()), "--text-file", corpus, "--out", (dir / "s.jsonl").string()});
  expectOneErrorLine(r, "file exists");
  EXPECT_EQ(readFile(dir / "s.jsonl"), before);
  // --resume on a complete output has nothing left to do.
  r = runCli({"corpus", "--model", modelDir(GetParam()), "--text-file", corpus, "--out", (dir / "s.jsonl").string(),
              "--resume", "--checkpoint-every", "10", "--measure", "first", "--top", "3"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(readFile(dir / "s.jsonl"), before);
}

TEST_P(CliCorpus, ThreeShardsMergedEqualOneRun) {
  const auto dir = scratchDir("corpus_shards_" + GetParam());
  const auto corpus = writeCorpus(dir / "c.txt");
  const std::vector<std::string> base{"corpus", "--model", modelDir(GetParam()), "--text-file", corpus, "--max-tokens", "8"};
  auto with = [&](std::vector<std::string> extra) {
    auto a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return runCli(a);
  };
  ASSERT_EQ(with({"--out", (dir / "one.jsonl").string()}).status, 0);
  std::vector<std::string> merge{"corpus-merge"};
  for (int i = 3; i >= 1; --i) {  // any argument order: merged by shard index
    const auto out = (dir / ("s" + std::to_string(i) + ".jsonl")).string();
    auto r = with({"--out", out, "--shard", std::to_string(i) + "/3"});
    ASSERT_EQ(r.status, 0) << r.err;
    merge.push_back(out);
  }
  merge.insert(merge.end(), {"--out", (dir / "all.jsonl").string()});
  auto r = runCli(merge);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto one = lastState(dir / "one.jsonl");
  const auto all = lastState(dir / "all.jsonl");
  EXPECT_EQ(all["counts"], one["counts"]);  // bit for bit
  EXPECT_GT(one["counts"]["split_lines"].get<int>(), 1);
  EXPECT_EQ(all["top_sentences"], one["top_sentences"]);
  ASSERT_EQ(all["sums"].size(), one["sums"].size());
  for (const auto& [name, rows] : one["means"].items())
    for (size_t l = 0; l < rows.size(); ++l)
      for (size_t h = 0; h < rows[l].size(); ++h)
        EXPECT_NEAR(all["means"][name][l][h].get<double>(), rows[l][h].get<double>(), 1e-12) << name;
  // Shards of different runs, an incomplete shard, a duplicate: refused, nothing written.
  ASSERT_EQ(with({"--out", (dir / "other.jsonl").string(), "--shard", "2/3", "--measure", "self"}).status, 0);
  r = runCli({"corpus-merge", (dir / "s1.jsonl").string(), (dir / "other.jsonl").string(), "--out", (dir / "x.jsonl").string()});
  expectOneErrorLine(r, "measure entropy vs self");
  r = runCli({"corpus-merge", (dir / "s1.jsonl").string(), (dir / "s1.jsonl").string(), "--out", (dir / "x.jsonl").string()});
  expectOneErrorLine(r, "both are shard 1/3");
  std::string first = readFile(dir / "s2.jsonl");
  first = first.substr(0, first.find('\n') + 1);  // only the empty starting state
  std::ofstream(dir / "cut.jsonl", std::ios::binary) << first;
  r = runCli({"corpus-merge", (dir / "s1.jsonl").string(), (dir / "cut.jsonl").string(), "--out", (dir / "x.jsonl").string()});
  expectOneErrorLine(r, "incomplete");
  EXPECT_FALSE(fs::exists(dir / "x.jsonl"));
}

TEST_P(CliCorpus, ResumeAfterACutOffOutputEqualsAnUninterruptedRun) {
  const auto dir = scratchDir("corpus_resume_" + GetParam());
  const auto corpus = writeCorpus(dir / "c.txt");
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{"corpus", "--model", modelDir(GetParam()), "--text-file", corpus, "--out", out,
                                    "--checkpoint-every", "6", "--max-tokens", "20"};
  };
  ASSERT_EQ(runCli(args((dir / "whole.jsonl").string())).status, 0);
  // An interrupted run: two checkpoints and half of a third line written.
  const std::string whole = readFile(dir / "whole.jsonl");
  size_t cut = 0;
  for (int k = 0; k < 3; ++k) cut = whole.find('\n', cut) + 1;
  const std::string partial = whole.substr(0, cut + (whole.find('\n', cut) - cut) / 2);
  std::ofstream(dir / "cut.jsonl", std::ios::binary) << partial;
  ASSERT_GT(json::parse(whole.substr(0, cut).substr(whole.rfind('\n', cut - 2) + 1))["lines_read"].get<int>(), 0);
  auto a = args((dir / "cut.jsonl").string());
  a.push_back("--resume");
  auto r = runCli(a);
  ASSERT_EQ(r.status, 0) << r.err;
  jsonLines(dir / "cut.jsonl");  // every line valid again: the cut-off line was dropped
  auto resumed = lastState(dir / "cut.jsonl");
  auto expected = lastState(dir / "whole.jsonl");
  EXPECT_TRUE(resumed["complete"].get<bool>());
  EXPECT_EQ(resumed.dump(), expected.dump());  // sums, means, counts, tops: bit for bit
  EXPECT_EQ(readFile(dir / "cut.jsonl"), whole);
  // Resuming with other options is refused and leaves the file alone.
  a.insert(a.end(), {"--measure", "next"});
  std::ofstream(dir / "cut2.jsonl", std::ios::binary) << partial;
  a[6] = (dir / "cut2.jsonl").string();
  r = runCli(a);
  expectOneErrorLine(r, "other options");
  EXPECT_EQ(readFile(dir / "cut2.jsonl"), partial);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CliCorpus, ::testing::Values("gpt2", "bert"));

TEST(CliCorpusBadInput, OneClearMessageAndNoOutput) {
  const auto dir = scratchDir("corpus_bad");
  const auto corpus = writeCorpus(dir / "c.txt");
  std::ofstream(dir / "empty.txt") << "\n  \n\t\n";
  const auto out = (dir / "s.jsonl").string();
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> a{"corpus", "--model", modelDir("gpt2"), "--out", out};
    a.insert(a.end(), extra.begin(), extra.end());
    return runCli(a);
  };
  expectOneErrorLine(run({"--text-file", (dir / "empty.txt").string()}), "empty.txt: empty corpus");
  expectOneErrorLine(run({"--text-file", (dir / "missing.txt").string()}), "missing.txt: no such file");
  expectOneErrorLine(run({"--text-file", dir.string()}), "not a regular file");
  for (std::string shard : {"0/3", "4/3", "a/b", "3", "1/0", "-1/2", "1/2x"})
    expectOneErrorLine(run({"--text-file", corpus, "--shard", shard}), "--shard '" + shard + "'");
  expectOneErrorLine(run({"--text-file", corpus, "--measure", "loudness"}), "expected one of entropy, first");
  expectOneErrorLine(run({"--text-file", corpus, "--max-tokens", "65"}), "exceeds the model's context of 64");
  expectOneErrorLine(runCli({"corpus", "--model", (dir / "nomodel").string(), "--text-file", corpus, "--out", out}),
                     "nomodel");
  EXPECT_FALSE(fs::exists(out));
  expectOneErrorLine(runCli({"corpus", "--model", modelDir("gpt2"), "--text-file", corpus, "--out", dir.string(),
                             "--resume"}),
                     "not a regular file");
  // A file that is not ours is not resumed over.
  std::ofstream(out) << "hello\n";
  expectOneErrorLine(run({"--text-file", corpus, "--resume"}), "no corpus statistics line");
  EXPECT_EQ(readFile(out), "hello\n");
  auto r = runCli({"corpus-merge", out, "--out", (dir / "m.jsonl").string()});
  expectOneErrorLine(r, "no corpus statistics line");
  r = runCli({"corpus-merge", (dir / "none.jsonl").string(), "--out", (dir / "m.jsonl").string()});
  expectOneErrorLine(r, "none.jsonl: no such file");
  EXPECT_FALSE(fs::exists(dir / "m.jsonl"));
}

TEST(CliCorpusBadInput, AShardWithNoLinesStillWritesAValidResult) {
  const auto dir = scratchDir("corpus_tiny");
  std::ofstream(dir / "two.txt") << "hello world\nthe cat\n";
  auto r = runCli({"corpus", "--model", modelDir("gpt2"), "--text-file", (dir / "two.txt").string(), "--out",
                   (dir / "s3.jsonl").string(), "--shard", "3/3"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto s = lastState(dir / "s3.jsonl");
  EXPECT_EQ(s["counts"]["sentences"], 0);
  EXPECT_EQ(s["means"]["entropy"][0][0], 0.0);
}

}  // namespace
}  // namespace attn::test
