// The Logit lens panel, offscreen, on the GPT-2, Llama and BERT fixtures: the map is the lens
// Model::run computes for the model's text (its top row the last layer, its bottom row the
// embeddings), coloured by the top token's probability or by the final prediction's; each
// cell names its top token and its tooltip lists the top tokens and the final prediction's
// rank; a new text computes it again; without a model the panel says what to do.
#include "attn_ui/lens/lens_panel.h"

#include <gtest/gtest.h>

#include <QCoreApplication>

#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/model_run_view.h"
#include "attn_ui/pretrained/prediction_panel.h"

namespace attn::ui {
namespace {

std::shared_ptr<const attn::models::Model> openLensFixture(const char* name) {
  auto m = attn::models::Model::open(std::string(ATTN_FIXTURE_DIR "/models/") + name);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : nullptr;
}

attn::models::LogitLens directLens(const attn::models::Model& m, const attn::models::Encoding& enc) {
  attn::models::RunOptions opt;
  opt.logitLens = true;
  auto run = m.run(enc, opt);
  EXPECT_TRUE(run.ok());
  return *run->lens;
}

void settleLens(ExplorerModel& model, LensPanel& panel) {
  model.waitForIdle();
  QCoreApplication::processEvents();
  panel.waitForIdle();
  QCoreApplication::processEvents();
}

TEST(LensPanel, ShowsTheModelsLensWithTheLastLayerOnTop) {
  for (const char* name : {"gpt2", "llama", "bert"}) {
    SCOPED_TRACE(name);
    ExplorerModel model;
    LensPanel panel(&model);
    panel.resize(1200, 700);
    EXPECT_EQ(panel.lens(), nullptr);
    EXPECT_TRUE(panel.status().contains("Open a model")) << panel.status().toStdString();
    auto m = openLensFixture(name);
    ASSERT_NE(m, nullptr);
    model.setModel(m);
    model.setText(std::string_view(name) == "bert" ? "The cat [MASK] on the mat."
                                                   : "The cat sat on the mat.");
    settleLens(model, panel);
    ASSERT_NE(panel.lens(), nullptr) << panel.status().toStdString();
    const auto& enc = model.ownModelRun()->encoding;
    EXPECT_EQ(panel.encoding().ids, enc.ids);
    const auto want = directLens(*m, enc);
    const auto& got = *panel.lens();
    ASSERT_EQ(got.rows, m->info().layers + 1);
    EXPECT_EQ(got.topIds, want.topIds);
    EXPECT_EQ(got.finalRank, want.finalRank);

    const attn::Mat& map = panel.heatmap()->matrix();
    ASSERT_EQ(map.rows(), got.rows);
    ASSERT_EQ(map.cols(), got.positions);
    const int last = got.rows - 1;
    for (int i = 0; i < got.positions; ++i) {
      EXPECT_FLOAT_EQ(map(0, i), want.topProb(last, i, 0)) << "top row: the last layer";
      EXPECT_FLOAT_EQ(map(last, i), want.topProb(0, i, 0)) << "bottom row: the embeddings";
      EXPECT_EQ(panel.cellText(0, i), visibleToken(m->tokenizer().displayText(want.topId(last, i, 0))));
    }
    // Columns read as text ("␣sat"), not as vocabulary strings ("Ġsat").
    EXPECT_EQ(panel.heatmap()->columnLabels(), modelTokenLabels(m->tokenizer(), panel.encoding()));
    const QString details = panel.cellDetails(last, 1);
    EXPECT_TRUE(details.startsWith("Embeddings, position 1 " +
                                   visibleToken(m->tokenizer().displayText(panel.encoding().ids[1]))))
        << details.toStdString();
    EXPECT_TRUE(details.contains(QStringLiteral("Final prediction %1: rank %2")
                                     .arg(visibleToken(m->tokenizer().displayText(want.finalIds[1])))
                                     .arg(want.rank(0, 1) + 1)))
        << details.toStdString();

    panel.setColour(LensPanel::Colour::FinalProbability);
    const attn::Mat& fin = panel.heatmap()->matrix();
    for (int i = 0; i < got.positions; ++i) {
      EXPECT_FLOAT_EQ(fin(0, i), map(0, i)) << "the last layer's top token is the final prediction";
      for (int r = 0; r < got.rows; ++r) EXPECT_FLOAT_EQ(fin(r, i), want.prob(last - r, i));
    }
  }
}

TEST(LensPanel, ANewTextComputesItAgainAndClosingTheModelClearsIt) {
  ExplorerModel model;
  LensPanel panel(&model);
  auto m = openLensFixture("gpt2");
  ASSERT_NE(m, nullptr);
  model.setModel(m);
  model.setText("one two three");
  settleLens(model, panel);
  ASSERT_NE(panel.lens(), nullptr);
  const int before = panel.lens()->positions;
  model.setText("one two three four five six seven");
  settleLens(model, panel);
  ASSERT_NE(panel.lens(), nullptr);
  EXPECT_GT(panel.lens()->positions, before);
  EXPECT_EQ(panel.encoding().ids, model.ownModelRun()->encoding.ids);
  model.clearModel();
  settleLens(model, panel);
  EXPECT_EQ(panel.lens(), nullptr);
  EXPECT_EQ(panel.heatmap()->matrix().size(), 0);
  EXPECT_TRUE(panel.status().contains("Open a model"));
}

}  // namespace
}  // namespace attn::ui
