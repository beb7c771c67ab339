// The Generate dock, offscreen, on the GPT-2 and Llama fixtures and the bundled austen-gpt2:
// the ids it writes and the bars it draws are Model::generate's own (greedy, beam search,
// seeded sampling), for one head and the mean of the heads; Cancel keeps the previous result;
// a BERT model is refused with the reason; a click on a written token chooses it; "Show in
// the main views" runs the generated ids (not the decoded text) through the explorer.
#include "attn_ui/generation/generation_panel.h"

#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>

#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/generation/generation_options.h"
#include "attn_ui/generation/token_chips.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

// A test fixture by name, or the bundled model of that name ("austen-gpt2").
std::shared_ptr<const attn::models::Model> openGenerationFixture(const std::string& name) {
  const std::string dir = name.find('-') != std::string::npos
                              ? std::string(ATTN_SOURCE_DIR "/resources/models/")
                              : std::string(ATTN_FIXTURE_DIR "/models/");
  auto m = attn::models::Model::open(dir + name);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : nullptr;
}

const char* const kGenerationPrompt = "The cat sat on the mat and";

// The window's text through `m`, as the dock's prompt starts.
void loadGenerationModel(ExplorerModel& model, const std::shared_ptr<const attn::models::Model>& m) {
  model.setModel(m);
  model.setText(kGenerationPrompt);
  model.waitForIdle();
  QCoreApplication::processEvents();
}

attn::models::CausalGeneration directGeneration(const attn::models::Model& m,
                                                const attn::models::CausalGenerateOptions& o) {
  auto enc = m.encode(kGenerationPrompt, std::nullopt, "prompt");
  EXPECT_TRUE(enc.ok());
  auto g = m.generate(*enc, o);
  EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message);
  return g.ok() ? std::move(g).value() : attn::models::CausalGeneration{};
}

void expectBarsAreRow(const GenerationPanel& panel, const attn::models::CausalGeneration& g, int layer,
                      int head, int position) {
  SCOPED_TRACE(testing::Message() << "layer " << layer << " head " << head << " position " << position);
  const attn::Vec& got = panel.shownWeights();
  ASSERT_EQ(got.size(), position);
  const auto& heads = g.maps[static_cast<size_t>(layer)];
  for (int j = 0; j < position; ++j) {
    if (head >= 0) {
      EXPECT_EQ(got(j), heads[static_cast<size_t>(head)](position - 1, j));
    } else {
      double mean = 0;
      for (const attn::Mat& h : heads) mean += h(position - 1, j);
      EXPECT_NEAR(got(j), mean / static_cast<double>(heads.size()), 1e-6);
    }
  }
  // The bars: two series (prompt, written) whose values together are the row, key by key.
  double sum = 0;
  int bars = 0;
  for (int p = 0; p < panel.chart()->plottableCount(); ++p)
    if (auto* b = qobject_cast<QCPBars*>(panel.chart()->plottable(p)))
      for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it, ++bars) {
        EXPECT_FLOAT_EQ(static_cast<float>(it->value), got(static_cast<int>(it->key)));
        sum += it->value;
      }
  EXPECT_EQ(bars, position);
  EXPECT_NEAR(sum, 1.0, 1e-4) << "a softmax row over the earlier tokens";
}

