// Model mode, offscreen: the reference fixture folders written by
// tests/scripts (GPT-2, BERT, Llama with GQA, Qwen2 sharded) open in the window;
// the head grid shows layers x heads, the heatmap holds the run's weights and
// matches the plain-PyTorch reference (reference.npz), the Predictions panel
// matches the reference next-token logits, a damaged folder keeps the previous
// view, the configuration controls a model fixes are disabled and come back.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QThread>
#include <QUrl>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/io/npy_reader.h"
#include "attn/models/model.h"
#include "attn_ui/classroom/classroom_actions.h"
#include "attn_ui/classroom/compare_panel.h"
#include "attn_ui/classroom/step_through_panel.h"
#include "attn_ui/classroom/step_through_view.h"
#include "attn_ui/explorer/config_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/head_grid.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/explorer/mask_selector.h"
#include "attn_ui/metrics/metrics_panel.h"
#include "attn_ui/pretrained/model_info_box.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/pretrained/model_text.h"
#include "attn_ui/pretrained/prediction_panel.h"
#include "attn_ui/window/file_open_controller.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/window/session_controller.h"
#include "attn_ui/window/translations.h"

namespace attn::ui {
namespace {

QString modelFolder(const QString& name) { return QStringLiteral(ATTN_FIXTURE_DIR "/models/") + name; }

const QStringList kFixtures = {"gpt2", "bert", "llama", "qwen2"};

QJsonObject readJson(const QString& path) {
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << path.toStdString();
  return QJsonDocument::fromJson(f.readAll()).object();
}

// Layers and heads as config.json states them (GPT-2 and the others name them differently).
std::pair<int, int> layersAndHeads(const QString& name) {
  const QJsonObject c = readJson(modelFolder(name) + "/config.json");
  if (c.contains("n_layer")) return {c["n_layer"].toInt(), c["n_head"].toInt()};
  return {c["num_hidden_layers"].toInt(), c["num_attention_heads"].toInt()};
}

struct ReferenceCase {
  QString text, pair;
  attn::Tensor attn;    // [L, H, N, N] from the PyTorch port of the HF modeling code
  attn::Tensor logits;  // [N, vocab] (causal models)
};

ReferenceCase referenceCase(const QString& name, int i) {
  ReferenceCase rc;
  const QJsonObject c =
      readJson(modelFolder(name) + "/reference_tokens.json")["cases"].toArray()[i].toObject();
  rc.text = c["text"].toString();
  rc.pair = c["pair"].isString() ? c["pair"].toString() : QString();
  auto arrays = attn::readNpzFile((modelFolder(name) + "/reference.npz").toStdString());
  EXPECT_TRUE(arrays.ok());
  for (auto& a : *arrays) {
    if (a.name == "attn_" + std::to_string(i)) rc.attn = std::move(a.values);
    if (a.name == "logits_" + std::to_string(i)) rc.logits = std::move(a.values);
  }
  return rc;
}

void settleModelView(MainWindow& w) {
  w.modelOpener()->waitForIdle();
  w.fileOpener()->waitForIdle();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
}

void openModel(MainWindow& w, const QString& dir) {
  ASSERT_TRUE(w.openFile(dir)) << dir.toStdString();
  settleModelView(w);
  ASSERT_TRUE(w.model()->hasModel()) << w.model()->lastError().toStdString();
  ASSERT_TRUE(w.model()->modelRun()) << w.model()->lastError().toStdString();
}

void typeText(MainWindow& w, const QString& text, const QString& pair = {}) {
  w.inputPanel()->keyEdit()->setText(pair);
  w.inputPanel()->queryEdit()->setPlainText(text);
  settleModelView(w);
}

TEST(ModelText, ParameterCountsAndShapesReadAsPeopleWriteThem) {
  auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
  ASSERT_TRUE(installUiTranslators(*app, "en"));         // as the window does at start: plural forms
  EXPECT_EQ(parameterCountText(124439808), "124.4 M");   // gpt2
  EXPECT_EQ(parameterCountText(1100048384), "1.10 B");   // TinyLlama
  EXPECT_EQ(parameterCountText(85120), "85.1 K");
  EXPECT_EQ(parameterCountText(900), "900");
  attn::models::ModelInfo info;
  info.layers = 22;
  info.heads = 32;
  info.kvHeads = 4;
  info.headDim = 64;
  EXPECT_EQ(modelShapeText(info), "22 layers × 32 heads of 64 (4 KV heads)");
  info.kvHeads = 32;
  EXPECT_EQ(modelShapeText(info), "22 layers × 32 heads of 64");
  info.layers = 1;  // the bundled one-layer demonstrations
  info.heads = 1;
  info.kvHeads = 1;
  EXPECT_EQ(modelShapeText(info), "1 layer × 1 head of 64");
  ASSERT_TRUE(installUiTranslators(*app, "zh_CN"));
  info.layers = 22;
  info.heads = 32;
  info.kvHeads = 4;
  EXPECT_EQ(modelShapeText(info), QStringLiteral("22 层 × 32 个头，每头 64 维（4 个 KV 头）"));
  ASSERT_TRUE(installUiTranslators(*app, "en"));
}

TEST(ModelView, EveryFixtureShowsLayersTimesHeadsInTheHeadGrid) {
  ASSERT_TRUE(installUiTranslators(*qobject_cast<QApplication*>(QCoreApplication::instance()), "en"));
  for (const QString& name : kFixtures) {
    SCOPED_TRACE(name.toStdString());
    MainWindow w;
    settleModelView(w);
    EXPECT_TRUE(ModelOpenController::canOpen(modelFolder(name)));
    openModel(w, modelFolder(name));
    const auto [layers, heads] = layersAndHeads(name);
    auto* grid = w.findChild<HeadGrid*>();
    ASSERT_NE(grid, nullptr);
    EXPECT_TRUE(grid->showsLayers());
    EXPECT_EQ(grid->tileCount(), layers * heads);
    EXPECT_EQ(grid->columns(), heads);
    EXPECT_EQ(grid->rows(), layers);
    EXPECT_EQ(w.model()->numLayers(), layers);
    EXPECT_EQ(w.model()->result().numHeads(), heads);
    // The Input panel names the model and its shape.
    const QString facts = w.inputPanel()->modelBox()->facts().join('\n');
    EXPECT_TRUE(w.inputPanel()->modelBox()->isVisibleTo(&w));
    EXPECT_TRUE(facts.contains(QStringLiteral("%1 layers × %2 heads").arg(layers).arg(heads))) << facts.toStdString();
    EXPECT_TRUE(facts.contains(QString::fromUtf8(attn::models::familyName(w.model()->modelPtr()->info().family).data())))
        << facts.toStdString();
    EXPECT_TRUE(w.heatmapPanel()->errorBanner()->isHidden() ||
                !w.heatmapPanel()->errorBanner()->text().contains("previous view"));
  }
}

TEST(ModelView, HeatmapHoldsTheRunsWeightsAndMatchesThePyTorchReference) {
  for (const QString& name : kFixtures) {
    SCOPED_TRACE(name.toStdString());
    MainWindow w;
    settleModelView(w);
    openModel(w, modelFolder(name));
    const ReferenceCase ref = referenceCase(name, 0);
    typeText(w, ref.text, ref.pair);
    ASSERT_EQ(ref.attn.shape.size(), 4u);
    const int L = static_cast<int>(ref.attn.shape[0]), H = static_cast<int>(ref.attn.shape[1]);
    const int N = static_cast<int>(ref.attn.shape[2]);
    const auto run = w.model()->modelRun();
    ASSERT_EQ(run->encoding.size(), N) << "tokens differ from the tokenizers library's";
    const quint64 generation = w.model()->shownGeneration();
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < H; ++h) {
        w.model()->setCurrentLayerHead(l, h);
        QCoreApplication::processEvents();
        const attn::Mat& shown = w.heatmap()->matrix();
        ASSERT_EQ(shown, run->layers[static_cast<size_t>(l)].heads[static_cast<size_t>(h)].weights)
            << "layer " << l << " head " << h;
        float worst = 0;
        for (int i = 0; i < N; ++i)
          for (int j = 0; j < N; ++j)
            worst = std::max(worst, std::abs(shown(i, j) - ref.attn.data[((static_cast<size_t>(l) * H + h) * N + i) * N + j]));
        EXPECT_LT(worst, 1e-4f) << "layer " << l << " head " << h;
      }
    // Choosing layers and heads reads the kept run: nothing was recomputed.
    EXPECT_EQ(w.model()->shownGeneration(), generation);
    EXPECT_EQ(w.model()->modelRun(), run);
  }
}

TEST(ModelView, StepThroughWalksAModelHeadToItsWeights) {
  for (const QString& name : {QStringLiteral("gpt2"), QStringLiteral("llama")}) {
    SCOPED_TRACE(name.toStdString());
    MainWindow w;
    settleModelView(w);
    openModel(w, modelFolder(name));
    w.model()->setCurrentLayerHead(1, 2);
    w.model()->setPinnedRow(4);
    QCoreApplication::processEvents();
    auto* view = w.findChild<StepThroughView*>();
    ASSERT_NE(view, nullptr);
    ASSERT_TRUE(view->panel()->hasWalk());
    // Recomputed from the kept q and k (after RoPE for Llama) with the model's own spec.
    const attn::Vec walked = view->panel()->walk().weights;
    const attn::Mat& weights = w.model()->currentHeadResult()->weights;
    ASSERT_EQ(walked.size(), weights.cols());
    for (Eigen::Index j = 0; j < walked.size(); ++j) EXPECT_NEAR(walked[j], weights(4, j), 1e-5f) << j;
  }
}

TEST(ModelView, PredictionsAreTheReferenceTopFiveForCausalModels) {
  MainWindow w;
  settleModelView(w);
  openModel(w, modelFolder("gpt2"));
  const ReferenceCase ref = referenceCase("gpt2", 0);
  typeText(w, ref.text);
  auto* panel = w.findChild<PredictionPanel*>();
  ASSERT_NE(panel, nullptr);
  const int n = w.model()->modelRun()->encoding.size();
  const int vocab = static_cast<int>(ref.logits.shape[1]);
  auto check = [&](int position) {
    SCOPED_TRACE(position);
    ASSERT_EQ(panel->position(), position);
    const auto& entries = panel->entries();
    ASSERT_EQ(entries.size(), 5u);
    double sum = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      EXPECT_GE(entries[i].prob, 0.0f);
      if (i > 0) {
        EXPECT_GE(entries[i - 1].prob, entries[i].prob);
      }
      sum += entries[i].prob;
    }
    EXPECT_LE(sum, 1.0 + 1e-6);
    // softmax of the reference logits at that position, its five largest
    std::vector<double> p(static_cast<size_t>(vocab));
    const float* row = ref.logits.data.data() + static_cast<size_t>(position) * vocab;
    const double top = *std::max_element(row, row + vocab);
    double z = 0;
    for (int v = 0; v < vocab; ++v) z += p[static_cast<size_t>(v)] = std::exp(row[v] - top);
    std::vector<int> order(static_cast<size_t>(vocab));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + 5, order.end(),
                      [&](int a, int b) { return p[static_cast<size_t>(a)] > p[static_cast<size_t>(b)]; });
    for (size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(entries[i].id, order[i]);
      EXPECT_NEAR(entries[i].prob, p[static_cast<size_t>(order[i])] / z, 1e-4);
    }
  };
  check(n - 1);  // no row pinned: after the last token
  w.model()->setPinnedRow(3);
  QCoreApplication::processEvents();
  check(3);
  EXPECT_TRUE(panel->heading().contains("pinned"));

  openModel(w, modelFolder("bert"));  // bidirectional: no next token
  EXPECT_TRUE(panel->entries().empty());
  EXPECT_TRUE(panel->heading().contains("causal models")) << panel->heading().toStdString();
  EXPECT_TRUE(panel->heading().contains("[MASK]")) << panel->heading().toStdString();

  // With mask tokens: the masked-LM head's top 5 at the first, then at the pinned one.
  const QString masked = QStringLiteral("The [MASK] sat on the [MASK].");
  typeText(w, masked);
  auto direct = attn::models::Model::open(modelFolder("bert").toStdString());
  ASSERT_TRUE(direct.ok()) << direct.error().message;
  auto enc = (*direct)->encode(masked.toStdString(), std::nullopt, "text");
  ASSERT_TRUE(enc.ok()) << enc.error().message;
  auto run = (*direct)->run(*enc);
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(run->maskPositions.size(), 2u);
  for (size_t k : {size_t{0}, size_t{1}}) {
    SCOPED_TRACE(k);
    if (k == 1) {
      w.model()->setPinnedRow(run->maskPositions[1]);
      QCoreApplication::processEvents();
    }
    EXPECT_EQ(panel->position(), run->maskPositions[k]);
    ASSERT_EQ(panel->entries().size(), 5u);
    for (size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(panel->entries()[i].id, run->maskPredictions[k][i].id);
      EXPECT_NEAR(panel->entries()[i].prob, run->maskPredictions[k][i].prob, 1e-5);
    }
    EXPECT_TRUE(panel->heading().startsWith("At [MASK]")) << panel->heading().toStdString();
  }
}

