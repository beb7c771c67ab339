// File > Open, drag and drop and Recent Files (offscreen): each format reaches
// the view-model as the core reads it, a bad file changes nothing but the
// message, and precomputed layers fill the head grid and the rollout view.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QDropEvent>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMimeData>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUrl>
#include <cmath>

#include "attn/io/input_file.h"
#include "attn/io/npy_writer.h"
#include "attn/metrics.h"
#include "attn/io/session.h"
#include "attn_ui/explorer/config_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/window/file_open_controller.h"
#include "attn_ui/explorer/head_grid.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/metrics/metrics_panel.h"
#include "matrix_matchers.h"

namespace attn::ui {
namespace {

QString io(const char* name) { return QStringLiteral(ATTN_FIXTURE_DIR "/io/") + QString::fromLatin1(name); }

void settleFileOpen(MainWindow& w) {
  w.fileOpener()->waitForIdle();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  if (auto* m = w.findChild<MetricsPanel*>()) m->waitForIdle();
  QCoreApplication::processEvents();
}

void openAndSettle(MainWindow& w, const QString& path) {
  w.openFile(path);
  settleFileOpen(w);
}

QStringList listed(const MainWindow& w) {
  QStringList out;
  for (int i = 0; i < w.inputPanel()->loadedList()->count(); ++i) out << w.inputPanel()->loadedList()->item(i)->text();
  return out;
}

// softmax(q k^T / sqrt(d_k)) over keys j <= i, computed here without the engine.
attn::Mat causalScaledDot(const attn::Mat& q, const attn::Mat& k) {
  attn::Mat w = attn::Mat::Zero(q.rows(), k.rows());
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    double sum = 0;
    std::vector<double> e(static_cast<size_t>(i + 1));
    for (Eigen::Index j = 0; j <= i; ++j) {
      e[static_cast<size_t>(j)] = std::exp(q.row(i).dot(k.row(j)) / std::sqrt(static_cast<double>(q.cols())));
      sum += e[static_cast<size_t>(j)];
    }
    for (Eigen::Index j = 0; j <= i; ++j) w(i, j) = static_cast<float>(e[static_cast<size_t>(j)] / sum);
  }
  return w;
}

TEST(FileOpen, ProjectedQkvWithMaskFeedsTheEngineAndLabelsTheAxes) {
  for (const char* name : {"contract_qkv.npz", "contract_qkv.safetensors"}) {
    SCOPED_TRACE(name);
    MainWindow w;
    settleFileOpen(w);
    openAndSettle(w, io(name));
    ASSERT_TRUE(w.model()->hasLoadedInput());
    EXPECT_TRUE(w.model()->lastError().isEmpty()) << w.model()->lastError().toStdString();
    const auto file = attn::loadInputFile(io(name).toStdString()).value();
    ASSERT_EQ(w.model()->result().numHeads(), 2);
    EXPECT_EQ(w.configPanel()->headsSpin()->value(), 2);  // fitted to q's heads
    // The .npz has tokens and mask = tril(ones), which joins the configuration as "custom".
    if (std::string(name).ends_with(".npz")) {
      EXPECT_EQ(w.model()->queryLabels(), QStringList({"the", "cat", "sat", "."}));
      EXPECT_EQ(w.model()->spec().mask.spec(), "custom");
      for (int h = 0; h < 2; ++h)
        EXPECT_MATRIX_NEAR(w.model()->result().heads[static_cast<size_t>(h)].weights,
                           causalScaledDot(file.input.q[static_cast<size_t>(h)], file.input.k[static_cast<size_t>(h)]),
                           1e-6);
    }
    EXPECT_EQ(w.heatmap()->matrix(), w.model()->result().heads[0].weights);
    const QString all = listed(w).join('\n');
    EXPECT_TRUE(all.contains(QStringLiteral("[2, 4, 3]"))) << all.toStdString();
    EXPECT_TRUE(all.contains(QStringLiteral("projected queries"))) << all.toStdString();
    EXPECT_TRUE(all.contains(QStringLiteral("feeds:"))) << all.toStdString();
    EXPECT_TRUE(all.contains(QString::fromLatin1(name))) << all.toStdString();
  }
}

TEST(FileOpen, EmbeddingsWithWeightsUseTheCurrentMechanism) {
  MainWindow w;
  settleFileOpen(w);
  auto* mech = w.configPanel()->mechanismSelector();
  mech->setCurrentIndex(mech->findData("cosine"));
  settleFileOpen(w);
  openAndSettle(w, io("contract_x.npz"));
  ASSERT_TRUE(w.model()->hasLoadedInput());
  EXPECT_EQ(w.model()->spec().dModel, 8);
  EXPECT_EQ(w.model()->spec().mechanism, attn::Mechanism::Cosine);
  const auto file = attn::loadInputFile(io("contract_x.npz").toStdString()).value();
  attn::AttentionSpec spec = w.model()->spec();
  ASSERT_TRUE(attn::fitSpecToInput(file.input, spec).ok());
  const auto ref = attn::runAttention(file.input, spec).value();
  ASSERT_EQ(w.model()->result().numHeads(), ref.numHeads());
  EXPECT_EQ(w.model()->result().heads.back().weights, ref.heads.back().weights);
  EXPECT_EQ(w.model()->keyLabels(), QStringList({"the", "cat", "sat", "."}));
}

TEST(FileOpen, CsvNpyAndTextOpen) {
  QTemporaryDir dir;
  MainWindow w;
  settleFileOpen(w);

  openAndSettle(w, io("attn_tokens.csv"));  // a weight matrix with a token header
  ASSERT_TRUE(w.model()->showsPrecomputed());
  EXPECT_EQ(w.model()->keyLabels(), QStringList({"the", "a,b", "猫"}));
  EXPECT_FLOAT_EQ(w.heatmap()->matrix()(0, 1), 0.25f);

  attn::Tensor t{{2, 3, 3}, {}};  // [H, N, N]: rows of weights
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) t.data.push_back(j == (i + h) % 3 ? 0.7f : 0.15f);
  const QString npy = dir.filePath("heads.npy");
  {
    QFile f(npy);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    const std::string bytes = attn::encodeNpy(t);
    f.write(bytes.data(), static_cast<qint64>(bytes.size()));
  }
  openAndSettle(w, npy);
  ASSERT_TRUE(w.model()->showsPrecomputed());
  ASSERT_EQ(w.model()->result().numHeads(), 2);
  EXPECT_FLOAT_EQ(w.model()->result().heads[1].weights(0, 1), 0.7f);