TEST(GenerationPanel, WritesTheCoresIdsAndDrawsItsMaps) {
  for (const char* name : {"gpt2", "llama", "austen-gpt2"}) {
    SCOPED_TRACE(name);
    ExplorerModel model;
    GenerationPanel panel(&model);
    auto m = openGenerationFixture(name);
    ASSERT_NE(m, nullptr);
    loadGenerationModel(model, m);
    EXPECT_TRUE(panel.refusal().isEmpty()) << panel.refusal().toStdString();
    EXPECT_EQ(panel.promptEdit()->text(), QString(kGenerationPrompt)) << "the input text by default";

    panel.options()->setMode(GenerationOptions::Mode::Greedy);
    panel.options()->maxNewBox()->setValue(6);
    panel.generate();
    panel.waitForIdle();
    ASSERT_NE(panel.result(), nullptr) << panel.status().toStdString();
    attn::models::CausalGenerateOptions greedy;
    greedy.maxNewTokens = 6;
    greedy.beams = 1;
    greedy.doSample = false;
    const auto want = directGeneration(*m, greedy);
    EXPECT_EQ(panel.result()->ids, want.ids);
    EXPECT_EQ(panel.result()->promptLength, want.promptLength);
    const int n = static_cast<int>(want.ids.size());
    ASSERT_GT(n, want.promptLength + 1);
    // The first written token is chosen, in the last layer, the mean of the heads.
    EXPECT_EQ(panel.step(), want.promptLength);
    EXPECT_EQ(panel.layer(), static_cast<int>(want.maps.size()) - 1);
    EXPECT_EQ(panel.head(), -1);
    expectBarsAreRow(panel, want, panel.layer(), -1, want.promptLength);
    panel.setLayer(0);
    panel.setHead(1);
    panel.setStep(n - 1);
    expectBarsAreRow(panel, want, 0, 1, n - 1);
    EXPECT_FALSE(panel.settingsText().isEmpty());

    // Beam search and seeded sampling: the same ids as the core's.
    panel.options()->setMode(GenerationOptions::Mode::Beam);
    panel.options()->beamsBox()->setValue(3);
    panel.options()->lengthPenaltyBox()->setValue(1.5);
    panel.generate();
    panel.waitForIdle();
    attn::models::CausalGenerateOptions beam = greedy;
    beam.beams = 3;
    beam.lengthPenalty = 1.5;
    EXPECT_EQ(panel.result()->ids, directGeneration(*m, beam).ids);
    panel.options()->setMode(GenerationOptions::Mode::Sampling);
    panel.options()->topKBox()->setValue(20);
    panel.options()->topPBox()->setValue(0.9);
    panel.options()->temperatureBox()->setValue(0.7);
    panel.options()->seedBox()->setValue(11);
    panel.generate();
    panel.waitForIdle();
    attn::models::CausalGenerateOptions sample = greedy;
    sample.doSample = true;
    sample.topK = 20;
    sample.topP = 0.9;
    sample.temperature = 0.7;
    sample.seed = 11;
    const auto sampled = directGeneration(*m, sample);
    EXPECT_EQ(panel.result()->ids, sampled.ids);
    EXPECT_EQ(panel.settingsText().toStdString(), "Settings: " + sampled.settings);
    EXPECT_TRUE(panel.settingsText().contains("sampling (top_k 20")) << panel.settingsText().toStdString();
    panel.setStep(sampled.promptLength + 1);
    if (static_cast<int>(sampled.ids.size()) > sampled.promptLength + 1)
      expectBarsAreRow(panel, sampled, panel.layer(), panel.head(), sampled.promptLength + 1);
    // Beam sampling: the beam and the sampling fields together, the core's ids.
    panel.options()->setMode(GenerationOptions::Mode::BeamSampling);
    EXPECT_TRUE(panel.options()->beamsBox()->isVisibleTo(panel.options()));
    EXPECT_TRUE(panel.options()->seedBox()->isVisibleTo(panel.options()));
    panel.generate();
    panel.waitForIdle();
    attn::models::CausalGenerateOptions beamSample = sample;
    beamSample.beams = 3;
    beamSample.lengthPenalty = 1.5;
    const auto beamSampled = directGeneration(*m, beamSample);
    EXPECT_EQ(panel.result()->ids, beamSampled.ids);
    EXPECT_TRUE(panel.settingsText().contains("beam sampling (3 beams"))
        << panel.settingsText().toStdString();
  }
}

