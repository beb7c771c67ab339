// The window's Maps selector (Weights / Attention norms / ALTI), offscreen, on the GPT-2
// and BERT fixtures: the heatmap and head grid then draw the model's contributions (each
// head's attention norms as a share of the row, each layer's ALTI), the same as
// Model::run with RunOptions::contributions computes; a new text re-computes them;
// Weights brings the model's own run back; interventions send the selector back to Weights.
#include "attn_ui/attribution/contribution_view.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>

#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/pretrained/experiments_actions.h"
#include "attn_ui/pretrained/interventions_controller.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/window/file_open_controller.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

QString fixture(const QString& name) { return QStringLiteral(ATTN_FIXTURE_DIR "/models/") + name; }

void settle(MainWindow& w) {
  w.modelOpener()->waitForIdle();
  w.fileOpener()->waitForIdle();
  w.model()->waitForIdle();
  if (auto* v = w.findChild<ContributionView*>()) v->waitForIdle();
  QCoreApplication::processEvents();
}

/// Contributions of the window's text, computed directly.
attn::models::Contributions direct(const QString& folder, const attn::models::Encoding& enc) {
  auto m = attn::models::Model::open(folder.toStdString());
  EXPECT_TRUE(m.ok());
  attn::models::RunOptions opt;
  opt.contributions = true;
  auto run = (*m)->run(enc, opt);
  EXPECT_TRUE(run.ok());
  return *run->contributions;
}

TEST(ContributionView, TheMapsAreTheModelsContributionsInEveryView) {
  for (const QString& name : {QStringLiteral("gpt2"), QStringLiteral("bert")}) {
    SCOPED_TRACE(name.toStdString());
    MainWindow w;
    settle(w);
    auto* view = w.findChild<ContributionView*>();
    ASSERT_NE(view, nullptr);
    EXPECT_FALSE(view->selector()->isEnabled()) << "no model yet";
    ASSERT_TRUE(w.openFile(fixture(name)));
    settle(w);
    ASSERT_TRUE(w.model()->hasModel());
    EXPECT_TRUE(view->selector()->isEnabled());
    EXPECT_TRUE(w.heatmapPanel()->isAncestorOf(view->modeBox()));
    // Laid out beside its label, not left at the selector's origin under it.
    ASSERT_NE(view->selector()->layout(), nullptr);
    EXPECT_GE(view->selector()->layout()->indexOf(view->modeBox()), 0);
    const auto own = w.model()->modelRun();
    const auto c = direct(fixture(name), own->encoding);

    view->modeBox()->setCurrentIndex(view->modeBox()->findData(int(ContributionMode::AttentionNorms)));
    settle(w);
    ASSERT_NE(w.model()->modelRun(), own);
    EXPECT_EQ(w.model()->ownModelRun(), own);
    w.model()->setCurrentLayerHead(1, 1);
    QCoreApplication::processEvents();
    attn::Mat norms = c.attentionNorms[1][1];
    for (Eigen::Index i = 0; i < norms.rows(); ++i)
      if (norms.row(i).sum() > 0) norms.row(i) /= norms.row(i).sum();
    EXPECT_TRUE(w.heatmap()->matrix().isApprox(norms, 1e-5f));
    EXPECT_FALSE(w.heatmap()->matrix().isApprox(own->layers[1].heads[1].weights, 1e-3f))
        << "the norms should differ from the weights on a random model";
    EXPECT_EQ(w.heatmapPanel()->mapsName(), "Attention norms") << "the title names the maps, not Weights";

    view->setMode(ContributionMode::Alti);
    settle(w);
    w.model()->setCurrentLayerHead(0, 0);
    QCoreApplication::processEvents();
    EXPECT_TRUE(w.heatmap()->matrix().isApprox(c.alti[0], 1e-5f));
    EXPECT_EQ(view->modeBox()->currentData().toInt(), int(ContributionMode::Alti));
    EXPECT_TRUE(w.heatmapPanel()->mapsName().startsWith("ALTI"));

    view->setMode(ContributionMode::Weights);
    settle(w);
    EXPECT_EQ(w.model()->modelRun(), own);
    EXPECT_TRUE(w.heatmapPanel()->mapsName().isEmpty());
  }
}

TEST(ContributionView, ANewTextRecomputesAndInterventionsTakeOver) {
  MainWindow w;
  settle(w);
  ASSERT_TRUE(w.openFile(fixture("gpt2")));
  settle(w);
  auto* view = w.findChild<ContributionView*>();
  view->setMode(ContributionMode::Alti);
  settle(w);
  w.inputPanel()->queryEdit()->setPlainText("The cat sat on the mat.");
  settle(w);
  settle(w);
  const auto own = w.model()->ownModelRun();
  ASSERT_EQ(view->mode(), ContributionMode::Alti);
  ASSERT_NE(w.model()->modelRun(), own);
  const auto c = direct(fixture("gpt2"), own->encoding);
  w.model()->setCurrentLayerHead(1, 0);
  QCoreApplication::processEvents();
  EXPECT_TRUE(w.heatmap()->matrix().isApprox(c.alti[1], 1e-5f));

  auto* experiments = w.findChild<ExperimentsActions*>();
  ASSERT_NE(experiments, nullptr);
  ASSERT_TRUE(experiments->interventions()->add({attn::models::InterventionKind::Ablate, 0, 1, 1.0f, {}}));
  experiments->interventions()->waitForIdle();
  settle(w);
  EXPECT_EQ(view->mode(), ContributionMode::Weights) << "the intervened run is shown, not the maps";
  EXPECT_EQ(w.model()->modelRun(), experiments->interventions()->intervenedRun());
}

}  // namespace
}  // namespace attn::ui
