// The GGUF reader on files built field by field here (ggml docs/gguf.md): values of
// every metadata type, tensor infos and their data read back at hand-computed
// offsets, and one clear error for each kind of broken or hostile file.
#include "attn/models/gguf/gguf_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "attn/models/gguf/ggml_types.h"
#include "gguf_builder.h"

namespace attn::models::gguf {
namespace {

using attn::test::GgufBuilder;

std::string errorOf(const std::string& bytes) {
  auto f = GgufFile::parse(bytes, "t.gguf");
  return f ? std::string("(parsed)") : f.error().message;
}

/// Metadata of every value type, alignment 64, an F32 [2 x 3] matrix and a Q8_0 row.
GgufBuilder wellFormed(size_t* dataStart = nullptr, uint32_t version = 3) {
  GgufBuilder b;
  b.header(2, 17, version);
  b.str("a.u8").u32(0).u8(200);
  b.str("a.i8").u32(1).u8(0xF6);  // -10
  b.str("a.u16").u32(2).u8(0x34).u8(0x12);
  b.str("a.i16").u32(3).u8(0xFE).u8(0xFF);  // -2
  b.kvU32("a.u32", 4000000000u);
  b.str("a.i32").u32(5).u32(static_cast<uint32_t>(-7));
  b.kvF32("a.f32", 0.5f);
  b.str("a.bool").u32(7).u8(1);
  b.kvStr("a.str", "llama");
  b.str("a.u64").u32(10).u64(uint64_t{1} << 40);
  b.str("a.i64").u32(11).u64(static_cast<uint64_t>(int64_t{-3}));
  b.str("a.f64").u32(12).u64(0x3FF8000000000000ull);  // 1.5
  b.str("a.arr_i32").u32(9).u32(5).u64(3).u32(1).u32(static_cast<uint32_t>(-2)).u32(3);
  b.str("a.arr_str").u32(9).u32(8).u64(3).str("<s>").str("").str("▁the");
  b.str("a.arr_arr").u32(9).u32(9).u64(2).u32(0).u64(1).u8(9).u32(8).u64(1).str("x");  // [[9], ["x"]]
  b.str("a.arr_f32").u32(9).u32(6).u64(2).f32(-1.25f).f32(3.0f);
  b.kvU32("general.alignment", 64);
  // F32 [rows 2, cols 3]: ggml dims {3, 2}, 24 bytes at 0; Q8_0 {32}: 34 bytes at 64.
  b.tensor("w", {3, 2}, 0, 0).tensor("q", {32}, 8, 64);
  const size_t start = (b.out.size() + 63) / 64 * 64;
  if (dataStart) *dataStart = start;
  b.padTo(64);
  for (int i = 0; i < 6; ++i) b.f32(static_cast<float>(i) + 0.25f);
  b.padTo(64);
  for (int i = 0; i < 34; ++i) b.u8(static_cast<uint8_t>(i));
  return b;
}

TEST(GgufFile, ReadsEveryValueTypeAndTheTensorsAtTheirOffsets) {
  size_t start = 0;
  const std::string bytes = wellFormed(&start).out;
  auto f = GgufFile::parse(bytes, "t.gguf");
  ASSERT_TRUE(f) << f.error().message;
  const GgufFile& g = **f;
  EXPECT_EQ(g.version(), 3u);
  EXPECT_EQ(g.alignment(), 64u);
  EXPECT_EQ(g.dataOffset(), start);
  EXPECT_EQ(g.metadata().size(), 17u);
  EXPECT_EQ(*g.integer("a.u8", {}, 0, 1000), 200);
  EXPECT_EQ(*g.integer("a.i8", {}, -100, 100), -10);
  EXPECT_EQ(*g.integer("a.u16", {}, 0, 100000), 0x1234);
  EXPECT_EQ(*g.integer("a.i16", {}, -100, 100), -2);
  EXPECT_EQ(*g.integer("a.u32", {}, 0, INT64_MAX), 4000000000);
  EXPECT_EQ(*g.integer("a.i32", {}, -100, 100), -7);
  EXPECT_EQ(*g.number("a.f32", {}, 0, 1), 0.5);
  EXPECT_TRUE(*g.boolean("a.bool", {}));
  EXPECT_EQ(*g.string("a.str", {}), "llama");
  EXPECT_EQ(*g.integer("a.u64", {}, 0, INT64_MAX), int64_t{1} << 40);
  EXPECT_EQ(*g.integer("a.i64", {}, -100, 100), -3);
  EXPECT_EQ(*g.number("a.f64", {}, 0, 2), 1.5);
  EXPECT_EQ(*g.numberArray("a.arr_i32"), (std::vector<double>{1, -2, 3}));
  EXPECT_EQ(*g.numberArray("a.arr_f32"), (std::vector<double>{-1.25, 3.0}));
  EXPECT_EQ(*g.stringArray("a.arr_str"), (std::vector<std::string_view>{"<s>", "", "▁the"}));
  const MetaValue* nested = g.find("a.arr_arr");
  ASSERT_NE(nested, nullptr);
  EXPECT_EQ(nested->elementType, ValueType::Array);
  EXPECT_EQ(nested->count, 2u);
  // Defaults, and the wrong type named.
  EXPECT_EQ(*g.integer("absent", 7, 0, 10), 7);
  EXPECT_NE(g.integer("a.str", {}, 0, 1).error().message.find("'a.str' is a string, expected an integer"),
            std::string::npos);
  EXPECT_NE(g.integer("a.u32", {}, 0, 10).error().message.find("expected 0 to 10"), std::string::npos);
  EXPECT_NE(g.string("absent", {}).error().message.find("t.gguf: metadata 'absent' is missing"),
            std::string::npos);

  ASSERT_EQ(g.tensors().size(), 2u);
  const TensorInfo* w = g.tensor("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->dims, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(w->elements, 6);
  EXPECT_EQ(w->bytes, 24u);
  float v[6];
  std::memcpy(v, g.data(*w).data(), 24);
  EXPECT_EQ(v[0], 0.25f);
  EXPECT_EQ(v[5], 5.25f);
  const TensorInfo* q = g.tensor("q");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->type, 8u);
  EXPECT_EQ(q->bytes, 34u);
  EXPECT_EQ(q->offset, 64u);
  EXPECT_EQ(g.data(*q)[33], '\x21');
  EXPECT_EQ(g.tensor("absent"), nullptr);
}

TEST(GgufFile, ReadsVersion2AndOpensFilesFromDisk) {
  const std::string bytes = wellFormed(nullptr, 2).out;
  auto v2 = GgufFile::parse(bytes, "v2.gguf");
  ASSERT_TRUE(v2) << v2.error().message;
  EXPECT_EQ((*v2)->version(), 2u);

  const auto path = (std::filesystem::temp_directory_path() / "attn_gguf_reader_test.gguf").string();
  { std::ofstream(path, std::ios::binary) << bytes; }
  auto f = GgufFile::open(path);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ((*f)->path(), path);
  EXPECT_EQ((*f)->fileSize(), bytes.size());
  EXPECT_EQ((*f)->data(*(*f)->tensor("q"))[1], '\x01');
  EXPECT_TRUE(looksLikeGguf(path));
  std::remove(path.c_str());
  auto missing = GgufFile::open(path);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find(path), std::string::npos);
  EXPECT_FALSE(looksLikeGguf(path));
}

TEST(GgufFile, EveryTruncationIsAnErrorNotACrash) {
  const std::string full = wellFormed().out;
  for (size_t n = 0; n < full.size(); ++n) {
    auto f = GgufFile::parse(std::string_view(full).substr(0, n), "cut.gguf");
    ASSERT_FALSE(f) << "prefix of " << n << " bytes parsed";
    EXPECT_EQ(f.error().message.rfind("cut.gguf: ", 0), 0u) << f.error().message;
  }
}

TEST(GgufFile, RefusesWrongMagicVersionAndByteOrder) {
  EXPECT_NE(errorOf("GGML....").find("not a GGUF file"), std::string::npos);
  EXPECT_NE(errorOf("").find("not a GGUF file"), std::string::npos);
  EXPECT_NE(errorOf(GgufBuilder().header(0, 0, 1).out).find("GGUF version 1"), std::string::npos);
  EXPECT_NE(errorOf(GgufBuilder().header(0, 0, 4).out).find("GGUF version 4 is not supported"),
            std::string::npos);
  EXPECT_NE(errorOf(GgufBuilder().header(0, 0, 0x03000000).out).find("big-endian"), std::string::npos);
  EXPECT_EQ(errorOf(GgufBuilder().header(0, 0).out), "(parsed)");  // nothing at all is a valid file
}

TEST(GgufFile, CountsAndLengthsAreBoundedByTheFileBeforeAllocating) {
  // 2^62 entries / tensors in a 24-byte file.
  EXPECT_NE(
      errorOf(GgufBuilder().header(0, uint64_t{1} << 62).out).find("claims 4611686018427387904 metadata"),
      std::string::npos);
  EXPECT_NE(errorOf(GgufBuilder().header(uint64_t{1} << 62, 0).out).find("tensors, more than"),
            std::string::npos);
  // A key of length 2^63 (with enough bytes after it to pass the header's count bound),
  // a string value of 2^63 bytes.
  EXPECT_NE(errorOf(GgufBuilder().header(0, 1).u64(uint64_t{1} << 63).raw(std::string(16, 'k')).out)
                .find("at most 65535 allowed"),
            std::string::npos);
  const std::string longValue = GgufBuilder().header(0, 1).str("k").u32(8).u64(uint64_t{1} << 63).out;
  EXPECT_NE(errorOf(longValue).find("metadata 'k' at byte 37 claims 9223372036854775808 bytes"),
            std::string::npos)
      << errorOf(longValue);
  // An array of 2^40 uint32 and of 2^60 strings.
  EXPECT_NE(errorOf(GgufBuilder().header(0, 1).str("k").u32(9).u32(4).u64(uint64_t{1} << 40).u32(1).out)
                .find("claims 1099511627776 elements of type uint32"),
            std::string::npos);
  EXPECT_NE(errorOf(GgufBuilder().header(0, 1).str("k").u32(9).u32(8).u64(uint64_t{1} << 60).str("a").out)
                .find("elements of type string, more than the"),
            std::string::npos);
  // The second of two strings claims 1000 bytes (8 + 1 + 8 + 2 = 19 bytes after the count,
  // which admits two strings): the error names the element and where it starts.
  const std::string longElement =
      GgufBuilder().header(0, 1).str("k").u32(9).u32(8).u64(2).str("a").u64(1000).raw("xy").out;
  EXPECT_NE(errorOf(longElement).find("metadata 'k'[1] at byte 58 claims 1000 bytes but only 2 are left"),
            std::string::npos)
      << errorOf(longElement);
  // Arrays nested 9 deep.
  GgufBuilder deep;
  deep.header(0, 1).str("k").u32(9);
  for (int i = 0; i < 9; ++i) deep.u32(9).u64(1);
  deep.u32(0).u64(0);
  EXPECT_NE(errorOf(deep.out).find("nested deeper than 8"), std::string::npos) << errorOf(deep.out);
}

TEST(GgufFile, RefusesBadValues) {
  EXPECT_NE(
      errorOf(GgufBuilder().header(0, 1).str("k").u32(13).out).find("metadata 'k' has unknown value type 13"),
      std::string::npos);
  EXPECT_NE(errorOf(GgufBuilder().header(0, 1).str("k").u32(7).u8(2).out).find("bool of value 2"),
            std::string::npos);
  EXPECT_NE(errorOf(GgufBuilder().header(0, 1).str("k").u32(9).u32(7).u64(2).u8(0).u8(5).out)
                .find("element 1 is a bool of value 5"),
            std::string::npos);
  EXPECT_NE(
      errorOf(GgufBuilder().header(0, 2).kvU32("k", 1).kvU32("k", 2).out).find("metadata 'k' appears twice"),
      std::string::npos);
  EXPECT_NE(errorOf(GgufBuilder().header(0, 1).kvU32("general.alignment", 48).out)
                .find("'general.alignment' is 48, expected a power of two"),
            std::string::npos);
  EXPECT_NE(
      errorOf(GgufBuilder().header(0, 1).kvU32("general.alignment", 0).out).find("is 0, expected a power"),
      std::string::npos);
  EXPECT_NE(errorOf(GgufBuilder().header(0, 1).kvStr("general.alignment", "32").out)
                .find("'general.alignment' is a string, expected an unsigned integer"),
            std::string::npos);
}

std::string oneTensor(std::initializer_list<uint64_t> dims, uint32_t type, uint64_t offset,
                      size_t dataBytes) {
  GgufBuilder b;
  b.header(1, 0).tensor("blk.0.attn_q.weight", dims, type, offset).padTo(32);
  b.out.append(dataBytes, '\0');
  return b.out;
}

TEST(GgufFile, RefusesBadTensorInfos) {
  EXPECT_EQ(errorOf(oneTensor({4, 2}, 0, 0, 32)), "(parsed)");
  EXPECT_NE(
      errorOf(oneTensor({4, 2}, 4, 0, 32)).find("tensor 'blk.0.attn_q.weight' has unknown tensor type 4"),
      std::string::npos);
  EXPECT_NE(errorOf(oneTensor({4, 2}, 99, 0, 32)).find("unknown tensor type 99"), std::string::npos);
  EXPECT_NE(errorOf(oneTensor({4, 2}, 0, 0, 31)).find("(32 bytes at data offset 0) ends past the end"),
            std::string::npos);
  EXPECT_NE(errorOf(oneTensor({4, 2}, 0, uint64_t{1} << 63, 32)).find("ends past the end"),
            std::string::npos);
  EXPECT_NE(errorOf(oneTensor({4, 2}, 0, 8, 64)).find("offset 8, not a multiple of the alignment 32"),
            std::string::npos);
  EXPECT_NE(errorOf(oneTensor({31}, 8, 0, 64))
                .find("of type Q8_0: its rows of 31 values are not whole blocks of 32"),
            std::string::npos);
  EXPECT_NE(errorOf(oneTensor({4, 0}, 0, 0, 64)).find("dimension 1 of size 0"), std::string::npos);
  EXPECT_NE(errorOf(oneTensor({1, 1, 1, 1, 1}, 0, 0, 64)).find("has 5 dimensions"), std::string::npos);
  EXPECT_NE(
      errorOf(oneTensor({uint64_t{1} << 30, uint64_t{1} << 30}, 0, 0, 64)).find("at most 2^50 elements"),
      std::string::npos);
  // Two tensors whose bytes overlap; the same name twice.
  GgufBuilder b;
  b.header(2, 0).tensor("a", {16}, 0, 0).tensor("b", {16}, 0, 32).padTo(32);
  b.out.append(128, '\0');
  EXPECT_NE(errorOf(b.out).find("tensors 'a' and 'b' overlap (data offsets 0 + 64 bytes and 32)"),
            std::string::npos);
  GgufBuilder twice;
  twice.header(2, 0).tensor("a", {8}, 0, 0).tensor("a", {8}, 0, 32).padTo(32);
  twice.out.append(64, '\0');
  EXPECT_NE(errorOf(twice.out).find("tensor 'a' appears twice"), std::string::npos);
}

TEST(GgmlTypes, SizesAndNamesFollowGgml) {
  // sizeof(block_*) of ggml-common.h, by hand: Q4_K = 2 + 2 + 12 + 128, Q6_K = 128 + 64 + 16 + 2.
  EXPECT_EQ(ggmlTypeTraits(12)->blockBytes, 144);
  EXPECT_EQ(ggmlTypeTraits(14)->blockBytes, 210);
  EXPECT_EQ(ggmlTypeTraits(8)->blockBytes, 34);
  EXPECT_EQ(ggmlTypeTraits(30)->blockBytes, 2);
  EXPECT_EQ(ggmlTypeTraits(4), nullptr);  // Q4_2, removed
  EXPECT_EQ(ggmlTypeName(13), "Q5_K");
  EXPECT_EQ(ggmlTypeName(77), "type 77");
}

}  // namespace
}  // namespace attn::models::gguf