TEST(GenerationPanel, CancelKeepsThePreviousResult) {
  ExplorerModel model;
  GenerationPanel panel(&model);
  auto m = openGenerationFixture("gpt2");
  ASSERT_NE(m, nullptr);
  loadGenerationModel(model, m);
  panel.options()->setMode(GenerationOptions::Mode::Greedy);
  panel.options()->maxNewBox()->setValue(4);
  panel.generate();
  panel.waitForIdle();
  const auto before = panel.result();
  ASSERT_NE(before, nullptr);
  const attn::Vec bars = panel.shownWeights();
  panel.options()->maxNewBox()->setValue(512);
  panel.generate();
  EXPECT_TRUE(panel.busy());
  panel.cancel();
  panel.waitForIdle();
  QCoreApplication::processEvents();
  EXPECT_EQ(panel.result(), before);
  EXPECT_EQ(panel.shownWeights(), bars);
  EXPECT_TRUE(panel.status().contains("Cancelled")) << panel.status().toStdString();
}

TEST(GenerationPanel, RefusesBidirectionalModelsWithTheReason) {
  ExplorerModel model;
  GenerationPanel panel(&model);
  EXPECT_TRUE(panel.refusal().contains("causal language model")) << panel.refusal().toStdString();
  auto bert = openGenerationFixture("bert");
  ASSERT_NE(bert, nullptr);
  loadGenerationModel(model, bert);
  EXPECT_TRUE(panel.refusal().contains("bidirectional")) << panel.refusal().toStdString();
  EXPECT_TRUE(panel.refusal().contains("model_type bert")) << panel.refusal().toStdString();
  panel.generate();  // refused: nothing starts
  EXPECT_FALSE(panel.busy());
  EXPECT_EQ(panel.result(), nullptr);
  panel.noteEncoderDecoder("opus-mt-en-zh");  // the explorer still has BERT: its reason stays
  EXPECT_TRUE(panel.refusal().contains("bidirectional"));
  model.clearModel();
  panel.noteEncoderDecoder("opus-mt-en-zh");
  EXPECT_TRUE(panel.refusal().contains("opus-mt-en-zh is an encoder–decoder model"))
      << panel.refusal().toStdString();
  // A causal model again: the controls, not a reason.
  loadGenerationModel(model, openGenerationFixture("gpt2"));
  EXPECT_TRUE(panel.refusal().isEmpty());
}