TEST(ModelView, ADamagedFolderShowsTheErrorAndKeepsThePreviousView) {
  QTemporaryDir tmp;
  ASSERT_TRUE(tmp.isValid());
  const QString bad = tmp.filePath("gpt2_damaged");
  ASSERT_TRUE(QDir().mkpath(bad));
  for (const QString& f : QDir(modelFolder("gpt2")).entryList(QDir::Files))
    ASSERT_TRUE(QFile::copy(modelFolder("gpt2") + "/" + f, bad + "/" + f));
  {  // cut the weights short: the header promises more bytes than the file has
    QFile weights(bad + "/model.safetensors");
    ASSERT_TRUE(weights.open(QIODevice::ReadWrite));
    ASSERT_TRUE(weights.resize(weights.size() / 2));
  }

  // 1. From the text mode: nothing changes but the banner.
  MainWindow w;
  settleModelView(w);
  const attn::Mat before = w.heatmap()->matrix();
  const auto resultBefore = w.model()->resultPtr();
  w.openFile(bad);
  settleModelView(w);
  EXPECT_FALSE(w.model()->hasModel());
  EXPECT_EQ(w.model()->resultPtr(), resultBefore);
  EXPECT_EQ(w.heatmap()->matrix(), before);
  QLabel* banner = w.heatmapPanel()->errorBanner();
  EXPECT_FALSE(banner->isHidden());
  EXPECT_TRUE(banner->text().contains("model.safetensors")) << banner->text().toStdString();
  EXPECT_TRUE(w.model()->lastError().contains("model.safetensors")) << w.model()->lastError().toStdString();
  EXPECT_TRUE(ModelOpenController::recentModels().isEmpty() ||
              !ModelOpenController::recentModels().contains(QFileInfo(bad).absoluteFilePath()));

  // 2. From a model: the open model, its run, layer and head stay.
  openModel(w, modelFolder("gpt2"));
  w.model()->setCurrentLayerHead(1, 3);
  QCoreApplication::processEvents();
  const auto model = w.model()->modelPtr();
  const auto run = w.model()->modelRun();
  const attn::Mat shown = w.heatmap()->matrix();
  QDir(bad).remove("vocab.json");  // a missing tokenizer file, this time
  w.openFile(bad);
  settleModelView(w);
  EXPECT_EQ(w.model()->modelPtr(), model);
  EXPECT_EQ(w.model()->modelRun(), run);
  EXPECT_EQ(w.model()->currentLayer(), 1);
  EXPECT_EQ(w.model()->currentHead(), 3);
  EXPECT_EQ(w.heatmap()->matrix(), shown);
  EXPECT_FALSE(banner->isHidden());
  EXPECT_TRUE(banner->text().contains("gpt2_damaged")) << banner->text().toStdString();
}

