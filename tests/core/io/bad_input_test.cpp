// Bad input: each case gives one clear message naming the file and the fault,
// and nothing crashes. Files are committed (tests/scripts/gen_input_fixtures.py)
// or cut from good fixtures here.
#include <gtest/gtest.h>

#include <filesystem>

#include "attn/io/input_file.h"
#include "attn/io/csv_reader.h"
#include "attn/io/npy_reader.h"
#include "attn/io/safetensors_reader.h"
#include "attn/io/text_file.h"
#include "model_fixtures.h"

namespace attn {
namespace {

using attn::test::ioFixture;

std::string bad(const std::string& name) { return std::string(ATTN_FIXTURE_DIR) + "/io/bad/" + name; }
struct Case {
  const char* file;
  std::vector<const char*> expect;  // substrings of the one-line message
};

class BadInputFile : public ::testing::TestWithParam<Case> {};

TEST_P(BadInputFile, OneLineNamingFileAndFault) {
  const Case& c = GetParam();
  auto in = loadInputFile(bad(c.file));
  ASSERT_FALSE(in.ok()) << c.file << " loaded";
  const std::string& msg = in.error().message;
  EXPECT_TRUE(msg.starts_with(bad(c.file))) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  for (const char* e : c.expect) EXPECT_NE(msg.find(e), std::string::npos) << "want '" << e << "' in: " << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Files, BadInputFile,
    ::testing::Values(
        Case{"truncated.npy", {"header says [2, 3] <f4 (24 bytes) but only 19 bytes of data follow"}},
        Case{"wrong_magic.npy", {"bad magic"}}, Case{"empty.npz", {"file is empty"}},
        Case{"complex.npy", {"unsupported dtype '<c8'"}},
        Case{"lying_header.npy", {"header says [100, 100] <f4 (40000 bytes) but only 16 bytes"}},
        Case{"huge_elements.npy", {"[1000000, 1000000] has more than"}},
        Case{"huge_header.safetensors", {"header claims 10737418240 bytes"}},
        Case{"truncated.safetensors", {"tensor 'bf16'", "outside the", "truncated"}},
        Case{"f8e4m3.safetensors", {"tensor 'q'", "unsupported dtype 'F8_E4M3'"}},
        Case{"truncated.npz", {"truncated"}},
        Case{"qk_mismatch.npz", {"'q' [2, 4, 3] and 'k' [2, 4, 5] disagree", "same width d_k"}},
        Case{"tokens_length.npz", {"'tokens' has 3 tokens but 'q' [2, 4, 3] has 4 query rows"}},
        Case{"mask_shape.npz", {"'attn' [3, 2, 4, 5] and 'mask' [4, 4] disagree", "[4, 5]"}},
        Case{"nan.npz", {"'x' has a non-finite value (nan) at flat index 1"}},
        Case{"ragged.csv", {"row 2 has 2 cells but row 1 has 3"}},
        Case{"latin1.txt", {"unknown file type '.txt'"}}, Case{"missing.npz", {"no such file"}}));

TEST(BadInput, NonUtf8TextNamesTheByteOffset) {
  auto t = readUtf8TextFile(bad("latin1.txt"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, bad("latin1.txt") + ": not valid UTF-8 text (byte offset 3: 0xE9)");
  auto csv = parseCsvMatrix("1,2\n\xFF,3\n", "m.csv");
  ASSERT_FALSE(csv.ok());
  EXPECT_EQ(csv.error().message, "m.csv: not valid UTF-8 text (byte offset 4)");
}

TEST(BadInput, FolderAndUnknownExtension) {
  auto dir = loadInputFile(std::string(ATTN_FIXTURE_DIR));
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message.find("is a folder"), std::string::npos);
}

TEST(BadInput, TokensOnlyOrNothingUsable) {
  std::vector<NpyArray> arrays(1);
  arrays[0].name = "tokens";
  arrays[0].isText = true;
  arrays[0].shape = {2};
  arrays[0].strings = {"a", "b"};
  auto in = inputFromArrays(arrays, "t.npz");
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.error().message, "t.npz: nothing to attend over: found tokens; expected 'q'/'k'/'v', 'x' or 'attn'");
}

TEST(BadInput, SafetensorsHeaderCheckedBeforeAllocation) {
  // 10 GB header length in memory, and an element count past the limit.
  std::string b("\x00\x00\x00\x80\x02\x00\x00\x00{}", 10);
  auto r = parseSafetensors(b, "big.safetensors");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("header claims 10737418240 bytes"), std::string::npos) << r.error().message;
  auto e = parseSafetensorsHeader(R"({"w": {"dtype": "F32", "shape": [1000000, 1000000], "data_offsets": [0, 4]}})",
                                  4, "h.safetensors");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("more than"), std::string::npos) << e.error().message;
  auto lie = parseSafetensorsHeader(R"({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 8]}})", 8,
                                    "h.safetensors");
  ASSERT_FALSE(lie.ok());
  EXPECT_NE(lie.error().message.find("needs 16 bytes but data_offsets span 8"), std::string::npos);
  auto notJson = parseSafetensors(std::string("\x04\0\0\0\0\0\0\0abcd", 12), "x.safetensors");
  ASSERT_FALSE(notJson.ok());
  EXPECT_NE(notJson.error().message.find("not a JSON object"), std::string::npos);
}

TEST(BadInput, ZipMemberSizeThatLiesIsRefusedBeforeInflating) {
  std::string z = readFileBytes(ioFixture("deflated.npz")).value();
  // Central directory entry 0: uncompressed size at +24. Claim 4 GB - 1.
  const size_t cd = z.find(std::string("PK\x01\x02", 4));
  ASSERT_NE(cd, std::string::npos);
  for (int i = 0; i < 4; ++i) z[cd + 24 + i] = '\xFE';
  auto r = parseNpz(z, "lie.npz");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("corrupt header"), std::string::npos) << r.error().message;
}

// Every prefix of every good file parses to a value or an error; none crashes.
TEST(BadInput, EveryTruncationIsAnErrorOrValue) {
  for (const char* f : {"contract_qkv.npz", "stored.npz", "dtypes.safetensors", "tokens.npy", "f4_3d_fortran.npy",
                        "attn_tokens.csv"}) {
    const std::string bytes = readFileBytes(ioFixture(f)).value();
    const std::string name = f;
    int errors = 0;
    for (size_t n = 0; n < bytes.size(); ++n) {
      const std::string_view cut(bytes.data(), n);
      bool ok = false;
      if (name.ends_with(".npz")) ok = parseNpz(cut, name).ok();
      else if (name.ends_with(".safetensors")) ok = parseSafetensors(cut, name).ok();
      else if (name.ends_with(".npy")) ok = parseNpy(cut, name).ok();
      else ok = parseCsvMatrix(cut, name).ok();
      errors += ok ? 0 : 1;
    }
    EXPECT_GT(errors, 0) << f;
  }
}

}  // namespace
}  // namespace attn