  const QString txt = dir.filePath("s.txt");
  {
    QFile f(txt);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("Attention is all you need\n");
  }
  openAndSettle(w, txt);
  EXPECT_FALSE(w.model()->hasLoadedInput());
  EXPECT_EQ(w.inputPanel()->queryEdit()->toPlainText(), "Attention is all you need");
  EXPECT_EQ(w.model()->result().nq(), 5);
}

TEST(FileOpen, LayeredAttentionFillsTheGridAndTheRollout) {
  MainWindow w;
  settleFileOpen(w);
  openAndSettle(w, io("torch_dump.npz"));  // q/k/v and attn [2, 2, 12, 12]
  EXPECT_FALSE(w.model()->showsPrecomputed());  // q/k/v are computed by default
  EXPECT_FALSE(w.inputPanel()->sourceSelector()->isHidden());
  const attn::Mat computed = w.model()->result().heads[1].weights;

  w.inputPanel()->sourceSelector()->setCurrentIndex(1);
  emit w.inputPanel()->sourceSelector()->activated(1);
  settleFileOpen(w);
  ASSERT_TRUE(w.model()->showsPrecomputed());
  ASSERT_EQ(w.model()->numLayers(), 2);
  const auto file = attn::loadInputFile(io("torch_dump.npz").toStdString()).value();
  // PyTorch's layer-1 weights and the engine's scaled dot on the same q/k agree.
  EXPECT_MATRIX_NEAR(w.model()->result().heads[1].weights, computed, 1e-5);

  auto* grid = w.findChild<HeadGrid*>();
  ASSERT_NE(grid, nullptr);
  grid->resize(300, 300);
  EXPECT_TRUE(grid->showsLayers());
  ASSERT_EQ(grid->tileCount(), 4);  // 2 layers x 2 heads, rows = layers
  EXPECT_EQ(grid->columns(), 2);
  EXPECT_EQ(grid->rows(), 2);
  EXPECT_NEAR(grid->meanEntropies()[3], attn::rowEntropy(file.attention.layers[1][1]).mean(), 1e-6);
  const QPoint centre = grid->tileRect(2).center();  // layer 2, head 1
  QMouseEvent press(QEvent::MouseButtonPress, centre, grid->mapToGlobal(centre), Qt::LeftButton, Qt::LeftButton,
                    Qt::NoModifier);
  QApplication::sendEvent(grid, &press);
  settleFileOpen(w);
  EXPECT_EQ(w.model()->currentLayer(), 1);
  EXPECT_EQ(w.model()->currentHead(), 0);
  EXPECT_EQ(w.heatmap()->matrix(), file.attention.layers[1][0]);
  EXPECT_EQ(w.model()->queryLabels().front(), "The");

  auto* metrics = w.findChild<MetricsPanel*>();
  ASSERT_NE(metrics, nullptr);
  ASSERT_NE(metrics->layeredAnalysis(), nullptr);
  EXPECT_EQ(metrics->layerSelector()->value(), 2);  // follows the model's layer
  const auto& rollout = metrics->layeredAnalysis()->rollout;
  ASSERT_EQ(rollout.size(), 2u);
  const auto ref = attn::attentionRollout(file.attention.layers).value();
  EXPECT_MATRIX_NEAR(rollout.back(), ref.back(), 1e-6);
  for (Eigen::Index i = 0; i < rollout.back().rows(); ++i) EXPECT_NEAR(rollout.back().row(i).sum(), 1.0f, 1e-5);
  EXPECT_FALSE(metrics->rolloutMap()->isHidden());
  EXPECT_EQ(metrics->rolloutMap()->matrix(), ref.back());
  metrics->layerFlowSelector()->setCurrentIndex(1);
  EXPECT_EQ(metrics->rolloutMap()->matrix(), metrics->layeredAnalysis()->flow);

  metrics->layerSelector()->setValue(1);  // and the other way round
  settleFileOpen(w);
  EXPECT_EQ(w.model()->currentLayer(), 0);
  EXPECT_EQ(w.heatmap()->matrix(), file.attention.layers[0][0]);
}