TEST(ModelView, ConfigurationControlsAreFixedByTheModelAndComeBack) {
  MainWindow w;
  settleModelView(w);
  const QList<QWidget*> controls = w.configPanel()->modelFixedControls();
  ASSERT_GE(controls.size(), 10);
  QStringList tips;
  for (QWidget* c : controls) {
    EXPECT_TRUE(c->isEnabled());
    tips << c->toolTip();
  }
  const attn::AttentionSpec spec = w.model()->spec();
  openModel(w, modelFolder("gpt2"));
  for (QWidget* c : controls) {
    EXPECT_FALSE(c->isEnabled()) << c->metaObject()->className();
    EXPECT_TRUE(c->toolTip().startsWith("Fixed by the model")) << c->toolTip().toStdString();
  }
  // gpt2 fixture: n_head 4, n_embd 64 -> heads of 16.
  EXPECT_TRUE(w.configPanel()->headsSpin()->toolTip().contains("4 heads of 16"))
      << w.configPanel()->headsSpin()->toolTip().toStdString();
  EXPECT_TRUE(w.configPanel()->maskSelector()->toolTip().contains("causal"));
  EXPECT_FALSE(w.inputPanel()->keyEdit()->isEnabled());  // GPT-2 reads one text

  w.inputPanel()->modelBox()->closeButton()->click();
  settleModelView(w);
  EXPECT_FALSE(w.model()->hasModel());
  EXPECT_FALSE(w.inputPanel()->modelBox()->isVisibleTo(&w));
  for (int i = 0; i < controls.size(); ++i) {
    EXPECT_TRUE(controls[i]->isEnabled());
    EXPECT_EQ(controls[i]->toolTip(), tips[i]);
  }
  EXPECT_TRUE(w.inputPanel()->keyEdit()->isEnabled());
  // Back to the configured mechanism over the same text.
  EXPECT_EQ(w.model()->result().numHeads(), spec.heads);
  EXPECT_FALSE(w.findChild<HeadGrid*>()->showsLayers());

  openModel(w, modelFolder("bert"));
  EXPECT_TRUE(w.inputPanel()->keyEdit()->isEnabled());  // BERT's second segment
  EXPECT_TRUE(w.configPanel()->maskSelector()->toolTip().contains("bidirectional"));
}

