// The Translation dock, offscreen, on the random Marian, BART and T5 fixtures: the translation
// and every map it shows are the core's own generate / forced runs, the argmax links and the
// alignment error rate are word_alignment's, Cancel keeps the previous translation, and File >
// Open Model Folder… on an encoder-decoder folder opens it here and leaves the other views alone.
#include "attn_ui/translation/translation_panel.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QVBoxLayout>
#include <algorithm>
#include <fstream>
#include <sstream>

#include "attn/models/seq2seq/seq2seq_model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/generation/generation_options.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/translation/alignment_links_view.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

std::shared_ptr<const attn::models::Seq2SeqModel> openSeq2SeqFixture(const char* name) {
  auto m = attn::models::Seq2SeqModel::open(std::string(ATTN_FIXTURE_DIR "/models/") + name);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : nullptr;
}

attn::Mat meanOfHeads(const attn::AttentionResult& layer) {
  attn::Mat sum = layer.heads[0].weights;
  for (size_t h = 1; h < layer.heads.size(); ++h) sum += layer.heads[h].weights;
  return sum / static_cast<float>(layer.heads.size());
}

TEST(TranslationPanel, ShowsTheCoresTranslationAndEveryKindOfMap) {
  for (const char* name : {"marian", "bart", "flan_t5"}) {
    SCOPED_TRACE(name);
    TranslationPanel panel;
    panel.resize(900, 700);
    auto m = openSeq2SeqFixture(name);
    ASSERT_NE(m, nullptr);
    panel.setModel(m);
    EXPECT_FALSE(panel.sourceEdit()->text().isEmpty());  // an example to start from
    panel.waitForIdle();
    ASSERT_NE(panel.run(), nullptr) << panel.status().toStdString();
    auto source = m->encode(panel.sourceEdit()->text().toStdString(), "src");
    ASSERT_TRUE(source.ok());
    auto direct = m->generate(*source, attn::models::GenerateOptions{});
    ASSERT_TRUE(direct.ok()) << direct.error().message;
    EXPECT_EQ(panel.run()->targetIds, direct->targetIds);
    // The last layer's cross-attention, the mean of the heads, by default.
    const auto& cross = direct->attention.cross;
    EXPECT_EQ(panel.kind(), TranslationPanel::Kind::Cross);
    EXPECT_EQ(panel.layer(), static_cast<int>(cross.size()) - 1);
    EXPECT_EQ(panel.head(), -1);
    // Rows: the token each step writes (the decoder's input rows but the last).
    const attn::Mat mean = meanOfHeads(cross.back());
    const attn::Mat want = mean.topRows(mean.rows() - 1);
    ASSERT_EQ(panel.shownMap().rows(), want.rows());
    ASSERT_EQ(panel.shownMap().cols(), static_cast<Eigen::Index>(direct->source.size()));
    EXPECT_LT((panel.shownMap() - want).cwiseAbs().maxCoeff(), 1e-6f);
    EXPECT_EQ(panel.argmaxLinks(), attn::alignment::argmaxAlignment(want));
    EXPECT_EQ(panel.heatmap()->rows(), want.rows());
    EXPECT_EQ(panel.linksView()->sourceCount(), direct->source.size());
    EXPECT_EQ(panel.linksView()->targetCount(), static_cast<int>(direct->targetIds.size()) - 1);
    // One head of the first layer, then the encoder's and the decoder's self-attention.
    panel.setLayer(0);
    panel.setHead(1);
    const attn::Mat& one = cross[0].heads[1].weights;
    EXPECT_LT((panel.shownMap() - one.topRows(one.rows() - 1)).cwiseAbs().maxCoeff(), 1e-6f);
    panel.setKind(TranslationPanel::Kind::Encoder);
    EXPECT_LT((panel.shownMap() - direct->attention.encoder[0].heads[1].weights).cwiseAbs().maxCoeff(),
              1e-6f);
    panel.setKind(TranslationPanel::Kind::Decoder);
    EXPECT_LT((panel.shownMap() - direct->attention.decoder[0].heads[1].weights).cwiseAbs().maxCoeff(),
              1e-6f);
  }
}