TEST(FileOpen, CrossAttentionLayersKeepTheirKeyTokens) {
  MainWindow w;  // opened while the example sentence may still be computing
  QList<int> rowsShownWithTheFile;  // a sentence result must not appear under the file's name
  QObject::connect(w.model(), &ExplorerModel::resultChanged, &w, [&] {
    if (w.model()->hasLoadedInput()) rowsShownWithTheFile << w.model()->result().nq();
  });
  openAndSettle(w, io("contract_attn.npz"));  // attn [3, 2, 4, 5]
  EXPECT_EQ(rowsShownWithTheFile.count(4), rowsShownWithTheFile.size());
  EXPECT_FALSE(rowsShownWithTheFile.isEmpty());
  const QStringList keys({"le", "chat", "est", "assis", "."});
  EXPECT_EQ(w.findChild<MetricsPanel*>()->tokens(), keys);  // the file's labels, never the sentence's
  ASSERT_TRUE(w.model()->showsPrecomputed());
  EXPECT_EQ(w.model()->numLayers(), 3);
  EXPECT_EQ(w.model()->keyLabels(), keys);
  w.model()->setCurrentLayerHead(2, 1);
  settleFileOpen(w);
  const auto file = attn::loadInputFile(io("contract_attn.npz").toStdString()).value();
  EXPECT_EQ(w.heatmap()->matrix(), file.attention.layers[2][1]);
  EXPECT_TRUE(w.heatmapPanel()->hoverText(0, 0).contains("not in the file"));
  w.inputPanel()->closeFileButton()->click();
  settleFileOpen(w);
  EXPECT_FALSE(w.model()->hasLoadedInput());
  EXPECT_EQ(w.model()->result().nq(), 14);  // the example sentence again
}

TEST(FileOpen, ABadFileShowsOneMessageAndKeepsEverything) {
  QSettings().remove("recent/files");
  MainWindow w;
  settleFileOpen(w);
  openAndSettle(w, io("contract_qkv.npz"));  // a loaded file is what must survive
  ASSERT_TRUE(w.model()->hasLoadedInput());
  const auto result = w.model()->resultPtr();
  const QString source = w.model()->loadedSource();
  const QString mask = QString::fromStdString(w.model()->spec().mask.spec());
  const int heads = w.model()->spec().heads;
  const QStringList list = listed(w);
  const QStringList recent = FileOpenController::recentFiles();
  const attn::Mat shown = w.heatmap()->matrix();

  QTemporaryDir dir;
  const QString unknown = dir.filePath("weights.bin");
  QFile(unknown).open(QIODevice::WriteOnly);
  struct Case {
    QString path;
    QString fault;  // from the core's message
  };
  for (const Case& c : {Case{io("bad/truncated.npz"), "truncated.npz"}, Case{io("bad/wrong_magic.npy"), "magic"},
                        Case{io("bad/qk_mismatch.npz"), "disagree"}, Case{io("bad/tokens_length.npz"), "'tokens' has 3"},
                        Case{io("bad/truncated.safetensors"), "truncated.safetensors"},
                        Case{io("bad/ragged.csv"), "ragged.csv"}, Case{io("bad/latin1.txt"), "not valid UTF-8"},
                        Case{io("bad/empty.npz"), "empty"}, Case{dir.filePath("gone.npz"), "no such file"},
                        Case{unknown, "unknown file type"}}) {
    SCOPED_TRACE(c.path.toStdString());
    openAndSettle(w, c.path);
    const QString banner = w.heatmapPanel()->errorBanner()->text();
    EXPECT_FALSE(w.heatmapPanel()->errorBanner()->isHidden());
    EXPECT_TRUE(banner.contains(QFileInfo(c.path).fileName())) << banner.toStdString();
    EXPECT_TRUE(banner.contains(c.fault, Qt::CaseInsensitive)) << banner.toStdString();
    EXPECT_FALSE(w.model()->lastError().contains('\n'));  // one line
    EXPECT_EQ(w.model()->resultPtr(), result);
    EXPECT_EQ(w.model()->loadedSource(), source);
    EXPECT_EQ(QString::fromStdString(w.model()->spec().mask.spec()), mask);
    EXPECT_EQ(w.model()->spec().heads, heads);
    EXPECT_EQ(listed(w), list);
    EXPECT_EQ(FileOpenController::recentFiles(), recent);
    EXPECT_EQ(w.heatmap()->matrix(), shown);
  }
}