TEST(ModelView, EditingTheTextReRunsTheModel) {
  MainWindow w;
  settleModelView(w);
  openModel(w, modelFolder("gpt2"));
  auto direct = attn::models::Model::open(modelFolder("gpt2").toStdString());
  ASSERT_TRUE(direct.ok()) << direct.error().message;
  for (const char* text : {"The cat sat on the mat.", "it was too tired"}) {
    SCOPED_TRACE(text);
    const quint64 before = w.model()->shownGeneration();
    typeText(w, QString::fromUtf8(text));
    EXPECT_GT(w.model()->shownGeneration(), before);
    auto enc = (*direct)->encode(text, std::nullopt, "text");
    ASSERT_TRUE(enc.ok());
    auto run = (*direct)->run(*enc);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(w.model()->modelRun()->encoding.tokens, enc->tokens);
    EXPECT_EQ(w.model()->result().queryTokens, enc->tokens);
    // Views label tokens with the text they stand for, the word boundary as "␣".
    const QStringList labels = w.model()->queryLabels();
    ASSERT_EQ(labels.size(), static_cast<qsizetype>(enc->tokens.size()));
    for (size_t i = 0; i < enc->tokens.size(); ++i) {
      const QString vocab = QString::fromStdString(enc->tokens[i]);
      if (vocab.startsWith(QStringLiteral("Ġ")) && vocab.size() > 1) {
        EXPECT_EQ(labels[static_cast<qsizetype>(i)], QStringLiteral("␣") + vocab.mid(1));
      }
    }
    w.model()->setCurrentLayerHead(1, 1);
    QCoreApplication::processEvents();
    EXPECT_EQ(w.heatmap()->matrix(), run->layers[1].heads[1].weights);
    // Metrics follow the model's layers (per-layer bars, rollout).
    auto* metrics = w.findChild<MetricsPanel*>();
    metrics->waitForIdle();
    ASSERT_NE(metrics->analysis(), nullptr);
    EXPECT_EQ(metrics->analysis()->heads.size(), 4u);
  }
}

