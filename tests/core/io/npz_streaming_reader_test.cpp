// The streaming .npz/.npy reader (members decoded from the file into
// their arrays) against the whole-buffer parser it replaced
// (tests/support/legacy_npz_parse.h): the same arrays byte for byte, stored
// and deflated, as flat values or as planes, and the same error message for
// every truncation and damaged byte of small archives built here.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "attn/io/little_endian.h"
#include "attn/io/npy_reader.h"
#include "legacy_npz_parse.h"

namespace attn {
namespace npz_streaming_test {

namespace fs = std::filesystem;

std::string npyOf(const std::string& descr, bool fortran, const std::string& shape, const std::string& data) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}", descr,
                                 fortran ? "True" : "False", shape);
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  putLe(out, dict.size(), 2);
  return out + dict + data;
}

template <class T>
std::string rawOf(std::initializer_list<T> values, bool bigEndian = false) {
  std::string s;
  for (T v : values) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    if (bigEndian) std::reverse(b, b + sizeof(T));
    s.append(b, sizeof(T));
  }
  return s;
}

std::string rawDeflate(const std::string& in) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, in.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// A zip as np.savez (stored) or np.savez_compressed (deflated) writes it.
std::string zipOf(const std::vector<std::pair<std::string, std::string>>& members, bool deflated) {
  std::string body, dir;
  for (const auto& [name, data] : members) {
    const std::string packed = deflated ? rawDeflate(data) : data;
    const uint32_t crc = static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    const size_t local = body.size();
    body += std::string("PK\x03\x04", 4);
    for (uint64_t v : std::initializer_list<uint64_t>{20, 0, deflated ? 8u : 0u, 0, 0}) putLe(body, v, 2);
    putLe(body, crc, 4);
    putLe(body, packed.size(), 4);
    putLe(body, data.size(), 4);
    putLe(body, name.size(), 2);
    putLe(body, 0, 2);
    body += name + packed;
    dir += std::string("PK\x01\x02", 4);
    for (uint64_t v : std::initializer_list<uint64_t>{20, 20, 0, deflated ? 8u : 0u, 0, 0}) putLe(dir, v, 2);
    putLe(dir, crc, 4);
    putLe(dir, packed.size(), 4);
    putLe(dir, data.size(), 4);
    for (uint64_t v : std::initializer_list<uint64_t>{name.size(), 0, 0, 0, 0}) putLe(dir, v, 2);
    putLe(dir, 0, 4);
    putLe(dir, local, 4);
    dir += name;
  }
  std::string eocd("PK\x05\x06", 4);
  for (uint64_t v : std::initializer_list<uint64_t>{0, 0, members.size(), members.size()}) putLe(eocd, v, 2);
  putLe(eocd, dir.size(), 4);
  putLe(eocd, body.size(), 4);
  putLe(eocd, 0, 2);
  return body + dir + eocd;
}

std::vector<std::pair<std::string, std::string>> everyLayoutMembers() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  return {
      {"q.npy",
       npyOf("<f4", false, "(2, 3, 4)", rawOf<float>({0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                                      12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, -0.0f}))},
      {"nan.npy", npyOf("<f4", false, "(2, 2)",
                        rawOf<float>({nan, -nan, std::numeric_limits<float>::infinity(), 1e-40f}))},
      {"fq.npy",
       npyOf("<f4", true, "(2, 3, 4)", rawOf<float>({0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                                     12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}))},
      {"f8.npy", npyOf("<f8", true, "(3, 2)", rawOf<double>({0.5, 1.5, 2.5, 3.5, 4.5, 1e300}))},
      {"be.npy", npyOf(">f4", false, "(2, 2)", rawOf<float>({1.25f, -2, 3, 4}, true))},
      {"f2.npy", npyOf("<f2", false, "(3,)", rawOf<uint16_t>({0x3C00, 0xC000, 0x7BFF}))},
      {"i8.npy", npyOf("<i8", false, "(3,)", rawOf<int64_t>({-3, 0, 7}))},
      {"u1.npy", npyOf("|u1", false, "(4,)", rawOf<uint8_t>({0, 1, 200, 255}))},
      {"b.npy", npyOf("|b1", false, "(3,)", rawOf<uint8_t>({1, 0, 1}))},
      {"notes.txt", "not an array"},
      {"tokens.npy", npyOf("<U3", false, "(3,)", rawOf<uint32_t>({'a', 0, 0, 0x732B, 0, 0, 'x', 'y', 'z'}))},
      {"empty.npy", npyOf("<f4", false, "(0, 4)", "")},
  };
}

std::string bytesOf(const std::vector<float>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)};
}

std::string planeBytes(const NpyArray& a) {
  std::string s;
  for (const Mat& p : a.planes) s.append(reinterpret_cast<const char*>(p.data()), p.size() * sizeof(float));
  return s;
}