// The decoding controls ask the core for what translate's options ask for (--beam, --do-sample,
// --top-k, --top-p, --temperature, --seed): the same ids and the same settings line as a direct
// generate with those options, for sampling, beam search and beam sampling.
TEST(TranslationPanel, DecodingControlsRunWhatTranslatesOptionsRun) {
  TranslationPanel panel;
  auto m = openSeq2SeqFixture("marian");
  ASSERT_NE(m, nullptr);
  panel.setModel(m);
  panel.waitForIdle();
  ASSERT_NE(panel.run(), nullptr) << panel.status().toStdString();
  // The checkpoint's generation config (num_beams 1, no do_sample) is the default: greedy.
  auto* d = panel.decodingOptions();
  EXPECT_EQ(d->mode(), GenerationOptions::Mode::Greedy);
  EXPECT_EQ(d->maxNewBox()->value(), 0);  // as configured: max_length
  EXPECT_TRUE(panel.settingsText().startsWith("Settings: greedy;")) << panel.settingsText().toStdString();
  auto source = m->encode(panel.sourceEdit()->text().toStdString(), "src");
  ASSERT_TRUE(source.ok());
  const auto direct = [&](int beams, bool sample, int topK, double topP, double temperature, uint64_t seed) {
    attn::models::GenerateOptions g;  // as runTranslate fills it from the command line
    g.beams = beams;
    if (sample) g.doSample = true;
    g.topK = topK, g.topP = topP, g.temperature = temperature;
    g.seed = seed;
    g.maxNewTokens = 8;
    auto run = m->generate(*source, g);
    EXPECT_TRUE(run.ok()) << run.error().message;
    return run.ok() ? *run : attn::models::Seq2SeqRun{};
  };
  // The seed matters on this model, so a seed lost on the way would show.
  const auto seven = direct(1, true, 0, 1.0, 3.0, 7), eight = direct(1, true, 0, 1.0, 3.0, 8);
  ASSERT_NE(seven.targetIds, eight.targetIds);
  struct Case {
    GenerationOptions::Mode mode;
    int beams, topK;
    double topP, temperature;
    int seed;
  };
  for (const Case& c : {Case{GenerationOptions::Mode::Sampling, 1, 0, 1.0, 3.0, 8},
                        Case{GenerationOptions::Mode::Sampling, 1, 5, 0.9, 1.5, 3},
                        Case{GenerationOptions::Mode::Beam, 3, 0, 1.0, 1.0, 0},
                        Case{GenerationOptions::Mode::BeamSampling, 3, 7, 0.95, 2.0, 11}}) {
    SCOPED_TRACE(int(c.mode));
    d->setMode(c.mode);
    d->maxNewBox()->setValue(8);
    d->beamsBox()->setValue(c.beams);
    d->topKBox()->setValue(c.topK);
    d->topPBox()->setValue(c.topP);
    d->temperatureBox()->setValue(c.temperature);
    d->seedBox()->setValue(c.seed);
    panel.translate();
    panel.waitForIdle();
    ASSERT_NE(panel.run(), nullptr) << panel.status().toStdString();
    const bool sample = c.mode != GenerationOptions::Mode::Beam;
    const auto want = direct(c.beams, sample, c.topK, c.topP, c.temperature, static_cast<uint64_t>(c.seed));
    EXPECT_EQ(panel.run()->targetIds, want.targetIds);
    EXPECT_EQ(panel.settingsText(), QString::fromStdString("Settings: " + want.settings));
    EXPECT_EQ(panel.settingsText().contains(QStringLiteral("seed %1").arg(c.seed)), sample);
  }
}