TEST(ModelView, ASessionStoresTheModelFolderAndRestoresIt) {
  attn::Session saved;
  {
    MainWindow w;
    settleModelView(w);
    openModel(w, modelFolder("llama"));
    typeText(w, "Café déjà vu");
    w.model()->setCurrentLayerHead(1, 2);
    QCoreApplication::processEvents();
    saved = w.sessions()->capture();
    EXPECT_EQ(QDir(QString::fromStdString(saved.input.model)).canonicalPath(),
              QDir(modelFolder("llama")).canonicalPath());
    EXPECT_EQ(saved.view.layer, 1);
    EXPECT_EQ(saved.view.head, 2);
  }
  auto back = attn::sessionFromJson(attn::sessionToJson(saved), "s.json");
  ASSERT_TRUE(back.ok());
  MainWindow w;
  settleModelView(w);
  w.sessions()->apply(*back);
  settleModelView(w);
  QCoreApplication::processEvents();
  ASSERT_TRUE(w.model()->hasModel());
  EXPECT_EQ(w.model()->text(), "Café déjà vu");
  EXPECT_EQ(w.model()->currentLayer(), 1);
  EXPECT_EQ(w.model()->currentHead(), 2);
  EXPECT_EQ(w.heatmap()->matrix(), w.model()->modelRun()->layers[1].heads[2].weights);
}