void expectSameArrays(const std::vector<NpyArray>& got, const std::vector<NpyArray>& want,
                      const std::vector<std::string>& planeNames = {}) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(want[i].name);
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(got[i].descr, want[i].descr);
    EXPECT_EQ(got[i].shape, want[i].shape);
    EXPECT_EQ(got[i].isText, want[i].isText);
    EXPECT_EQ(got[i].strings, want[i].strings);
    EXPECT_EQ(got[i].values.shape, want[i].values.shape);
    const bool asPlanes = std::find(planeNames.begin(), planeNames.end(), want[i].name) != planeNames.end() &&
                          !want[i].isText && want[i].shape.size() >= 2 && !want[i].values.data.empty();
    if (asPlanes) {
      EXPECT_TRUE(got[i].values.data.empty());
      ASSERT_FALSE(got[i].planes.empty());
      EXPECT_EQ(got[i].planes[0].rows(), want[i].shape[want[i].shape.size() - 2]);
      EXPECT_EQ(planeBytes(got[i]), bytesOf(want[i].values.data));  // bit patterns: NaN payloads, -0
    } else {
      EXPECT_TRUE(got[i].planes.empty());
      EXPECT_EQ(bytesOf(got[i].values.data), bytesOf(want[i].values.data));
    }
  }
}

