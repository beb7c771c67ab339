// The Maps selector's "Quantization effect", offscreen, on the GGUF fixtures: offered for a model
// whose products are quantized (Q8_0, Q4_K_M), not for an F32 file or a Hugging Face folder; once
// chosen, the heatmap draws quantized − full precision of the current head, exactly the core's
// quantizationDelta on the window's text, with the largest |Δ| in the note over it; the head grid
// draws the same signed maps; Weights brings the model's own run back.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QLabel>

#include "attn/models/model.h"
#include "attn/models/quantization/quantization_effect.h"
#include "attn_ui/attribution/contribution_view.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/window/file_open_controller.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

QString quantGguf(const QString& name) { return QStringLiteral(ATTN_FIXTURE_DIR "/gguf/models/") + name; }

void settleQuant(MainWindow& w) {
  w.modelOpener()->waitForIdle();
  w.fileOpener()->waitForIdle();
  w.model()->waitForIdle();
  if (auto* v = w.findChild<ContributionView*>()) v->waitForIdle();
  QCoreApplication::processEvents();
}

TEST(QuantizationMaps, TheShownMapIsTheCoresDeltaForTheHead) {
  for (const QString& name : {QStringLiteral("llama-Q8_0.gguf"), QStringLiteral("llama256-Q4_K_M.gguf")}) {
    SCOPED_TRACE(name.toStdString());
    MainWindow w;
    settleQuant(w);
    ASSERT_TRUE(w.openFile(quantGguf(name)));
    settleQuant(w);
    ASSERT_TRUE(w.model()->hasModel());
    auto* view = w.findChild<ContributionView*>();
    ASSERT_NE(view, nullptr);
    ASSERT_TRUE(view->offersQuantizationEffect());
    const auto own = w.model()->modelRun();

    view->modeBox()->setCurrentIndex(view->modeBox()->findData(int(ContributionMode::QuantizationEffect)));
    settleQuant(w);
    ASSERT_NE(w.model()->modelRun(), own);
    auto model = attn::models::Model::open(quantGguf(name).toStdString());
    ASSERT_TRUE(model.ok());
    auto effect = attn::models::quantizationEffect(**model, own->encoding);
    ASSERT_TRUE(effect.ok()) << effect.error().message;
    const int layers = static_cast<int>(own->layers.size()),
              heads = static_cast<int>(own->layers[0].heads.size());
    for (const auto& [layer, head] : {std::pair{layers - 1, heads - 1}, std::pair{0, 1}}) {
      w.model()->setCurrentLayerHead(layer, head);
      QCoreApplication::processEvents();
      const attn::Mat delta =
          attn::models::quantizationDelta(*effect, static_cast<size_t>(layer), static_cast<size_t>(head));
      ASSERT_GT(delta.size(), 0);
      EXPECT_EQ(w.heatmap()->matrix(), delta) << "layer " << layer << " head " << head;
      // The hover names the difference, not a weight, with the cell's value.
      const QString hover = w.heatmapPanel()->hoverText(1, 0);
      EXPECT_TRUE(
          hover.contains(QStringLiteral("Quantized − full precision: %1").arg(delta(1, 0), 0, 'g', 5)))
          << hover.toStdString();
      EXPECT_FALSE(hover.contains("weight")) << hover.toStdString();
      EXPECT_FALSE(w.heatmap()->matrix().isApprox(
          own->layers[static_cast<size_t>(layer)].heads[static_cast<size_t>(head)].weights))
          << "the delta, not the weights";
    }
    EXPECT_TRUE(w.heatmapPanel()->signedMaps());
    EXPECT_TRUE(w.heatmap()->title().startsWith("Quantized − full precision"))
        << w.heatmap()->title().toStdString();
    const QString note = w.heatmapPanel()->errorBanner()->text();
    EXPECT_TRUE(note.contains(
        QStringLiteral("Largest |Δ| %1").arg(static_cast<double>(effect->largestChange), 0, 'g', 3)))
        << note.toStdString();
    EXPECT_TRUE(note.contains("Next-token KL")) << note.toStdString();

    view->setMode(ContributionMode::Weights);
    settleQuant(w);
    EXPECT_EQ(w.model()->modelRun(), own);
    EXPECT_FALSE(w.heatmapPanel()->signedMaps());
  }
}

TEST(QuantizationMaps, FloatModelsDoNotOfferIt) {
  MainWindow w;
  settleQuant(w);
  auto* view = w.findChild<ContributionView*>();
  ASSERT_NE(view, nullptr);
  for (const QString& path : {quantGguf("llama-F32.gguf"), QStringLiteral(ATTN_FIXTURE_DIR "/models/llama"),
                              quantGguf("llama-Q8_0.gguf"), quantGguf("llama-Q4_0.gguf")}) {
    SCOPED_TRACE(path.toStdString());
    ASSERT_TRUE(w.openFile(path));
    settleQuant(w);
    ASSERT_TRUE(w.model()->hasModel());
    EXPECT_EQ(view->offersQuantizationEffect(), path.endsWith("Q8_0.gguf"));
  }
}

}  // namespace
}  // namespace attn::ui