TEST(ModelView, DroppingAModelFolderOpensItAndRecentModelsRemembersIt) {
  MainWindow w;
  settleModelView(w);
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(modelFolder("qwen2"))});
  QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &enter);
  EXPECT_TRUE(enter.isAccepted());
  QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(&w, &drop);
  settleModelView(w);
  ASSERT_TRUE(w.model()->hasModel()) << w.model()->lastError().toStdString();
  EXPECT_EQ(w.model()->modelPtr()->info().modelType, "qwen2");
  EXPECT_EQ(ModelOpenController::recentModels().value(0), QFileInfo(modelFolder("qwen2")).absoluteFilePath());
  EXPECT_FALSE(ModelOpenController::canOpen(QStringLiteral(ATTN_FIXTURE_DIR "/io")));  // no config.json
}

TEST(ModelView, CancellingALoadKeepsTheView) {
  MainWindow w;
  settleModelView(w);
  const auto before = w.model()->resultPtr();
  w.openFile(modelFolder("gpt2"));
  ASSERT_TRUE(w.modelOpener()->busy());
  EXPECT_FALSE(w.modelOpener()->progressBar()->isHidden());
  w.modelOpener()->cancel();
  EXPECT_FALSE(w.modelOpener()->busy());
  EXPECT_TRUE(w.modelOpener()->progressBar()->isHidden());
  for (int i = 0; i < 20; ++i) {  // the worker finishes; its model is dropped
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(10);
  }
  EXPECT_FALSE(w.model()->hasModel());
  EXPECT_EQ(w.model()->resultPtr(), before);
}

TEST(ModelView, CompareShowsAnotherLayerOfTheSameModel) {
  auto m = attn::models::Model::open(modelFolder("gpt2").toStdString());
  ASSERT_TRUE(m.ok()) << m.error().message;
  ExplorerModel a;
  a.setModel(*m);
  a.setText("The animal didn't cross the street");
  a.waitForIdle();
  ASSERT_TRUE(a.modelRun());
  ComparePanel panel(&a);
  panel.syncB();
  panel.modelB()->waitForIdle();
  QCoreApplication::processEvents();
  panel.layerB()->setValue(2);
  panel.headB()->setValue(3);
  QCoreApplication::processEvents();
  ASSERT_TRUE(panel.modelB()->hasModel());
  EXPECT_EQ(panel.modelB()->currentLayer(), 1);
  EXPECT_EQ(panel.modelB()->result().heads[2].weights, a.modelRun()->layers[1].heads[2].weights);
  EXPECT_TRUE(panel.textB()->isVisibleTo(&panel));
  EXPECT_FALSE(panel.maskB()->isVisibleTo(&panel));
}

// A model's name comes from its folder: a "%2" in it is shown as it is, not filled with a number.
TEST(ModelText, ANameWithAPlaceholderIsShownAsItIs) {
  attn::models::ModelInfo info;
  info.name = "org/tiny%2%5";
  info.heads = 4, info.headDim = 16, info.dModel = 64, info.layers = 2;
  const QString sizes = fixedByModel(info).sizes;
  EXPECT_TRUE(sizes.contains("org/tiny%2%5's 4 heads of 16 (d_model 64, 2 layers)")) << sizes.toStdString();
}

}  // namespace
}  // namespace attn::ui
