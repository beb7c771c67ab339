// Weight panels read with pread (staged_reads.h): the same bytes as the mapping, only for
// ranges inside a registered mapped file, and the same forward to the bit whichever way the
// weights are read (GGUF quantized products, BF16 panels).
#include "attn/models/staged_reads.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "attn/engine/random.h"
#include "attn/models/model.h"
#include "attn/models/safetensors_mmap.h"
#include "model_runs.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;

TEST(StagedReads, CopiesTheMappedBytesWithPreadAndOnlyThose) {
  const fs::path path =
      fs::temp_directory_path() / ("attn_staged_reads_" + std::to_string(::getpid()) + ".bin");
  std::vector<char> bytes(300000);
  SeededRng rng(7);
  for (char& b : bytes) b = static_cast<char>(rng.next() & 0xFF);
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  auto file = MappedFile::open(path.string());
  ASSERT_TRUE(file.ok()) << file.error().message;
  const char* base = (*file)->data();
  std::vector<char> buffer;

  StagedReadsScope always(StagedReads::Always);
  EXPECT_TRUE(readsStaged(base));
  const size_t before = stagedBytesRead();
  const char* got = stagedBytes(base + 1000, 5000, buffer);
  EXPECT_NE(got, base + 1000);
  EXPECT_EQ(std::memcmp(got, bytes.data() + 1000, 5000), 0);
  EXPECT_EQ(stagedBytesRead() - before, 5000u);
  got = stagedBytes(base + bytes.size() - 64, 64, buffer);  // the last bytes
  EXPECT_EQ(std::memcmp(got, bytes.data() + bytes.size() - 64, 64), 0);
  EXPECT_EQ(stagedBytesRead() - before, 5064u);
  // Past the end, outside any mapped file, nothing: the pointer itself.
  EXPECT_EQ(stagedBytes(base + bytes.size() - 10, 20, buffer), base + bytes.size() - 10);
  EXPECT_EQ(stagedBytes(bytes.data(), 100, buffer), bytes.data());
  EXPECT_EQ(stagedBytes(base, 0, buffer), base);
  {
    StagedReadsScope never(StagedReads::Never);
    EXPECT_FALSE(readsStaged(base));
    EXPECT_EQ(stagedBytes(base + 1000, 5000, buffer), base + 1000);
  }
  EXPECT_EQ(stagedBytesRead() - before, 5064u);
  {
    // Auto: a file this small is not worth timing (the first touch is measured on 512 pages
    // of files of 8 MB and more) and is read in place.
    StagedReadsScope automatic(StagedReads::Auto);
    EXPECT_FALSE(costlyFirstTouch(base));
    EXPECT_FALSE(readsStaged(base));
    EXPECT_EQ(stagedBytes(base + 1000, 5000, buffer), base + 1000);
  }
  const char* stale = base;
  file->reset();  // unmapped: no longer registered
  EXPECT_EQ(stagedBytes(stale, 16, buffer), stale);
  fs::remove(path);
}

bool sameBits(const Mat& a, const Mat& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), static_cast<size_t>(a.size()) * sizeof(float)) == 0;
}

class StagedReadsModel : public ::testing::TestWithParam<const char*> {};

TEST_P(StagedReadsModel, ForwardIsTheSameToTheBit) {
  auto m = Model::open(std::string(ATTN_FIXTURE_DIR) + "/" + GetParam());
  ASSERT_TRUE(m.ok()) << m.error().message;
  const std::string text = "When Mary and John went to the store, John gave a drink to";
  for (bool quantizedDot : {true, false}) {
    SCOPED_TRACE(quantizedDot ? "quantized activations" : "f32 panels");
    ModelRun mapped, staged;
    size_t copied = 0;
    {
      StagedReadsScope never(StagedReads::Never);
      const size_t before = stagedBytesRead();
      mapped = attn::test::runWithLogitsOrFail(**m, text, quantizedDot);
      EXPECT_EQ(stagedBytesRead(), before);
    }
    {
      StagedReadsScope always(StagedReads::Always);
      const size_t before = stagedBytesRead();
      staged = attn::test::runWithLogitsOrFail(**m, text, quantizedDot);
      copied = stagedBytesRead() - before;
    }
    EXPECT_GT(copied, 0u) << "the weights were not read with pread";
    ASSERT_EQ(mapped.layers.size(), staged.layers.size());
    ASSERT_FALSE(mapped.layers.empty());
    for (size_t l = 0; l < mapped.layers.size(); ++l)
      for (size_t h = 0; h < mapped.layers[l].heads.size(); ++h)
        EXPECT_TRUE(sameBits(mapped.layers[l].heads[h].weights, staged.layers[l].heads[h].weights))
            << l << "/" << h;
    ASSERT_GT(mapped.logits.size(), 0);
    EXPECT_TRUE(sameBits(mapped.logits, staged.logits));
  }
}

INSTANTIATE_TEST_SUITE_P(Files, StagedReadsModel,
                         ::testing::Values("gguf/models/llama-Q8_0.gguf", "gguf/models/llama256-Q4_K_M.gguf",
                                           "gguf/models/gpt2-Q4_0.gguf", "models/llama"),
                         [](const auto& p) {
                           std::string s = p.param;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s;
                         });

}  // namespace
}  // namespace attn::models
