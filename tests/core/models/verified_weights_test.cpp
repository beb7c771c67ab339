// The record of model files already scanned for NaN and Inf: an unchanged file is not read
// again, a changed one is, and a record that is not ours is ignored and replaced.
#include "attn/models/verified_weights.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "attn/models/model.h"
#include "attn/models/safetensors_mmap.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;

class VerifiedWeights : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("attn_verified_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "model");
    for (const char* f :
         {"config.json", "merges.txt", "model.safetensors", "tokenizer_config.json", "vocab.json"})
      fs::copy_file(std::string(ATTN_FIXTURE_DIR) + "/models/gpt2/" + f, root_ / "model" / f);
    setVerifiedWeightsDir((root_ / "cache").string());
  }
  void TearDown() override {
    setVerifiedWeightsDir(std::nullopt);
    fs::remove_all(root_);
  }
  /// Files changed less than a second before they are opened are never remembered.
  static void letTheFilesSettle() { std::this_thread::sleep_for(std::chrono::milliseconds(1100)); }
  std::string model() const { return (root_ / "model").string(); }
  fs::path record() const { return root_ / "cache" / "verified-weights"; }
  static int lines(const fs::path& p) {
    std::ifstream in(p);
    int n = 0;
    for (std::string line; std::getline(in, line);) n += !line.empty();
    return n;
  }
  /// Bytes scanned and bytes taken from the record by one Model::open.
  struct Counts {
    int64_t scanned = 0, remembered = 0;
  };
  Counts open(bool expectOk = true) {
    const int64_t s0 = finiteScannedBytes(), r0 = finiteRememberedBytes();
    auto m = Model::open(model());
    EXPECT_EQ(m.ok(), expectOk) << (m.ok() ? "opened" : m.error().message);
    if (!m.ok()) lastError_ = m.error().message;
    return {finiteScannedBytes() - s0, finiteRememberedBytes() - r0};
  }
  void pokeNan(const std::string& tensor) {
    const fs::path st = root_ / "model" / "model.safetensors";
    int64_t offset = 0;
    {
      auto f = SafetensorsFile::open(st.string());
      ASSERT_TRUE(f.ok()) << f.error().message;
      const SafetensorsEntry* e = (*f)->find(tensor);
      ASSERT_NE(e, nullptr);
      std::ifstream in(st, std::ios::binary);
      uint64_t header = 0;
      in.read(reinterpret_cast<char*>(&header), 8);
      offset = static_cast<int64_t>(8 + header) + e->begin;
    }
    const uint32_t nan = 0x7FC00000u;
    std::fstream out(st, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(offset);
    out.write(reinterpret_cast<const char*>(&nan), 4);
  }
  fs::path root_;
  std::string lastError_;
};

TEST_F(VerifiedWeights, AnUnchangedFileIsScannedOnceAndAChangedOneAgain) {
  letTheFilesSettle();
  const Counts first = open();
  EXPECT_GT(first.scanned, 0);
  EXPECT_EQ(first.remembered, 0);
  ASSERT_TRUE(fs::exists(record()));
  EXPECT_EQ(lines(record()), 2);  // the header and this model
  EXPECT_EQ(fs::status(record()).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);

  const Counts second = open();
  EXPECT_EQ(second.scanned, 0);
  EXPECT_EQ(second.remembered, first.scanned);

  // A NaN written in place (same size, same name): the status-change time moved, so it is read.
  pokeNan("h.1.mlp.c_proj.weight");
  const Counts third = open(false);
  EXPECT_EQ(third.scanned, first.scanned);
  EXPECT_NE(lastError_.find("tensor 'h.1.mlp.c_proj.weight' has 1 non-finite values"), std::string::npos)
      << lastError_;
}

TEST_F(VerifiedWeights, AConfigAskingForOtherTensorsScansAgain) {
  // One layer instead of two: a subset of the same file's tensors is another set scanned.
  letTheFilesSettle();
  EXPECT_GT(open().scanned, 0);
  const fs::path config = root_ / "model" / "config.json";
  std::stringstream text;
  text << std::ifstream(config).rdbuf();
  std::string s = text.str();
  const size_t at = s.find("\"n_layer\": 2");
  ASSERT_NE(at, std::string::npos);
  s.replace(at, 12, "\"n_layer\": 1");
  std::ofstream(config) << s;
  const Counts oneLayer = open();
  EXPECT_GT(oneLayer.scanned, 0);
  EXPECT_EQ(oneLayer.remembered, 0);
}

TEST_F(VerifiedWeights, AFileChangedJustBeforeItIsOpenedIsNotRemembered) {
  // Copied a moment ago: a write within the file clock's tick could keep the same times.
  EXPECT_GT(open().scanned, 0);
  EXPECT_FALSE(fs::exists(record()) && lines(record()) > 1);
  EXPECT_GT(open().scanned, 0);
}

TEST_F(VerifiedWeights, ARecordThatIsNotOursIsIgnoredAndReplaced) {
  letTheFilesSettle();
  fs::create_directories(root_ / "cache");
  std::ofstream(record()) << "attnscope verified weights 1\n0 1 2 3\nnot hex at all\n\n"
                          << std::string(3000, 'x') << "\n";
  EXPECT_GT(open().scanned, 0);
  EXPECT_EQ(open().scanned, 0);  // the garbage lines did not stop it from being written and read

  std::ofstream(record(), std::ios::trunc) << std::string(300 * 1024, '7');  // larger than any record
  EXPECT_GT(open().scanned, 0);
  EXPECT_EQ(open().scanned, 0);

  fs::remove(record());
  ASSERT_EQ(::mkfifo(record().c_str(), 0600), 0);  // a FIFO: read without blocking, then replaced
  EXPECT_GT(open().scanned, 0);
  EXPECT_TRUE(fs::is_regular_file(record()));
  EXPECT_EQ(open().scanned, 0);

  fs::remove(record());
  fs::create_directories(record());  // a folder in its place: no record, every open scans
  EXPECT_GT(open().scanned, 0);
  EXPECT_GT(open().scanned, 0);
}

TEST_F(VerifiedWeights, WithTheRecordOffEveryOpenScans) {
  setVerifiedWeightsDir("");
  letTheFilesSettle();
  EXPECT_GT(open().scanned, 0);
  EXPECT_GT(open().scanned, 0);
  EXPECT_FALSE(fs::exists(root_ / "cache"));
  EXPECT_EQ(verifiedWeightsPath(), "");
}

}  // namespace
}  // namespace attn::models
