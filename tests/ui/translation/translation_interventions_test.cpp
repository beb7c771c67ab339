// The Translation dock's interventions, offscreen, on the random Marian and T5 fixtures: Rerun
// with a head ablated shows the core's own intervened run and its before → after; the head
// map's "Ablate this head" adds it; Cancel keeps the previous result. And Show in Main Views
// hands each head's q, k, v over, so the main window's step-through walks a cross-attention
// (or decoder) head to the run's own weights.
#include "attn_ui/translation/translation_interventions.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>

#include "attn/models/seq2seq/seq2seq_model.h"
#include "attn/teaching/step_through.h"
#include "attn_ui/classroom/step_through_panel.h"
#include "attn_ui/classroom/step_through_view.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/translation/translation_panel.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

using attn::models::Seq2SeqIntervention;
using attn::models::Seq2SeqStack;

std::shared_ptr<const attn::models::Seq2SeqModel> ivFixture(const char* name) {
  auto m = attn::models::Seq2SeqModel::open(std::string(ATTN_FIXTURE_DIR "/models/") + name);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : nullptr;
}

Seq2SeqIntervention ablated(Seq2SeqStack stack, int layer, int head) {
  Seq2SeqIntervention iv;
  iv.stack = stack;
  iv.head.layer = layer;
  iv.head.head = head;
  return iv;
}

TEST(TranslationInterventions, RerunShowsTheCoresIntervenedTranslationBeforeAndAfter) {
  TranslationPanel panel;
  panel.resize(1100, 700);
  auto m = ivFixture("marian");
  ASSERT_NE(m, nullptr);
  panel.setModel(m);
  panel.waitForIdle();
  ASSERT_NE(panel.run(), nullptr) << panel.status().toStdString();
  const auto plain = panel.run();
  EXPECT_EQ(panel.baselineRun(), nullptr);
  auto* row = panel.interventionsRow();
  // The boxes count from 1, as the main window and the CLI: layer 2, head 1 is the core's (1, 0).
  EXPECT_EQ(row->layerBox()->minimum(), 1);
  EXPECT_EQ(row->layerBox()->maximum(), m->info().decoderLayers);
  EXPECT_EQ(row->headBox()->minimum(), 1);
  EXPECT_EQ(row->headBox()->maximum(), m->info().decoderHeads);
  row->stackBox()->setCurrentIndex(0);  // cross-attention
  row->layerBox()->setValue(2);
  row->headBox()->setValue(1);
  row->addFromBoxes();
  ASSERT_EQ(row->list()->count(), 1);
  EXPECT_EQ(row->interventions().front().head.layer, 1);
  EXPECT_EQ(row->interventions().front().head.head, 0);
  EXPECT_EQ(row->list()->item(0)->text(), QStringLiteral("Cross-attention 2.1: ablate"));
  EXPECT_EQ(row->list()->item(0)->toolTip(), QStringLiteral("--intervene cross:ablate:2.1"));
  row->rerunButton()->click();
  panel.waitForIdle();
  ASSERT_NE(panel.run(), nullptr);
  ASSERT_NE(panel.baselineRun(), nullptr);
  auto source = m->encode(panel.sourceEdit()->text().toStdString(), "src");
  ASSERT_TRUE(source.ok());
  attn::models::GenerateOptions g;
  g.forward.interventions = {ablated(Seq2SeqStack::Cross, 1, 0)};
  auto direct = m->generate(*source, g);
  ASSERT_TRUE(direct.ok()) << direct.error().message;
  EXPECT_EQ(panel.run()->targetIds, direct->targetIds);
  EXPECT_EQ(panel.baselineRun()->targetIds, plain->targetIds);
  EXPECT_TRUE((panel.run()->attention.cross[1].heads[0].weights.array() == 0.0f).all());
  EXPECT_TRUE(panel.outputText().contains(QString::fromStdString(direct->outputText)));
  EXPECT_TRUE(panel.outputText().contains(QString::fromStdString(plain->outputText)));
  EXPECT_TRUE(panel.outputText().contains(QStringLiteral("→")));

  // Forced decoding: the target tokens' probabilities before → after, as the core computes them.
  panel.targetEdit()->setText(QStringLiteral("Hallo Welt!"));
  panel.translate();
  panel.waitForIdle();
  auto forced = m->forced(*source, "Hallo Welt!", "t", {g.forward.interventions, false});
  auto bare = m->forced(*source, "Hallo Welt!", "t");
  ASSERT_TRUE(forced.ok() && bare.ok());
  EXPECT_LT((panel.run()->logits - forced->logits).cwiseAbs().maxCoeff(), 1e-6f);
  const auto p0 = attn::models::targetTokenProbabilities(bare->logits, bare->targetIds);
  const auto p1 = attn::models::targetTokenProbabilities(forced->logits, forced->targetIds);
  const QString cell = QStringLiteral("%1→%2").arg(p0[0], 0, 'f', 3).arg(p1[0], 0, 'f', 3);
  EXPECT_TRUE(panel.outputText().contains(cell))
      << panel.outputText().toStdString() << " / " << cell.toStdString();

  // Clear: back to the plain translation, no "before".
  row->clear();
  panel.translate();
  panel.waitForIdle();
  EXPECT_EQ(panel.baselineRun(), nullptr);
  EXPECT_LT((panel.run()->logits - bare->logits).cwiseAbs().maxCoeff(), 1e-6f);
}

