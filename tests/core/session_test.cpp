// Session files: round trip, defaults, errors that name the file and field,
// atomic replacement.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "attn/session.h"

namespace attn {
namespace {

namespace fs = std::filesystem;

fs::path tempDir() {
  auto d = fs::temp_directory_path() / ("attn_session_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(Session, RoundTripsEveryField) {
  Session s;
  s.input.text = "The cat sat — 猫";
  s.input.keyText = "on the mat";
  s.input.file = "/data/x.npz";
  s.spec.mechanism = Mechanism::Additive;
  s.spec.heads = 6;
  s.spec.dModel = 96;
  s.spec.dK = 8;
  s.spec.hidden = 12;
  s.spec.temperature = 0.37f;
  s.spec.mask = Mask::causal();
  s.spec.init = InitScheme::Orthogonal;
  s.spec.seed = 1234567890123ULL;
  s.spec.exec = ExecPath::Tiled;
  s.spec.backend = BackendKind::Auto;
  s.view.head = 5;
  s.view.pinnedRow = 2;
  s.view.quantity = "raw_logits";
  s.view.colormap = "magma";
  auto back = sessionFromJson(sessionToJson(s), "mem.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->input.text, s.input.text);
  EXPECT_EQ(back->input.keyText, s.input.keyText);
  EXPECT_EQ(back->input.file, s.input.file);
  EXPECT_EQ(back->spec.mechanism, Mechanism::Additive);
  EXPECT_EQ(back->spec.heads, 6);
  EXPECT_EQ(back->spec.dModel, 96);
  EXPECT_EQ(back->spec.dK, 8);
  EXPECT_EQ(back->spec.hidden, 12);
  EXPECT_EQ(back->spec.temperature, 0.37f);
  EXPECT_EQ(back->spec.mask.spec(), "causal");
  EXPECT_EQ(back->spec.init, InitScheme::Orthogonal);
  EXPECT_EQ(back->spec.seed, 1234567890123ULL);
  EXPECT_EQ(back->spec.exec, ExecPath::Tiled);
  EXPECT_EQ(back->spec.backend, BackendKind::Auto);
  EXPECT_EQ(back->view.head, 5);
  EXPECT_EQ(back->view.pinnedRow, 2);
  EXPECT_EQ(back->view.quantity, "raw_logits");
  EXPECT_EQ(back->view.colormap, "magma");
}

TEST(Session, MissingSectionsTakeDefaults) {
  auto s = sessionFromJson(R"({"format":"attnscope-session","version":1,"input":{"text":"a b"}})", "f.json");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->input.text, "a b");
  EXPECT_EQ(s->spec.heads, AttentionSpec{}.heads);
  EXPECT_EQ(s->view.quantity, "weights");
}

TEST(Session, ErrorsNameTheFileAndTheField) {
  const std::string head = R"({"format":"attnscope-session","version":1,)";
  struct Case { std::string json, needle; };
  const Case cases[] = {
      {"{not json", "not valid JSON"},
      {"[1,2]", "must be a JSON object"},
      {R"({"version":1})", "'format'"},
      {R"({"format":"attnscope-session","version":99})", "version 99 is not supported"},
      {head + R"("config":{"heads":"four"}})", "config.heads must be an integer"},
      {head + R"("config":{"heads":0}})", "config.heads must be in [1, 4096]"},
      {head + R"("config":{"temperature":-1}})", "config.temperature must be a positive number"},
      {head + R"("config":{"mechanism":"telepathy"}})", "config.mechanism has unknown value 'telepathy'"},
      {head + R"("config":{"mask":"sideways"}})", "config.mask"},
      {head + R"("input":{"text":5}})", "input.text must be a string"},
      {head + R"("view":{"quantity":"vibes"}})", "view.quantity has unknown value"},
      {head + R"("view":[]})", "field 'view' must be an object"},
  };
  for (const auto& c : cases) {
    auto s = sessionFromJson(c.json, "bad.json");
    ASSERT_FALSE(s.ok()) << c.json;
    EXPECT_EQ(s.error().message.rfind("bad.json: ", 0), 0u) << s.error().message;
    EXPECT_NE(s.error().message.find(c.needle), std::string::npos) << s.error().message;
  }
}

TEST(Session, SaveIsAtomicAndLoadReadsItBack) {
  const fs::path dir = tempDir();
  const std::string path = (dir / "s.json").string();
  Session s;
  s.input.text = "first";
  ASSERT_TRUE(saveSession(path, s).ok());
  s.input.text = "second";
  ASSERT_TRUE(saveSession(path, s).ok());
  auto back = loadSession(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->input.text, "second");
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);  // no temporary left beside it

  // A save that cannot happen leaves the old file as it was.
  const std::string before = slurp(path);
  EXPECT_FALSE(saveSession((dir / "missing" / "s.json").string(), s).ok());
  EXPECT_EQ(slurp(path), before);

  auto missing = loadSession((dir / "nope.json").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("nope.json"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace attn
