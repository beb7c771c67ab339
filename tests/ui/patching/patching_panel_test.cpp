// The Activation patching dock, offscreen, on the GPT-2 and Llama fixtures: a run gives the
// numbers Model::patch gives for the same texts and tokens (and draws them), Cancel keeps the
// maps shown, a pair of texts of different lengths or a target of several tokens is refused
// with the core's message and leaves the old result, clicking a head cell shows that layer and
// head in the main views, and a BERT model is refused with the core's one line.
#include "attn_ui/patching/patching_panel.h"

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QCoreApplication>
#include <QLineEdit>

#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_widget.h"

namespace attn::ui {
namespace {

std::shared_ptr<const attn::models::Model> openPatchFixture(const char* name) {
  auto m = attn::models::Model::open(std::string(ATTN_FIXTURE_DIR "/models/") + name);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : nullptr;
}

int encodedSize(const attn::models::Model& m, const std::string& text) {
  auto e = m.encode(text, std::nullopt, "t");
  return e ? e->size() : -1;
}

/// A corrupt text with as many tokens as `clean` on this tokenizer (one word changed).
std::string sameLengthCorrupt(const attn::models::Model& m, const std::string& clean) {
  for (const char* c : {"The dog sat on the mat and", "The cat ran on the mat and",
                        "A cat sat on the mat and", "The cat sat in the mat and", "The cat sat on a mat and"})
    if (encodedSize(m, c) == encodedSize(m, clean) && c != clean) return c;
  return {};
}

struct PatchSetup {
  ExplorerModel model;
  std::shared_ptr<const attn::models::Model> m;
  std::string clean = "The cat sat on the mat and", corrupt;
};

void fill(PatchingPanel& panel, const PatchSetup& s, const QString& target, const QString& foil) {
  panel.cleanEdit()->setText(QString::fromStdString(s.clean));
  panel.corruptEdit()->setText(QString::fromStdString(s.corrupt));
  panel.targetEdit()->setText(target);
  panel.foilEdit()->setText(foil);
}

void openInto(PatchSetup& s, const char* name) {
  s.m = openPatchFixture(name);
  ASSERT_NE(s.m, nullptr);
  s.corrupt = sameLengthCorrupt(*s.m, s.clean);
  ASSERT_FALSE(s.corrupt.empty()) << "no corrupt text of the clean one's length on " << name;
  s.model.setModel(s.m);
  s.model.setText(QString::fromStdString(s.clean));
  s.model.waitForIdle();
  QCoreApplication::processEvents();
}

TEST(PatchingPanel, RunGivesTheCoresFractionsAndDrawsThem) {
  for (const char* name : {"gpt2", "llama"}) {
    SCOPED_TRACE(name);
    PatchSetup s;
    PatchingPanel panel(&s.model);
    panel.resize(1000, 400);
    openInto(s, name);
    fill(panel, s, "#5", "#9");
    panel.run();
    panel.waitForIdle();
    ASSERT_NE(panel.result(), nullptr) << panel.status().toStdString();
    auto clean = s.m->encode(s.clean, std::nullopt, "clean");
    auto corrupt = s.m->encode(s.corrupt, std::nullopt, "corrupt");
    auto want = s.m->patch(*clean, *corrupt, 5, 9, attn::models::PatchingOptions{});
    ASSERT_TRUE(want.ok()) << want.error().message;
    const auto& got = *panel.result();
    EXPECT_EQ(got.cleanDiff, want->cleanDiff);
    EXPECT_EQ(got.corruptDiff, want->corruptDiff);
    const int L = s.m->info().layers, H = s.m->info().heads, n = clean->size();
    ASSERT_EQ(got.heads.rows(), L);
    ASSERT_EQ(got.heads.cols(), H);
    ASSERT_EQ(got.residual.cols(), n);
    for (auto [l, h] : {std::pair{0, 0}, std::pair{L - 1, H - 1}, std::pair{L / 2, 1}})
      EXPECT_EQ(got.heads(l, h), want->heads(l, h));
    for (auto [l, p] : {std::pair{0, n - 1}, std::pair{L - 1, 1}, std::pair{1, n / 2}}) {
      EXPECT_EQ(got.residual(l, p), want->residual(l, p));
      EXPECT_EQ(got.mlp(l, p), want->mlp(l, p));
    }
    // The maps are the result, rows = layers, on a scale symmetric around 0.
    const attn::Mat& drawn = panel.map(PatchingPanel::Site::Heads)->matrix();
    ASSERT_EQ(drawn.rows(), L);
    EXPECT_EQ(drawn(L - 1, H - 1), want->heads(L - 1, H - 1));
    EXPECT_EQ(panel.map(PatchingPanel::Site::Residual)->matrix()(0, n - 1), want->residual(0, n - 1));
    const auto range = panel.map(PatchingPanel::Site::Heads)->colorMap()->dataRange();
    EXPECT_DOUBLE_EQ(range.lower, -range.upper);
    EXPECT_GE(range.upper, 1.0);
    EXPECT_TRUE(panel.cellDetails(PatchingPanel::Site::Heads, 1, 0).startsWith("Layer 2, head 1: recovers"));
  }
}

TEST(PatchingPanel, CancelAndRefusedRequestsKeepThePreviousResult) {
  PatchSetup s;
  PatchingPanel panel(&s.model);
  openInto(s, "gpt2");
  fill(panel, s, "#5", "#9");
  panel.run();
  panel.waitForIdle();
  const auto first = panel.result();
  ASSERT_NE(first, nullptr) << panel.status().toStdString();

  panel.targetEdit()->setText("#7");
  panel.run();
  EXPECT_TRUE(panel.busy());
  panel.cancel();
  panel.waitForIdle();
  for (int i = 0; i < 20; ++i) QCoreApplication::processEvents();
  EXPECT_EQ(panel.result(), first);
  EXPECT_TRUE(panel.status().startsWith("Cancelled")) << panel.status().toStdString();

  panel.corruptEdit()->setText(QString::fromStdString(s.corrupt + " and the dog"));
  panel.run();
  panel.waitForIdle();
  EXPECT_EQ(panel.result(), first);
  EXPECT_TRUE(panel.status().contains("must have the same number")) << panel.status().toStdString();

  panel.corruptEdit()->setText(QString::fromStdString(s.corrupt));
  panel.targetEdit()->setText(" xyzzyplugh");
  panel.run();
  panel.waitForIdle();
  EXPECT_EQ(panel.result(), first);
  EXPECT_TRUE(panel.status().contains("tokens for this tokenizer; give one token"))
      << panel.status().toStdString();

  panel.targetEdit()->setText("#5");
  for (PatchingPanel::Site site :
       {PatchingPanel::Site::Residual, PatchingPanel::Site::Heads, PatchingPanel::Site::Mlp})
    panel.siteBox(site)->setChecked(false);
  panel.run();
  EXPECT_EQ(panel.result(), first);
  EXPECT_TRUE(panel.status().contains("at least one site")) << panel.status().toStdString();
}

TEST(PatchingPanel, ClickingAHeadCellShowsThatHead) {
  PatchSetup s;
  PatchingPanel panel(&s.model);
  openInto(s, "gpt2");
  fill(panel, s, "#5", "#9");
  panel.siteBox(PatchingPanel::Site::Residual)->setChecked(false);
  panel.siteBox(PatchingPanel::Site::Mlp)->setChecked(false);
  panel.run();
  panel.waitForIdle();
  ASSERT_NE(panel.result(), nullptr) << panel.status().toStdString();
  EXPECT_EQ(panel.result()->residual.size(), 0);
  const int L = s.m->info().layers, H = s.m->info().heads;
  emit panel.map(PatchingPanel::Site::Heads)->cellClicked(L - 1, H - 1);
  s.model.waitForIdle();
  QCoreApplication::processEvents();
  EXPECT_EQ(s.model.currentLayer(), L - 1);
  EXPECT_EQ(s.model.currentHead(), H - 1);
}

TEST(PatchingPanel, RefusesAnEncoderWithTheCoresMessage) {
  PatchSetup s;
  PatchingPanel panel(&s.model);
  s.m = openPatchFixture("bert");
  ASSERT_NE(s.m, nullptr);
  s.model.setModel(s.m);
  fill(panel, s, "#5", "#9");
  panel.corruptEdit()->setText(panel.cleanEdit()->text());
  panel.run();
  panel.waitForIdle();
  EXPECT_EQ(panel.result(), nullptr);
  EXPECT_TRUE(panel.status().contains("it needs a causal language model")) << panel.status().toStdString();
}

}  // namespace
}  // namespace attn::ui