// Layers and heads are shown from 1, as the main window and the CLI number them; the panel's
// own indices (and the maps they pick) stay the core's, from 0.
TEST(TranslationPanel, NumbersLayersAndHeadsFromOne) {
  TranslationPanel panel;
  auto m = openSeq2SeqFixture("marian");
  ASSERT_NE(m, nullptr);
  panel.setModel(m);
  panel.waitForIdle();
  ASSERT_NE(panel.run(), nullptr) << panel.status().toStdString();
  const auto& cross = panel.run()->attention.cross;
  ASSERT_GE(cross.size(), 2u);
  ASSERT_EQ(panel.layerBox()->count(), static_cast<int>(cross.size()));
  for (int i = 0; i < panel.layerBox()->count(); ++i)
    EXPECT_EQ(panel.layerBox()->itemText(i), QString::number(i + 1));
  const int heads = cross.front().numHeads();
  ASSERT_EQ(panel.headBox()->count(), heads + 1);  // the mean first
  for (int h = 0; h < heads; ++h) EXPECT_EQ(panel.headBox()->itemText(h + 1), QString::number(h + 1));
  panel.setKind(TranslationPanel::Kind::Encoder);
  panel.setLayer(0);
  panel.setHead(1);
  EXPECT_EQ(panel.layerBox()->currentText(), QStringLiteral("1"));
  EXPECT_EQ(panel.headBox()->currentText(), QStringLiteral("2"));
  EXPECT_TRUE((panel.shownMap().array() == panel.run()->attention.encoder[0].heads[1].weights.array()).all());
  EXPECT_EQ(panel.heatmap()->title(), QStringLiteral("Encoder self-attention, layer 1, head 2"));
}

TEST(TranslationPanel, ForcedTargetAndAlignmentErrorRate) {
  TranslationPanel panel;
  auto m = openSeq2SeqFixture("marian");
  ASSERT_NE(m, nullptr);
  panel.setModel(m);
  panel.waitForIdle();
  panel.targetEdit()->setText(QStringLiteral("Hallo Welt"));
  panel.translate();
  panel.waitForIdle();
  ASSERT_NE(panel.run(), nullptr);
  auto source = m->encode(panel.sourceEdit()->text().toStdString(), "src");
  ASSERT_TRUE(source.ok());
  auto forced = m->forced(*source, "Hallo Welt", "tgt");
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  EXPECT_EQ(panel.run()->targetIds, forced->targetIds);
  // A forced target is read, not written: the decoding controls do not apply.
  EXPECT_FALSE(panel.decodingOptions()->isEnabled());
  EXPECT_EQ(panel.settingsText(), QStringLiteral("Settings: forced decoding"));
  panel.setHead(-1);
  const auto links = panel.argmaxLinks();
  ASSERT_FALSE(links.empty());
  // The argmax links themselves as the reference: AER 0; the first link moved: as computed here.
  panel.referenceEdit()->setText(QString::fromStdString(attn::alignment::toPharaoh(links)));
  EXPECT_TRUE(panel.scoreText().startsWith("AER 0.000")) << panel.scoreText().toStdString();
  auto ref = attn::alignment::parsePharaoh("0-0 1?1", "ref");
  ASSERT_TRUE(ref.ok());
  auto s = attn::alignment::alignmentErrorRate(links, *ref);
  ASSERT_TRUE(s.ok());
  panel.referenceEdit()->setText(QStringLiteral("0-0 1?1"));
  EXPECT_TRUE(panel.scoreText().startsWith(QString("AER %1").arg(s->aer, 0, 'f', 3)))
      << panel.scoreText().toStdString();
  panel.referenceEdit()->setText(QStringLiteral("0-0 99-1"));
  EXPECT_TRUE(panel.scoreText().contains("names source token 99")) << panel.scoreText().toStdString();
  panel.setKind(TranslationPanel::Kind::Encoder);
  EXPECT_TRUE(panel.scoreText().contains("cross-attention only")) << panel.scoreText().toStdString();
}

