// The Gradients dock, offscreen, on the GPT-2 and Llama fixtures: a run gives the numbers
// Model::gradients gives for the window's text (gradient x input and integrated gradients as
// bars, the completeness sums), offers "Attention × gradient" to the heatmap's Maps selector,
// whose maps are the core's attn_grad divided by its largest |value| and drawn on a signed
// scale; a new text withdraws it; Cancel and a target of several tokens keep the old result.
#include "attn_ui/gradients/gradient_panel.h"

#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QLineEdit>
#include <QSpinBox>
#include <algorithm>

#include "attn/models/model.h"
#include "attn_ui/attribution/contribution_view.h"
#include "attn_ui/explorer/explorer_model.h"

namespace attn::ui {
namespace {

std::shared_ptr<const attn::models::Model> openGradientFixture(const char* name) {
  auto m = attn::models::Model::open(std::string(ATTN_FIXTURE_DIR "/models/") + name);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : nullptr;
}

void settleGradients(ExplorerModel& model) {
  model.waitForIdle();
  QCoreApplication::processEvents();
}

TEST(GradientPanel, RunGivesTheCoresAttributionsAndOffersAttentionGradient) {
  for (const char* name : {"gpt2", "llama"}) {
    SCOPED_TRACE(name);
    ExplorerModel model;
    GradientPanel panel(&model);
    ContributionView maps(&model);
    QObject::connect(&panel, &GradientPanel::attentionGradientReady, &maps,
                     &ContributionView::offerAttentionGradient);
    QString signedWhat;
    QObject::connect(&maps, &ContributionView::signedMapsChanged, [&](const QString& w) { signedWhat = w; });
    auto m = openGradientFixture(name);
    ASSERT_NE(m, nullptr);
    model.setModel(m);
    model.setText("The cat sat on the mat and");
    settleGradients(model);
    EXPECT_FALSE(panel.targetEdit()->text().isEmpty()) << "the model's prediction as the default target";
    EXPECT_FALSE(maps.offersAttentionGradient());
    panel.targetEdit()->setText("#4");
    panel.stepsBox()->setValue(8);
    panel.run();
    panel.waitForIdle();
    ASSERT_NE(panel.result(), nullptr) << panel.status().toStdString();
    const auto& enc = model.ownModelRun()->encoding;
    attn::models::GradientOptions opt;
    opt.steps = 8;
    auto want = m->gradients(enc, 4, opt);
    ASSERT_TRUE(want.ok()) << want.error().message;
    const auto& got = *panel.result();
    const int n = enc.size();
    EXPECT_EQ(got.position, n - 1);
    EXPECT_EQ(got.targetLogit, want->targetLogit);
    for (int i : {0, n / 2, n - 1}) {
      EXPECT_EQ(got.gradXInput(i), want->gradXInput(i));
      EXPECT_EQ(got.integratedGradients(i), want->integratedGradients(i));
    }
    ASSERT_EQ(panel.chart()->plottableCount(), 2);
    auto* bars = qobject_cast<QCPBars*>(panel.chart()->plottable(1));
    ASSERT_NE(bars, nullptr);
    ASSERT_EQ(bars->data()->size(), n);
    EXPECT_FLOAT_EQ(static_cast<float>(bars->data()->at(n - 1)->value), want->integratedGradients(n - 1));
    EXPECT_TRUE(panel.sums().contains(QString::number(static_cast<double>(want->gradXInput.sum()), 'f', 3)))
        << panel.sums().toStdString();

    // Attention x gradient in the main views: the core's maps over their largest |value|.
    ASSERT_TRUE(maps.offersAttentionGradient());
    maps.setMode(ContributionMode::AttentionGradient);
    settleGradients(model);
    EXPECT_TRUE(signedWhat.startsWith("Attention × gradient (signed")) << signedWhat.toStdString();
    ASSERT_TRUE(model.showsIntervenedRun());
    float top = 0;
    for (const auto& a : want->attnGrad) top = std::max(top, a.cwiseAbs().maxCoeff());
    const int L = m->info().layers, H = m->info().heads;
    const auto& shown = *model.modelRun();
    const attn::Mat& last =
        shown.layers[static_cast<size_t>(L - 1)].heads[static_cast<size_t>(H - 1)].weights;
    const attn::Mat& ref = want->attnGrad[static_cast<size_t>((L - 1) * H + H - 1)];
    for (int j = 0; j < n; ++j) EXPECT_FLOAT_EQ(last(n - 1, j), ref(n - 1, j) / top);
    EXPECT_LT(shown.layers[0].heads[0].weights.minCoeff(), 0.0f) << "signed";

    // A new text: the maps are of the old one, so they leave the selector.
    model.setText("The dog ran");
    settleGradients(model);
    EXPECT_FALSE(maps.offersAttentionGradient());
    EXPECT_EQ(maps.mode(), ContributionMode::Weights);
    EXPECT_TRUE(signedWhat.isEmpty());
    EXPECT_FALSE(model.showsIntervenedRun());
  }
}

TEST(GradientPanel, CancelAndAMultiTokenTargetKeepThePreviousResult) {
  ExplorerModel model;
  GradientPanel panel(&model);
  auto m = openGradientFixture("gpt2");
  ASSERT_NE(m, nullptr);
  model.setModel(m);
  model.setText("The cat sat on the mat and");
  settleGradients(model);
  panel.targetEdit()->setText("#4");
  panel.stepsBox()->setValue(4);
  panel.run();
  panel.waitForIdle();
  const auto first = panel.result();
  ASSERT_NE(first, nullptr) << panel.status().toStdString();

  panel.stepsBox()->setValue(64);
  panel.run();
  panel.cancel();
  panel.waitForIdle();
  for (int i = 0; i < 20; ++i) QCoreApplication::processEvents();
  EXPECT_EQ(panel.result(), first);
  EXPECT_TRUE(panel.status().startsWith("Cancelled")) << panel.status().toStdString();

  panel.targetEdit()->setText(" xyzzyplugh");
  panel.run();
  EXPECT_EQ(panel.result(), first);
  EXPECT_TRUE(panel.status().contains("tokens for this tokenizer; give one token"))
      << panel.status().toStdString();

  panel.targetEdit()->setText("#4");
  panel.positionBox()->setValue(500);
  panel.run();
  panel.waitForIdle();
  EXPECT_EQ(panel.result(), first);
  EXPECT_TRUE(panel.status().contains("is outside the text")) << panel.status().toStdString();
}

}  // namespace
}  // namespace attn::ui
