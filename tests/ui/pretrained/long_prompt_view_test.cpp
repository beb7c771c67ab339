// Long prompts in the window, offscreen: with the map budget forced low, a fixture
// model's text runs streamed (no N x N kept). The heatmap's overview equals the block
// max / mean of the same head's map from a materialized run computed here by hand, a
// zoomed-in rectangle equals that map's cells, the head grid has layers x heads tiles
// with thumbnails, and the Metrics dock's entropy equals the materialized run's.
#include <gtest/gtest.h>

#include <QApplication>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <algorithm>
#include <cmath>

#include "attn/analysis/head_analysis.h"
#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/head_grid.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_source.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/metrics/metrics_panel.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/window/file_open_controller.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/window/status_summary.h"

namespace attn::ui {
namespace {

QString longFixture(const QString& name) { return QStringLiteral(ATTN_FIXTURE_DIR "/models/") + name; }

const QString kLongText = QStringLiteral("It is a truth universally acknowledged, that a single man");

void settleLong(MainWindow& w) {
  w.modelOpener()->waitForIdle();
  w.fileOpener()->waitForIdle();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  w.heatmap()->waitForSource();
}

// The block max or mean of a materialized map, as pooledMap defines it.
attn::Mat poolByHand(const attn::Mat& m, int b, bool max) {
  const int n = static_cast<int>(m.rows()), p = (n + b - 1) / b;
  attn::Mat out(p, p);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) {
      const int h = std::min(b, n - i * b), w = std::min(b, n - j * b);
      const auto blk = m.block(i * b, j * b, h, w);
      out(i, j) = max ? blk.maxCoeff() : blk.sum() / static_cast<float>(h * w);
    }
  return out;
}

float worstDiff(const attn::Mat& a, const attn::Mat& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return std::numeric_limits<float>::infinity();
  return (a - b).cwiseAbs().maxCoeff();
}

struct StreamedWindow {
  MainWindow w;
  std::shared_ptr<const attn::models::ModelRun> reference;  // the same text, materialized
};

void openStreamed(StreamedWindow& s, const QString& name) {
  MainWindow& w = s.w;
  w.model()->setMapBudgetBytes(1);  // every run streams
  w.model()->setStreamedQkPrecision(attn::models::QkPrecision::F32);
  w.heatmap()->setSourceOverviewSide(6);   // blocks of several tokens at this short N
  w.heatmap()->setSourceDetailCells(200);  // the whole map is "too many cells" to show sharp
  settleLong(w);
  ASSERT_TRUE(w.openFile(longFixture(name)));
  settleLong(w);
  ASSERT_TRUE(w.model()->hasModel()) << w.model()->lastError().toStdString();
  w.inputPanel()->queryEdit()->setPlainText(kLongText);
  settleLong(w);
  ASSERT_TRUE(w.model()->isStreamed()) << w.model()->lastError().toStdString();
  const auto& model = *w.model()->modelPtr();
  attn::models::RunOptions options;
  options.keepQkv = false;
  auto run = model.run(w.model()->modelRun()->encoding, options);
  ASSERT_TRUE(run.ok()) << run.error().message;
  s.reference = std::make_shared<attn::models::ModelRun>(std::move(run).value());
}

class LongPromptView : public ::testing::TestWithParam<const char*> {};

TEST_P(LongPromptView, RunsStreamedAndSaysSo) {
  StreamedWindow s;
  openStreamed(s, GetParam());
  if (HasFatalFailure()) return;
  const auto run = s.w.model()->modelRun();
  EXPECT_TRUE(run->layers.empty());  // no N x N kept
  ASSERT_TRUE(run->qk);
  EXPECT_EQ(s.w.model()->numLayers(), run->qk->layers());
  EXPECT_TRUE(s.w.model()->isMetricsOnly());
  const int n = run->encoding.size();
  EXPECT_TRUE(s.w.statusSummary()->text().contains(StatusSummary::streamedNote(n)))
      << s.w.statusSummary()->text().toStdString();
  // A generous budget: the same text is materialized again.
  s.w.model()->setMapBudgetBytes(ExplorerModel::kDefaultMapBudgetBytes);
  s.w.model()->recompute();
  settleLong(s.w);
  EXPECT_FALSE(s.w.model()->isStreamed());
  EXPECT_FALSE(s.w.model()->modelRun()->layers.empty());
}

TEST_P(LongPromptView, OverviewIsTheBlockPoolingOfTheMaterializedMap) {
  StreamedWindow s;
  openStreamed(s, GetParam());
  if (HasFatalFailure()) return;
  auto* heatmap = s.w.heatmap();
  const int n = s.w.model()->modelRun()->encoding.size();
  const int block = overviewBlock(n, 6);
  ASSERT_GT(block, 1);
  for (int l = 0; l < s.w.model()->numLayers(); ++l)
    for (int h = 0; h < s.w.model()->result().numHeads(); ++h) {
      SCOPED_TRACE(testing::Message() << "layer " << l << " head " << h);
      s.w.model()->setCurrentLayerHead(l, h);
      settleLong(s.w);
      const attn::Mat& ref =
          s.reference->layers[static_cast<size_t>(l)].heads[static_cast<size_t>(h)].weights;
      ASSERT_EQ(heatmap->overviewBlock(), block);
      EXPECT_LT(worstDiff(heatmap->overview(), poolByHand(ref, block, true)), 1e-5f);
      EXPECT_TRUE(heatmap->title().contains(QStringLiteral("max of %1 × %1 blocks").arg(block)))
          << heatmap->title().toStdString();
    }
  heatmap->setPooling(HeatmapWidget::Pooling::Mean);
  settleLong(s.w);
  const auto& ref = s.reference->layers.back().heads.back().weights;
  EXPECT_LT(worstDiff(heatmap->overview(), poolByHand(ref, block, false)), 1e-5f);
  EXPECT_TRUE(heatmap->title().contains(QStringLiteral("mean of"))) << heatmap->title().toStdString();
}

TEST_P(LongPromptView, ZoomedInRectangleHoldsTheMapsCells) {
  StreamedWindow s;
  openStreamed(s, GetParam());
  if (HasFatalFailure()) return;
  s.w.resize(1366, 768);
  s.w.model()->setCurrentLayerHead(1, 1);
  settleLong(s.w);
  auto* heatmap = s.w.heatmap();
  EXPECT_TRUE(heatmap->detailRect().isEmpty());  // zoomed out: the overview alone
  heatmap->xAxis->setRange(4.5, 12.5);
  heatmap->yAxis->setRange(10.5, 20.5);
  QCoreApplication::processEvents();
  settleLong(s.w);
  const QRect rect = heatmap->detailRect();
  ASSERT_FALSE(rect.isEmpty());
  EXPECT_LE(rect.left(), 5);
  EXPECT_GE(rect.right(), 12);
  EXPECT_LE(rect.top(), 11);
  EXPECT_GE(rect.bottom(), 20);
  const attn::Mat& ref = s.reference->layers[1].heads[1].weights;
  EXPECT_LT(worstDiff(heatmap->detail(), ref.block(rect.top(), rect.left(), rect.height(), rect.width())),
            1e-5f);
  float v = 0;
  ASSERT_TRUE(heatmap->cellValue(15, 7, &v));
  EXPECT_NEAR(v, ref(15, 7), 1e-5f);
  EXPECT_EQ(heatmap->poolStride(), 1);
  EXPECT_TRUE(heatmap->title().contains(QStringLiteral("full resolution"))) << heatmap->title().toStdString();
  // The hover text names the real tokens and the cell's weight.
  const QString hover = s.w.heatmapPanel()->hoverText(15, 7);
  EXPECT_TRUE(hover.contains(QStringLiteral("query 15, key 7"))) << hover.toStdString();
  EXPECT_TRUE(hover.contains(QString::number(ref(15, 7), 'g', 5))) << hover.toStdString();
  // Zoomed out again: the overview alone, pooled.
  heatmap->resetView();
  settleLong(s.w);
  EXPECT_TRUE(heatmap->detailRect().isEmpty());
  EXPECT_GT(heatmap->poolStride(), 1);
}

TEST_P(LongPromptView, HeadGridAndMetricsDockFollowTheStreamedRun) {
  StreamedWindow s;
  openStreamed(s, GetParam());
  if (HasFatalFailure()) return;
  const int layers = s.w.model()->numLayers(), heads = s.w.model()->result().numHeads();
  auto* grid = s.w.findChild<HeadGrid*>();
  ASSERT_NE(grid, nullptr);
  EXPECT_TRUE(grid->showsLayers());
  EXPECT_EQ(grid->tileCount(), layers * heads);
  while (grid->thumbnailsBusy()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  for (const QImage& t : grid->thumbnails()) EXPECT_FALSE(t.isNull());
  auto* metrics = s.w.findChild<MetricsPanel*>();
  ASSERT_NE(metrics, nullptr);
  metrics->waitForIdle();
  for (int l = 0; l < layers; ++l) {
    s.w.model()->setCurrentLayer(l);
    QCoreApplication::processEvents();
    metrics->waitForIdle();
    const attn::Analysis* shown = metrics->analysis();
    ASSERT_NE(shown, nullptr);
    const attn::Analysis ref = attn::analyzeResult(s.reference->layers[static_cast<size_t>(l)]);
    ASSERT_EQ(shown->heads.size(), ref.heads.size());
    for (size_t h = 0; h < ref.heads.size(); ++h) {
      EXPECT_NEAR(shown->heads[h].entropyMean, ref.heads[h].entropyMean, 1e-5)
          << "layer " << l << " head " << h;
      EXPECT_NEAR(grid->meanEntropies()[static_cast<int>(l * heads + h)], ref.heads[h].entropyMean, 1e-5);
      ASSERT_EQ(shown->heads[h].perRow.entropy.size(), ref.heads[h].perRow.entropy.size());
      EXPECT_LT((shown->heads[h].perRow.entropy - ref.heads[h].perRow.entropy).cwiseAbs().maxCoeff(), 1e-5);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LongPromptView, ::testing::Values("gpt2", "llama"));

}  // namespace
}  // namespace attn::ui
