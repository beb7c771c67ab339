// Session files: round trip, defaults, errors that name the file and field,
// atomic replacement.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "attn/io/session.h"

namespace attn {
namespace {

namespace fs = std::filesystem;

fs::path tempDir() {
  auto d = fs::temp_directory_path() / ("attn_session_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(d);
  return d;
}

std::string slurpSession(const fs::path& p) {
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

TEST(Session, AModelFolderAndLayerRoundTripAndStayOptional) {
  Session s;
  s.input.text = "The animal didn't cross the street";
  s.input.model = "/models/models--gpt2/snapshots/abc";
  s.view.layer = 7;
  const std::string json = sessionToJson(s);
  auto back = sessionFromJson(json, "m.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->input.model, s.input.model);
  EXPECT_EQ(back->view.layer, 7);
  // Without a model the file is what older builds wrote: no "model" or "layer" key.
  const std::string plain = sessionToJson(Session{});
  EXPECT_EQ(plain.find("\"model\""), std::string::npos);
  EXPECT_EQ(plain.find("\"layer\""), std::string::npos);
  auto old = sessionFromJson(R"({"format":"attnscope-session","version":1,"input":{"text":"a"}})", "old.json");
  ASSERT_TRUE(old.ok());
  EXPECT_TRUE(old->input.model.empty());
  EXPECT_EQ(old->view.layer, 0);
  auto bad = sessionFromJson(R"({"format":"attnscope-session","version":1,"view":{"layer":-1}})", "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("bad.json: view.layer"), std::string::npos) << bad.error().message;
}

TEST(Session, GpuInputsRoundTripAndAreOnlyWrittenWhenNotFp32) {
  Session s;
  EXPECT_EQ(sessionToJson(s).find("gpu_inputs"), std::string::npos) << "fp32 files stay as before";
  s.spec.deviceInputs = DeviceInputs::BF16;
  const std::string text = sessionToJson(s);
  EXPECT_NE(text.find(R"("gpu_inputs": "bf16")"), std::string::npos) << text;
  auto back = sessionFromJson(text, "g.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->spec.deviceInputs, DeviceInputs::BF16);
}

TEST(Session, ErrorsNameTheFileAndTheField) {
  const std::string head = R"({"format":"attnscope-session","version":1,)";
  struct Case { std::string json, needle; };
  const Case cases[] = {
      {"{not json", "not valid JSON"},
      {"[1,2]", "must be a JSON object"},
      {R"({"version":1})", "'format'"},
      {R"({"format":1,"version":1})", "'format'"},  // fuzz finding: threw json type_error
      {R"({"format":null,"version":1})", "'format'"},
      {R"({"format":"attnscope-session","version":99})", "version 99 is not supported"},
      {head + R"("config":{"heads":"four"}})", "config.heads must be an integer"},
      {head + R"("config":{"heads":0}})", "config.heads must be in [1, 4096]"},
      {head + R"("config":{"temperature":-1}})", "config.temperature must be a positive number"},
      {head + R"("config":{"mechanism":"telepathy"}})", "config.mechanism has unknown value 'telepathy'"},
      {head + R"("config":{"gpu_inputs":"fp8"}})", "config.gpu_inputs has unknown value 'fp8'"},
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
  const std::string before = slurpSession(path);
  EXPECT_FALSE(saveSession((dir / "missing" / "s.json").string(), s).ok());
  EXPECT_EQ(slurpSession(path), before);

  auto missing = loadSession((dir / "nope.json").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("nope.json"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

// A custom mask's bitmap survives save and load: spec text alone ("custom")
// would lose it (custom masks from a file or painted in the GUI).
TEST(Session, RoundTripsACustomMaskBitmap) {
  Session s;
  s.input.text = "a b c";
  // Rows of a hand-made 3 x 4 (cross-attention shaped) keep bitmap.
  const std::vector<uint8_t> keep = {1, 0, 0, 1,  //
                                     0, 1, 1, 0,  //
                                     0, 0, 0, 0};
  s.spec.mask = Mask::parse("causal+custom").value().withCustom(keep, 3, 4);
  const std::string json = sessionToJson(s);
  EXPECT_NE(json.find("\"1001\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"0000\""), std::string::npos) << json;
  auto back = sessionFromJson(json, "mem.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  const Mask& m = back->spec.mask;
  EXPECT_EQ(m.spec(), "causal+custom");
  EXPECT_FALSE(m.needsCustomData());
  ASSERT_TRUE(m.validate(3, 4).ok());
  // causal restricts the custom pattern: (0,0) kept; (0,3) custom but future; (1,1) both.
  EXPECT_EQ(m.bitmap(3, 4), (std::vector<uint8_t>{1, 0, 0, 0,  //
                                                  0, 1, 0, 0,  //
                                                  0, 0, 0, 0}));
  EXPECT_EQ(Mask::parse("custom").value().withCustom(keep, 3, 4).bitmap(3, 4), keep);
  // And the custom term alone gives the bitmap back as it was.
  Session only;
  only.spec.mask = Mask::custom(keep, 3, 4);
  auto again = sessionFromJson(sessionToJson(only), "mem.json");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->spec.mask.bitmap(3, 4), keep);

  // Without a bitmap a "custom" term stays waiting for the input file's mask.
  Session waiting;
  waiting.spec.mask = Mask::parse("custom").value();
  EXPECT_EQ(sessionToJson(waiting).find("custom_mask"), std::string::npos);
  EXPECT_TRUE(sessionFromJson(sessionToJson(waiting), "w.json")->spec.mask.needsCustomData());
}

TEST(Session, BadCustomMaskBitmapsNameTheField) {
  const std::string head = R"({"format":"attnscope-session","version":1,"config":{"mask":"custom","custom_mask":)";
  struct Case { std::string body, needle; };
  const Case cases[] = {
      {R"("1010"}})", "config.custom_mask must be an object"},
      {R"({"rows":2,"keep":["10","11"]}}})", "rows and cols are required"},
      {R"({"rows":0,"cols":2,"keep":[]}}})", "config.custom_mask.rows must be in [1, 65536]"},
      {R"({"rows":2,"cols":2,"keep":["10"]}}})", "config.custom_mask.keep has 1 rows but rows is 2"},
      {R"({"rows":2,"cols":2,"keep":["10","1"]}}})", "config.custom_mask.keep[1] has 1 characters but cols is 2"},
      {R"({"rows":2,"cols":2,"keep":["10","1x"]}}})", "config.custom_mask.keep[1] has 'x' at column 1"},
      {R"({"rows":1,"cols":2,"keep":[11]}}})", "config.custom_mask.keep[0] must be a string"},
  };
  for (const auto& c : cases) {
    auto s = sessionFromJson(head + c.body, "bad.json");
    ASSERT_FALSE(s.ok()) << c.body;
    EXPECT_EQ(s.error().message.rfind("bad.json: ", 0), 0u) << s.error().message;
    EXPECT_NE(s.error().message.find(c.needle), std::string::npos) << s.error().message;
  }
}

}  // namespace
}  // namespace attn