// A learned alignment: the toy English-to-French Marian (scripts/models/train_toy_translation.py)
// on its 20 held-out sentences writes the reference translation, and the argmax of its last
// layer's mean cross-attention finds every crossing link of the gold alignment (the colour
// adjective French puts after its noun) — a monotone alignment, or an untrained model, finds none.
TEST(TranslationPanel, ToyModelsCrossAttentionFindsTheReorderedWords) {
  TranslationPanel panel;
  auto m = openSeq2SeqFixture("toy_translation");
  ASSERT_NE(m, nullptr);
  panel.setModel(m);
  panel.waitForIdle();
  std::ifstream lines(ATTN_FIXTURE_DIR "/models/toy_translation/alignments.txt");
  std::string line;
  int sentences = 0, crossing = 0, found = 0;
  while (std::getline(lines, line)) {
    std::stringstream fields(line);
    std::string en, fr, gold;
    std::getline(fields, en, '\t');
    std::getline(fields, fr, '\t');
    std::getline(fields, gold);
    SCOPED_TRACE(en);
    panel.sourceEdit()->setText(QString::fromStdString(en));
    panel.translate();
    panel.waitForIdle();
    ASSERT_NE(panel.run(), nullptr) << panel.status().toStdString();
    EXPECT_EQ(panel.run()->outputText, fr);
    EXPECT_EQ(panel.kind(), TranslationPanel::Kind::Cross);
    panel.setLayer(static_cast<int>(panel.run()->attention.cross.size()) - 1);
    panel.setHead(-1);
    auto ref = attn::alignment::parsePharaoh(gold, "alignments.txt");
    ASSERT_TRUE(ref.ok()) << ref.error().message;
    const auto& links = panel.argmaxLinks();
    for (const auto& l : ref->sure)
      if (l.first != l.second) {
        ++crossing;
        found += std::find(links.begin(), links.end(), l) != links.end() ? 1 : 0;
      }
    ++sentences;
  }
  EXPECT_EQ(sentences, 20);
  EXPECT_GE(crossing, 20);
  EXPECT_EQ(found, crossing);
}

TEST(TranslationPanel, CancelKeepsThePreviousTranslation) {
  TranslationPanel panel;
  panel.setModel(openSeq2SeqFixture("bart"));
  panel.waitForIdle();
  const auto before = panel.run();
  ASSERT_NE(before, nullptr);
  panel.sourceEdit()->setText(QStringLiteral("Another sentence entirely."));
  panel.translate();
  panel.cancel();
  panel.waitForIdle();
  EXPECT_EQ(panel.run(), before);
  EXPECT_TRUE(panel.status().contains("Cancelled")) << panel.status().toStdString();
  // Esc in the source field stops a translation too.
  panel.translate();
  ASSERT_TRUE(panel.busy());
  QKeyEvent esc(QEvent::KeyPress, Qt::Key_Escape, Qt::NoModifier);
  QCoreApplication::sendEvent(panel.sourceEdit(), &esc);
  EXPECT_FALSE(panel.busy());
  panel.waitForIdle();
  EXPECT_EQ(panel.run(), before);
}

TEST(TranslationPanel, OpeningAnEncoderDecoderFolderShowsTheDock) {
  MainWindow window;
  auto* panel = window.findChild<TranslationPanel*>();
  ASSERT_NE(panel, nullptr);
  auto* dock = window.findChild<QDockWidget*>("TranslationPanelDock");
  ASSERT_NE(dock, nullptr);
  EXPECT_TRUE(dock->isHidden());
  window.model()->waitForIdle();
  const auto before = window.model()->modelPtr();
  window.modelOpener()->open(QStringLiteral(ATTN_FIXTURE_DIR "/models/t5"));
  window.modelOpener()->waitForIdle();
  ASSERT_NE(panel->model(), nullptr);
  EXPECT_EQ(panel->model()->info().modelType, "t5");
  EXPECT_FALSE(dock->isHidden());
  EXPECT_EQ(window.model()->modelPtr(), before);  // the other views keep what they had
  panel->waitForIdle();
  EXPECT_NE(panel->run(), nullptr) << panel->status().toStdString();
}