TEST(FileOpen, RecentFilesAreCappedAndMissingOnesRemoved) {
  QSettings().remove("recent/files");
  QTemporaryDir dir;
  MainWindow w;
  settleFileOpen(w);
  QStringList paths;
  for (int i = 0; i < FileOpenController::kMaxRecent + 2; ++i) {
    const QString p = dir.filePath(QStringLiteral("s%1.txt").arg(i));
    QFile f(p);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QStringLiteral("sentence number %1").arg(i).toUtf8());
    f.close();
    paths << p;
    openAndSettle(w, p);
  }
  QStringList recent = FileOpenController::recentFiles();
  ASSERT_EQ(recent.size(), FileOpenController::kMaxRecent);
  EXPECT_EQ(recent.front(), QFileInfo(paths.back()).absoluteFilePath());
  EXPECT_FALSE(recent.contains(QFileInfo(paths.front()).absoluteFilePath()));
  // The submenu lists them, newest first.
  const auto actions = w.fileOpener()->recentMenu()->actions();
  ASSERT_EQ(actions.size(), FileOpenController::kMaxRecent);
  EXPECT_EQ(actions.front()->toolTip(), recent.front());

  const QString gone = recent[3];
  QFile::remove(gone);
  const auto before = w.model()->resultPtr();
  w.fileOpener()->openRecent(gone);
  settleFileOpen(w);
  EXPECT_FALSE(FileOpenController::recentFiles().contains(gone));
  EXPECT_EQ(w.fileOpener()->recentMenu()->actions().size(), FileOpenController::kMaxRecent - 1);
  EXPECT_TRUE(w.heatmapPanel()->errorBanner()->text().contains("removed from Recent Files"));
  EXPECT_EQ(w.model()->resultPtr(), before);

  w.fileOpener()->recentMenu()->actions().front()->trigger();  // the newest file, reopened
  settleFileOpen(w);
  EXPECT_EQ(w.inputPanel()->queryEdit()->toPlainText(), QStringLiteral("sentence number %1").arg(paths.size() - 1));
}

TEST(FileOpen, DroppingAFileOpensItAndCtrlOOpensTheDialog) {
  MainWindow w;
  settleFileOpen(w);
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(io("contract_attn.npz"))});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &enter);
  EXPECT_TRUE(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &drop);
  settleFileOpen(w);
  EXPECT_TRUE(w.model()->showsPrecomputed());
  EXPECT_EQ(w.model()->numLayers(), 3);

  QMimeData other;
  other.setUrls({QUrl::fromLocalFile("/tmp/picture.png")});
  QDragEnterEvent refuse(QPoint(10, 10), Qt::CopyAction, &other, Qt::LeftButton, Qt::NoModifier);
  refuse.setAccepted(false);
  QApplication::sendEvent(&w, &refuse);
  EXPECT_FALSE(refuse.isAccepted());

  EXPECT_EQ(w.fileOpener()->openAction()->shortcut(), QKeySequence(QKeySequence::Open));
  EXPECT_EQ(w.fileMenu()->actions().front(), w.fileOpener()->openAction());
}

TEST(FileOpen, ASessionBringsItsFileBack) {
  QTemporaryDir dir;
  attn::Session s;
  s.input.text = "unused while the file is loaded";
  s.input.file = io("contract_qkv.npz").toStdString();
  s.spec.heads = 2;
  s.spec.temperature = 0.5f;
  const QString json = dir.filePath("s.json");
  ASSERT_TRUE(attn::saveSession(json.toStdString(), s).ok());
  MainWindow w;
  settleFileOpen(w);
  openAndSettle(w, json);
  settleFileOpen(w);
  ASSERT_TRUE(w.model()->hasLoadedInput());
  EXPECT_EQ(w.model()->loadedSource(), io("contract_qkv.npz"));
  EXPECT_FLOAT_EQ(w.model()->spec().temperature, 0.5f);
  EXPECT_EQ(w.model()->result().nq(), 4);
}

}  // namespace
}  // namespace attn::ui