fs::path writeTemp(const std::string& name, const std::string& bytes) {
  const fs::path p = fs::temp_directory_path() / fmt::format("attn_npz_stream_{}_{}", ::getpid(), name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

std::string outcome(const Result<std::vector<NpyArray>>& r) { return r ? "ok" : r.error().message; }
std::string outcome(const Result<NpyArray>& r) { return r ? "ok" : r.error().message; }

TEST(NpzStreamingReader, SameArraysAsTheWholeFileParseStoredAndDeflated) {
  for (bool deflated : {false, true}) {
    SCOPED_TRACE(deflated ? "deflated" : "stored");
    const std::string zip = zipOf(everyLayoutMembers(), deflated);
    auto want = legacy::parseNpz(zip, "mem.npz");
    ASSERT_TRUE(want.ok()) << want.error().message;
    ASSERT_EQ(want->size(), 11u);
    auto mem = parseNpz(zip, "mem.npz");
    ASSERT_TRUE(mem.ok()) << mem.error().message;
    expectSameArrays(*mem, *want);
    const fs::path file = writeTemp(deflated ? "d.npz" : "s.npz", zip);
    auto fromFile = readNpzFile(file.string());
    ASSERT_TRUE(fromFile.ok()) << fromFile.error().message;
    expectSameArrays(*fromFile, *want);
    // Planes: what the input loader asks for q/k/v (the Fortran-order one is converted first).
    const std::vector<std::string> planeNames{"q", "fq", "f8", "nan", "i8", "tokens", "empty"};
    auto planes = readNpzFile(file.string(), {}, planeNames);
    ASSERT_TRUE(planes.ok()) << planes.error().message;
    expectSameArrays(*planes, *want, planeNames);
    EXPECT_EQ((*planes)[0].planes.size(), 2u);
    fs::remove(file);
  }
}

TEST(NpzStreamingReader, LargeMemberCrossesChunksIntact) {
  // Larger than the 64 KiB input chunks and the 1 MiB conversion chunks.
  std::vector<float> f4(300000);
  std::vector<double> f8(200000);
  for (size_t i = 0; i < f4.size(); ++i) f4[i] = std::sin(static_cast<float>(i)) * 1000.0f;
  for (size_t i = 0; i < f8.size(); ++i) f8[i] = std::cos(static_cast<double>(i)) * 1e-3;
  const std::string raw4(reinterpret_cast<const char*>(f4.data()), f4.size() * 4);
  const std::string raw8(reinterpret_cast<const char*>(f8.data()), f8.size() * 8);
  for (bool deflated : {false, true}) {
    SCOPED_TRACE(deflated ? "deflated" : "stored");
    const std::string zip = zipOf({{"q.npy", npyOf("<f4", false, "(3, 1000, 100)", raw4)},
                                   {"k.npy", npyOf("<f8", false, "(200000,)", raw8)}},
                                  deflated);
    const fs::path file = writeTemp("big.npz", zip);
    auto want = legacy::parseNpz(zip, file.string());
    ASSERT_TRUE(want.ok()) << want.error().message;
    auto got = readNpzFile(file.string(), {}, {"q"});
    ASSERT_TRUE(got.ok()) << got.error().message;
    expectSameArrays(*got, *want, {"q"});
    fs::remove(file);
  }
}

TEST(NpzStreamingReader, SameErrorForEveryTruncationAndDamagedByte) {
  const auto all = everyLayoutMembers();
  // Small archives, so that every byte can be damaged: a float array, text and a non-array member.
  const std::vector<std::pair<std::string, std::string>> members{all[0], all[10], all[9]};
  ReadLimits tight;
  tight.maxElements = 20;
  tight.maxBytes = 200;
  for (bool deflated : {false, true}) {
    SCOPED_TRACE(deflated ? "deflated" : "stored");
    const std::string zip = zipOf(members, deflated);
    int compared = 0;
    auto compare = [&](const std::string& bytes, const std::string& what) {
      for (const ReadLimits& limits : {ReadLimits{}, tight}) {
        const std::string want = outcome(legacy::parseNpz(bytes, "bad.npz", limits));
        ASSERT_EQ(outcome(parseNpz(bytes, "bad.npz", limits)), want) << what;
        ++compared;
      }
    };
    for (size_t n = 0; n < zip.size(); ++n) compare(zip.substr(0, n), fmt::format("cut at {}", n));
    for (size_t i = 0; i < zip.size(); ++i)
      for (unsigned char flip : {0x00, 0xFF, 0x01, 0x80}) {
        std::string bad = zip;
        bad[i] = static_cast<char>(flip == 0x01 || flip == 0x80 ? bad[i] ^ flip : flip);
        compare(bad, fmt::format("byte {} set from {:#x}", i, static_cast<unsigned char>(zip[i])));
      }
    EXPECT_GT(compared, 1000);
    // The file reader gives the same messages (with the path as the name).
    for (size_t n : {size_t{0}, size_t{10}, zip.size() / 2, zip.size() - 23, zip.size() - 1}) {
      const fs::path file = writeTemp("cut.npz", zip.substr(0, n));
      const auto fileName = file.string();
      const std::string want =
          n == 0 ? fileName + ": file is empty" : outcome(legacy::parseNpz(zip.substr(0, n), fileName));
      EXPECT_EQ(outcome(readNpzFile(fileName)), want) << n;
      fs::remove(file);
    }
  }
}

TEST(NpzStreamingReader, DeflateSizeLiesAreCaught) {
  // A deflated member whose directory claims one byte more, or one less, than it inflates to.
  const std::string npy = everyLayoutMembers()[0].second;
  const std::string zip = zipOf({{"q.npy", npy}}, true);
  const size_t cd = zip.find(std::string("PK\x01\x02", 4));
  for (int64_t delta : std::initializer_list<int64_t>{-1, 1, -static_cast<int64_t>(npy.size()) + 5}) {
    std::string bad = zip;
    const uint64_t lie = npy.size() + delta;
    for (int b = 0; b < 4; ++b) bad[cd + 24 + b] = static_cast<char>((lie >> (8 * b)) & 0xFF);
    auto r = parseNpz(bad, "lie.npz");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, outcome(legacy::parseNpz(bad, "lie.npz")));
    EXPECT_NE(r.error().message.find("deflate data is corrupt or its size is not"), std::string::npos)
        << r.error().message;
  }
}

TEST(NpyStreamingReader, SameErrorsAsTheWholeFileParse) {
  const std::string npy = everyLayoutMembers()[10].second + "";  // text: per-element reads
  const std::string f4 = everyLayoutMembers()[2].second;         // Fortran order
  for (const std::string& good : {npy, f4}) {
    for (size_t n = 0; n <= good.size(); ++n)
      ASSERT_EQ(outcome(parseNpy(good.substr(0, n), "bad.npy")),
                outcome(legacy::parseNpy(good.substr(0, n), "bad.npy")))
          << n;
    for (size_t i = 0; i < good.size(); ++i)
      for (unsigned char v : {0x00, 0xFF, 0x31}) {
        std::string bad = good;
        bad[i] = static_cast<char>(v);
        auto got = parseNpy(bad, "bad.npy");
        auto want = legacy::parseNpy(bad, "bad.npy");
        ASSERT_EQ(outcome(got), outcome(want)) << i;
        if (got) {
          ASSERT_EQ(bytesOf(got->values.data), bytesOf(want->values.data)) << i;
        }
      }
  }
  const fs::path file = writeTemp("f.npy", f4);
  auto fromFile = readNpyFile(file.string());
  ASSERT_TRUE(fromFile.ok()) << fromFile.error().message;
  EXPECT_EQ(bytesOf(fromFile->values.data), bytesOf(legacy::parseNpy(f4, "f.npy")->values.data));
  fs::remove(file);
}

TEST(NpzStreamingReader, FuzzCorporaGiveTheSameOutcome) {
  ReadLimits fuzzLimits;  // as tests/fuzz/npz_fuzz.cpp and npy_fuzz.cpp set them
  fuzzLimits.maxElements = int64_t{1} << 20;
  fuzzLimits.maxBytes = int64_t{16} << 20;
  const fs::path corpus = fs::path(ATTN_FIXTURE_DIR).parent_path() / "fuzz" / "corpus";
  int files = 0;
  for (const char* kind : {"npz", "npy"})
    for (const auto& entry : fs::directory_iterator(corpus / kind)) {
      SCOPED_TRACE(entry.path().string());
      std::ifstream f(entry.path(), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      for (const ReadLimits& limits : {ReadLimits{}, fuzzLimits}) {
        if (std::string(kind) == "npz")
          EXPECT_EQ(outcome(parseNpz(bytes, "fuzz.npz", limits)),
                    outcome(legacy::parseNpz(bytes, "fuzz.npz", limits)));
        else
          EXPECT_EQ(outcome(parseNpy(bytes, "fuzz.npy", limits)),
                    outcome(legacy::parseNpy(bytes, "fuzz.npy", limits)));
      }
      ++files;
    }
  EXPECT_GT(files, 5);
}

}  // namespace npz_streaming_test
}  // namespace attn