// Show in Main Views: the shown kind, every layer and head, becomes the explorer's weights, so
// its heatmap, head grid and metrics draw the translation's own maps.
TEST(TranslationPanel, ShowInMainViewsHandsEachKindToTheExplorer) {
  MainWindow window;
  auto* panel = window.findChild<TranslationPanel*>();
  ASSERT_NE(panel, nullptr);
  window.model()->waitForIdle();
  EXPECT_FALSE(panel->mainViewsButton()->isEnabled()) << "nothing translated yet";
  window.modelOpener()->open(QStringLiteral(ATTN_FIXTURE_DIR "/models/bart"));
  window.modelOpener()->waitForIdle();
  panel->waitForIdle();
  ASSERT_NE(panel->run(), nullptr) << panel->status().toStdString();
  ASSERT_TRUE(panel->mainViewsButton()->isEnabled());
  const auto& run = *panel->run();
  for (auto kind :
       {TranslationPanel::Kind::Cross, TranslationPanel::Kind::Encoder, TranslationPanel::Kind::Decoder}) {
    SCOPED_TRACE(int(kind));
    panel->setKind(kind);
    panel->mainViewsButton()->click();
    window.model()->waitForIdle();
    const auto& layers = kind == TranslationPanel::Kind::Cross     ? run.attention.cross
                         : kind == TranslationPanel::Kind::Encoder ? run.attention.encoder
                                                                   : run.attention.decoder;
    ASSERT_TRUE(window.model()->showsPrecomputed());
    EXPECT_FALSE(window.model()->hasModel());
    EXPECT_EQ(window.model()->numLayers(), static_cast<int>(layers.size()));
    const int last = static_cast<int>(layers.size()) - 1, head = layers.back().numHeads() - 1;
    window.model()->setCurrentLayerHead(last, head);
    window.model()->waitForIdle();
    QCoreApplication::processEvents();
    const attn::Mat& want = layers.back().heads[static_cast<size_t>(head)].weights;
    ASSERT_EQ(window.heatmap()->matrix().rows(), want.rows());
    ASSERT_EQ(window.heatmap()->matrix().cols(), want.cols());
    EXPECT_TRUE(window.heatmap()->matrix().isApprox(want, 1e-6f));
    EXPECT_EQ(window.model()->result().queryTokens, layers.back().queryTokens);
    const auto& keys = layers.back().keyTokens.empty() ? layers.back().queryTokens : layers.back().keyTokens;
    EXPECT_EQ(window.model()->result().keyTokens, keys);
    // Decoder self-attention keeps its causal mask: a step's later tokens are masked cells.
    const attn::Mask& mask = window.heatmapPanel()->shownMask();
    EXPECT_EQ(mask.allowed(0, 1), kind != TranslationPanel::Kind::Decoder);
  }
}

// A 1366 × 768 screen less a taskbar (40) and the window's title bar (30) leaves 698 pixels: the
// window with the dock open must fit them, in the one-line greedy controls and beam sampling's
// two lines, with every row of the dock, the map's key axis and the status bar on screen.
TEST(TranslationPanel, TheWindowWithTheDockFitsA1366By768Screen) {
  constexpr int kScreenHeight = 768 - 40 - 30;
  MainWindow window;
  window.resize(1366, kScreenHeight);
  window.show();
  window.model()->waitForIdle();
  window.modelOpener()->open(QStringLiteral(ATTN_FIXTURE_DIR "/models/marian"));
  window.modelOpener()->waitForIdle();
  auto* panel = window.findChild<TranslationPanel*>();
  ASSERT_NE(panel, nullptr);
  panel->waitForIdle();
  for (auto mode : {GenerationOptions::Mode::Greedy, GenerationOptions::Mode::BeamSampling}) {
    SCOPED_TRACE(int(mode));
    panel->decodingOptions()->setMode(mode);
    QCoreApplication::processEvents();
    EXPECT_LE(window.minimumSizeHint().height(), kScreenHeight);
    EXPECT_LE(window.minimumSizeHint().width(), 1366);
    window.resize(1366, kScreenHeight);
    QCoreApplication::processEvents();
    EXPECT_EQ(window.height(), kScreenHeight) << "the window grew past the screen";
    EXPECT_EQ(window.width(), 1366);
    // The last row of the dock ends above the status bar; the map keeps a readable height.
    const auto* last = panel->layout()->itemAt(panel->layout()->count() - 1)->widget();
    ASSERT_NE(last, nullptr);
    EXPECT_LE(last->mapTo(&window, QPoint(0, last->height())).y(), window.statusBar()->y());
    EXPECT_GE(panel->heatmap()->height(), 100);
  }
}

}  // namespace
}  // namespace attn::ui