TEST(TranslationInterventions, AblateThisHeadAddsTheShownHeadAndCancelKeepsThePreviousResult) {
  TranslationPanel panel;
  panel.setModel(ivFixture("t5"));
  panel.waitForIdle();
  ASSERT_NE(panel.run(), nullptr);
  panel.setKind(TranslationPanel::Kind::Decoder);
  panel.setLayer(2);
  panel.setHead(3);
  panel.ablateShownHead();
  panel.waitForIdle();
  ASSERT_EQ(panel.interventionsRow()->interventions().size(), 1u);
  const auto& iv = panel.interventionsRow()->interventions().front();
  EXPECT_EQ(iv.stack, Seq2SeqStack::Decoder);
  EXPECT_EQ(iv.head.layer, 2);
  EXPECT_EQ(iv.head.head, 3);
  ASSERT_NE(panel.run(), nullptr);
  EXPECT_TRUE((panel.run()->attention.decoder[2].heads[3].weights.array() == 0.0f).all());
  const auto before = panel.run();
  panel.setHead(-1);
  panel.ablateShownHead();  // the mean of the heads is no head: nothing added
  EXPECT_EQ(panel.interventionsRow()->interventions().size(), 1u);
  panel.interventionsRow()->add(ablated(Seq2SeqStack::Encoder, 0, 1));
  panel.translate();
  panel.cancel();
  panel.waitForIdle();
  EXPECT_EQ(panel.run(), before);
}

// The step-through of a handed-over head ends at the run's weights, row by row.
TEST(TranslationInterventions, StepThroughWalksAHandedOverHeadToItsWeights) {
  for (const char* name : {"marian", "t5"}) {
    SCOPED_TRACE(name);
    MainWindow window;
    auto* panel = window.findChild<TranslationPanel*>();
    ASSERT_NE(panel, nullptr);
    window.model()->waitForIdle();
    window.modelOpener()->open(QStringLiteral(ATTN_FIXTURE_DIR "/models/") + name);
    window.modelOpener()->waitForIdle();
    panel->waitForIdle();
    ASSERT_NE(panel->run(), nullptr) << panel->status().toStdString();
    const auto& run = *panel->run();
    StepThroughView view(window.model());
    for (auto kind : {TranslationPanel::Kind::Cross, TranslationPanel::Kind::Decoder}) {
      panel->setKind(kind);
      panel->mainViewsButton()->click();
      window.model()->waitForIdle();
      const auto& layers =
          kind == TranslationPanel::Kind::Cross ? run.attention.cross : run.attention.decoder;
      const int layer = static_cast<int>(layers.size()) - 1, head = 1;
      window.model()->setCurrentLayerHead(layer, head);
      window.model()->waitForIdle();
      QCoreApplication::processEvents();
      const attn::Mat& want = layers.back().heads[static_cast<size_t>(head)].weights;
      for (int row = 0; row < want.rows(); ++row) {
        view.setQuery(row);
        QCoreApplication::processEvents();
        ASSERT_TRUE(view.panel()->hasWalk()) << row;
        const attn::Vec got = view.panel()->walk().weights;
        ASSERT_EQ(got.size(), want.cols());
        EXPECT_LE((got.transpose() - want.row(row)).cwiseAbs().maxCoeff(), 1e-6f) << row;
      }
      EXPECT_EQ(view.panel()->walk().scaled, std::string(name) != "t5");
      EXPECT_EQ(view.panel()->walk().bias.size() > 0,
                std::string(name) == "t5" && kind != TranslationPanel::Kind::Cross);
    }
  }
}

}  // namespace
}  // namespace attn::ui
