// Files are opened as regular files only, and read no further than a limit per
// kind: a FIFO in place of model.safetensors, a shard, the shard index, a
// tokenizer.json or the cache's refs/main, and refs/main -> /dev/zero, are one
// message naming the file, at once. A watchdog fails a test that would block.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "attn/io/npy_reader.h"
#include "attn/io/regular_file.h"
#include "attn/io/session.h"
#include "attn/models/model.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"
#include "watchdog.h"

namespace attn {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class UntrustedFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("attn_untrusted_files_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path copyModel(const std::string& name, const fs::path& to) {
    fs::create_directories(to.parent_path());
    fs::copy(std::string(ATTN_FIXTURE_DIR) + "/models/" + name, to, fs::copy_options::recursive);
    return to;
  }
  static void makeFifo(const fs::path& p) {
    fs::remove(p);
    ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0) << p;
  }
  static std::string openError(const fs::path& dir) {
    test::Watchdog dog(20s, "Model::open(" + dir.string() + ")");
    auto m = models::Model::open(dir.string());
    if (m.ok()) return "(opened)";
    EXPECT_EQ(m.error().message.find('\n'), std::string::npos) << m.error().message;
    return m.error().message;
  }
  fs::path root_;
};

TEST_F(UntrustedFiles, RegularFileRefusesFifoDeviceAndFolderAndChecksTheLimit) {
  const fs::path fifo = root_ / "pipe";
  makeFifo(fifo);
  {
    test::Watchdog dog(10s, "RegularFile::open on a FIFO");
    auto f = RegularFile::open(fifo.string(), 1 << 20);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message, fifo.string() + ": is a FIFO (named pipe), not a regular file");
  }
  auto zero = readFileBytes("/dev/zero", 1 << 20);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message, "/dev/zero: is a character device, not a regular file");
  auto dir = readRegularFile(root_.string(), 1 << 20);
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message.find("is a folder"), std::string::npos);
  const fs::path big = root_ / "big";
  std::ofstream(big, std::ios::binary) << std::string(2000, 'x');
  auto over = readRegularFile(big.string(), 1000);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message, big.string() + ": file of 2000 bytes is larger than the 1000 byte limit");
  auto fine = readRegularFile(big.string(), 2000);
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(fine->size(), 2000u);
}

TEST_F(UntrustedFiles, FifoAsWeightsShardIndexOrTokenizerIsOneMessage) {
  const fs::path single = copyModel("gpt2", root_ / "single");
  makeFifo(single / "model.safetensors");
  EXPECT_EQ(openError(single),
            (single / "model.safetensors").string() + ": is a FIFO (named pipe), not a regular file");

  const fs::path index = copyModel("qwen2", root_ / "index");
  makeFifo(index / "model.safetensors.index.json");
  EXPECT_EQ(openError(index), (index / "model.safetensors.index.json").string() +
                                  ": is a FIFO (named pipe), not a regular file");

  const fs::path shard = copyModel("qwen2", root_ / "shard");
  makeFifo(shard / "model-00002-of-00002.safetensors");
  EXPECT_EQ(openError(shard), (shard / "model-00002-of-00002.safetensors").string() +
                                  ": is a FIFO (named pipe), not a regular file");

  const fs::path tok = copyModel("llama", root_ / "tok");
  makeFifo(tok / "tokenizer.json");
  EXPECT_EQ(openError(tok),
            (tok / "tokenizer.json").string() + ": is a FIFO (named pipe), not a regular file");

  const fs::path cfg = copyModel("llama", root_ / "cfg");
  makeFifo(cfg / "config.json");
  EXPECT_EQ(openError(cfg), (cfg / "config.json").string() + ": is a FIFO (named pipe), not a regular file");
}

TEST_F(UntrustedFiles, CacheRefsMainFifoOrDevZeroIsRefusedUnread) {
  const fs::path cache = root_ / "models--org--tiny";
  copyModel("gpt2", cache / "snapshots" / "abc123");
  fs::create_directories(cache / "refs");
  std::ofstream(cache / "refs" / "main") << "abc123\n";
  auto ok = models::Model::open(cache.string());
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ((*ok)->info().name, "org/tiny");

  makeFifo(cache / "refs" / "main");
  EXPECT_EQ(openError(cache),
            (cache / "refs" / "main").string() + ": is a FIFO (named pipe), not a regular file");

  fs::remove(cache / "refs" / "main");
  fs::create_symlink("/dev/zero", cache / "refs" / "main");
  // Outside the cache folder: the path rule refuses it before it is opened.
  EXPECT_TRUE(
      openError(cache).starts_with((cache / "refs" / "main").string() + ": leads to /dev/zero, outside"))
      << openError(cache);

  fs::remove(cache / "refs" / "main");
  std::ofstream(cache / "refs" / "main") << std::string(10000, 'a');
  EXPECT_EQ(openError(cache),
            (cache / "refs" / "main").string() + ": file of 10000 bytes is larger than the 4096 byte limit");
}

TEST_F(UntrustedFiles, FifoAsSessionFileIsOneMessage) {
  const fs::path p = root_ / "s.json";
  makeFifo(p);
  test::Watchdog dog(10s, "loadSession on a FIFO");
  auto s = loadSession(p.string());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, p.string() + ": is a FIFO (named pipe), not a regular file");
}

TEST_F(UntrustedFiles, PadToIsComparedWithTheContextBeforeAnyAllocation) {
  auto m = models::Model::open(std::string(ATTN_FIXTURE_DIR) + "/models/bert");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const auto start = std::chrono::steady_clock::now();
  auto e = (*m)->encode("hello", std::nullopt, "--text", 2000000000);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("cannot pad to 2000000000 tokens"), std::string::npos)
      << e.error().message;
  EXPECT_NE(e.error().message.find("config.json"), std::string::npos) << e.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  const int context = (*m)->info().maxPositions;
  ASSERT_GT(context, 0);
  auto full = (*m)->encode("hello", std::nullopt, "--text", context);
  ASSERT_TRUE(full.ok()) << full.error().message;
  EXPECT_EQ(full->size(), context);
  EXPECT_FALSE((*m)->encode("hello", std::nullopt, "--text", context + 1).ok());
}

TEST(UntrustedTokenizer, WordPieceWithHugeMaxCharsAndAMegabyteWordIsBounded) {
  const std::string json =
      R"({"model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
      "max_input_chars_per_word": 1000000000000, "vocab": {"[UNK]": 0, "a": 1, "##a": 2, "##ab": 3}},
      "pre_tokenizer": {"type": "WhitespaceSplit"}})";
  auto tok = models::HfTokenizer::fromTokenizerJson(json, "wp.json");
  ASSERT_TRUE(tok.ok()) << tok.error().message;
  const std::string word(1 << 20, 'a');
  test::Watchdog dog(30s, "WordPiece on a 1 MB word");
  const auto start = std::chrono::steady_clock::now();
  auto e = tok->encode(word + "b", std::nullopt, false, "text");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  // Greedy longest match: "a", then "##a" up to the last, which pairs with the b.
  ASSERT_EQ(e->size(), 1 << 20);
  EXPECT_EQ(e->tokens.front(), "a");
  EXPECT_EQ(e->tokens[1], "##a");
  EXPECT_EQ(e->tokens.back(), "##ab");
}

}  // namespace
}  // namespace attn