TEST(GenerationPanel, AClickOnAWrittenTokenChoosesIt) {
  ExplorerModel model;
  GenerationPanel panel(&model);
  panel.resize(1000, 600);
  panel.show();
  auto m = openGenerationFixture("gpt2");
  ASSERT_NE(m, nullptr);
  loadGenerationModel(model, m);
  panel.options()->setMode(GenerationOptions::Mode::Greedy);
  panel.options()->maxNewBox()->setValue(6);
  panel.generate();
  panel.waitForIdle();
  QCoreApplication::processEvents();
  ASSERT_NE(panel.result(), nullptr);
  const int prompt = panel.result()->promptLength;
  const int n = static_cast<int>(panel.result()->ids.size());
  ASSERT_GE(n, prompt + 3);
  auto click = [&panel](int position) {
    const QRect r = panel.chips()->chipRect(position);
    ASSERT_FALSE(r.isEmpty()) << "chip " << position;
    const QPointF at = r.center();
    QMouseEvent press(QEvent::MouseButtonPress, at, panel.chips()->mapToGlobal(at), Qt::LeftButton,
                      Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(panel.chips(), &press);
  };
  click(prompt + 2);
  EXPECT_EQ(panel.step(), prompt + 2);
  EXPECT_EQ(panel.chips()->selected(), prompt + 2);
  EXPECT_EQ(panel.shownWeights().size(), prompt + 2);
  click(1);  // a prompt token: it was not written, nothing changes
  EXPECT_EQ(panel.step(), prompt + 2);
}

TEST(GenerationPanel, ShowsTheGeneratedIdsInTheMainViews) {
  ExplorerModel model;
  GenerationPanel panel(&model);
  InputPanel input(&model);
  auto m = openGenerationFixture("gpt2");
  ASSERT_NE(m, nullptr);
  loadGenerationModel(model, m);
  panel.options()->setMode(GenerationOptions::Mode::Greedy);
  panel.options()->maxNewBox()->setValue(5);
  panel.generate();
  panel.waitForIdle();
  const auto g = panel.result();
  ASSERT_NE(g, nullptr);
  panel.showInMainViews();
  model.waitForIdle();
  QCoreApplication::processEvents();
  ASSERT_NE(model.modelRun(), nullptr);
  EXPECT_TRUE(model.runsGivenEncoding());
  EXPECT_EQ(model.modelRun()->encoding.ids, g->ids) << "the written ids, not the text encoded again";
  EXPECT_EQ(panel.promptEdit()->text(), QString(kGenerationPrompt)) << "the prompt stays";
  // The input box shows the text without sending it back to be tokenized again.
  EXPECT_EQ(input.queryEdit()->toPlainText(),
            QString(kGenerationPrompt) + QString::fromStdString(g->outputText));
  EXPECT_TRUE(model.runsGivenEncoding());
  // A forward over the whole sequence gives the maps the generation kept step by step.
  const auto& layers = model.modelRun()->layers;
  ASSERT_EQ(layers.size(), g->maps.size());
  for (size_t l = 0; l < layers.size(); ++l)
    for (size_t h = 0; h < g->maps[l].size(); ++h)
      EXPECT_LT((layers[l].heads[h].weights - g->maps[l][h]).cwiseAbs().maxCoeff(), 1e-5f);
  // Another text typed: encoded again.
  input.queryEdit()->setPlainText("Another text");
  model.waitForIdle();
  EXPECT_FALSE(model.runsGivenEncoding());
  EXPECT_NE(model.modelRun()->encoding.ids, g->ids);
}

TEST(GenerationPanel, ExportsTheBarChart) {
  ExplorerModel model;
  GenerationPanel panel(&model);
  QString error;
  QTemporaryDir dir;
  const QString path = dir.filePath("bars.png");
  EXPECT_FALSE(panel.exportFigure(path, FigureOptions{}, &error));
  EXPECT_FALSE(error.isEmpty());
  auto m = openGenerationFixture("gpt2");
  ASSERT_NE(m, nullptr);
  loadGenerationModel(model, m);
  panel.options()->maxNewBox()->setValue(3);
  panel.generate();
  panel.waitForIdle();
  ASSERT_TRUE(panel.exportFigure(path, FigureOptions{}, &error)) << error.toStdString();
  EXPECT_GT(QFileInfo(path).size(), 1000);
}

// A 1366 × 768 screen less a taskbar (40) and the window's title bar (30) leaves 698 pixels: the
// window with the dock open and a text written must fit them, greedy and with beam sampling's
// second line of fields, the status line and the window's status bar on screen.
TEST(GenerationPanel, TheWindowWithTheDockFitsA1366By768Screen) {
  constexpr int kScreenHeight = 768 - 40 - 30;
  MainWindow window;
  window.resize(1366, kScreenHeight);
  window.show();
  window.model()->waitForIdle();
  auto m = openGenerationFixture("austen-gpt2");
  ASSERT_NE(m, nullptr);
  loadGenerationModel(*window.model(), m);
  auto* dock = window.findChild<QDockWidget*>("GenerationPanelDock");
  ASSERT_NE(dock, nullptr);
  dock->toggleViewAction()->trigger();
  auto* panel = window.findChild<GenerationPanel*>();
  ASSERT_NE(panel, nullptr);
  for (auto mode : {GenerationOptions::Mode::Greedy, GenerationOptions::Mode::BeamSampling}) {
    SCOPED_TRACE(int(mode));
    panel->options()->setMode(mode);
    panel->generate();
    panel->waitForIdle();
    QCoreApplication::processEvents();
    ASSERT_NE(panel->result(), nullptr) << panel->status().toStdString();
    EXPECT_LE(window.minimumSizeHint().height(), kScreenHeight);
    window.resize(1366, kScreenHeight);
    QCoreApplication::processEvents();
    EXPECT_EQ(window.height(), kScreenHeight) << "the window grew past the screen";
    EXPECT_GT(panel->chart()->height(), 0);
    EXPECT_LE(panel->mapTo(&window, QPoint(0, panel->height())).y(), window.statusBar()->y());
  }
}

}  // namespace
}  // namespace attn::ui
