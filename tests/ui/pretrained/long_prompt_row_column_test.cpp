// The Row and column dock at any N, offscreen: with the map budget forced low the
// fixture's text runs streamed, and the clicked query row, key column and the row's
// top keys (with their text) recomputed from the kept q/k equal the same head's map
// from a materialized run of the same encoding; with the budget back, the
// materialized run's own row and column show the same.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDockWidget>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <algorithm>
#include <functional>

#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/explorer/row_column_panel.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/pretrained/prediction_panel.h"
#include "attn_ui/window/file_open_controller.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

void settleRowColumn(MainWindow& w, RowColumnPanel* panel) {
  w.modelOpener()->waitForIdle();
  w.fileOpener()->waitForIdle();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  w.heatmap()->waitForSource();
  if (panel) panel->waitForIdle();
}

// The panel's row, column and top keys against the reference map's, within tol.
void expectRowColumnOf(const RowColumnPanel& panel, const attn::Mat& ref, int row, int col, float tol,
                       const QStringList& labels) {
  const auto& r = panel.rowWeights();
  const auto& c = panel.columnWeights();
  ASSERT_EQ(static_cast<Eigen::Index>(r.size()), ref.cols());
  ASSERT_EQ(static_cast<Eigen::Index>(c.size()), ref.rows());
  for (Eigen::Index j = 0; j < ref.cols(); ++j)
    EXPECT_NEAR(r[static_cast<size_t>(j)], ref(row, j), tol) << "key " << j;
  for (Eigen::Index i = 0; i < ref.rows(); ++i)
    EXPECT_NEAR(c[static_cast<size_t>(i)], ref(i, col), tol) << "query " << i;
  // The top keys hold the row's largest weights, largest first (ties within tol may swap).
  std::vector<float> sorted;
  for (Eigen::Index j = 0; j < ref.cols(); ++j) sorted.push_back(ref(row, j));
  std::sort(sorted.begin(), sorted.end(), std::greater<float>());
  const auto& top = panel.topKeys();
  ASSERT_EQ(top.size(), std::min<size_t>(10, sorted.size()));
  for (size_t k = 0; k < top.size(); ++k) {
    EXPECT_NEAR(ref(row, top[k]), sorted[k], tol) << "rank " << k;
    const auto* token = panel.topTable()->item(static_cast<int>(k), 1);
    ASSERT_NE(token, nullptr);
    EXPECT_EQ(token->text(), labels[top[k]]);
    EXPECT_EQ(panel.topTable()->item(static_cast<int>(k), 0)->text(), QString::number(top[k]));
  }
}

class LongPromptRowColumn : public ::testing::TestWithParam<const char*> {};

TEST_P(LongPromptRowColumn, StreamedRowColumnAndTopKeysEqualTheMaterializedMap) {
  MainWindow w;
  auto* panel = w.findChild<RowColumnPanel*>();
  ASSERT_NE(panel, nullptr);
  w.model()->setMapBudgetBytes(1);  // every run streams
  w.model()->setStreamedQkPrecision(attn::models::QkPrecision::F32);
  settleRowColumn(w, panel);
  ASSERT_TRUE(w.openFile(QStringLiteral(ATTN_FIXTURE_DIR "/models/") + QString::fromLatin1(GetParam())));
  settleRowColumn(w, panel);
  ASSERT_TRUE(w.model()->hasModel()) << w.model()->lastError().toStdString();
  w.inputPanel()->queryEdit()->setPlainText(
      QStringLiteral("It is a truth universally acknowledged, that a single man in possession"));
  settleRowColumn(w, panel);
  ASSERT_TRUE(w.model()->isStreamed()) << w.model()->lastError().toStdString();
  attn::models::RunOptions options;
  options.keepQkv = false;
  auto reference = w.model()->modelPtr()->run(w.model()->modelRun()->encoding, options);
  ASSERT_TRUE(reference.ok()) << reference.error().message;
  const int n = w.model()->modelRun()->encoding.size();
  const int layers = w.model()->numLayers(), heads = w.model()->result().numHeads();

  // A click on a cell pins its row, shows its column and brings the dock forward.
  emit w.heatmap()->cellClicked(n - 2, 3);
  settleRowColumn(w, panel);
  EXPECT_EQ(panel->queryRow(), n - 2);
  EXPECT_EQ(panel->keyColumn(), 3);
  for (auto [l, h] : {std::pair{0, 0}, std::pair{layers - 1, heads - 1}, std::pair{layers / 2, heads / 2}}) {
    SCOPED_TRACE(testing::Message() << "layer " << l << " head " << h);
    w.model()->setCurrentLayerHead(l, h);
    settleRowColumn(w, panel);
    expectRowColumnOf(*panel, reference->layers[static_cast<size_t>(l)].heads[static_cast<size_t>(h)].weights,
                      n - 2, 3, 1e-5f, w.model()->keyLabels());
    EXPECT_TRUE(panel->headerText().contains(QStringLiteral("Layer %1, head %2").arg(l + 1).arg(h + 1)))
        << panel->headerText().toStdString();
  }
  // Another row and column: the newest request is what shows.
  w.model()->setPinnedRow(5);
  panel->setKeyColumn(0);
  panel->setKeyColumn(1);
  settleRowColumn(w, panel);
  const attn::Mat& last =
      reference->layers[static_cast<size_t>(layers / 2)].heads[static_cast<size_t>(heads / 2)].weights;
  expectRowColumnOf(*panel, last, 5, 1, 1e-5f, w.model()->keyLabels());

  // The streamed run predicted after its last token only; the pinned row's prediction comes
  // from the run's final state on demand and equals the materialized run's.
  const auto& streamedRun = *w.model()->modelRun();
  ASSERT_EQ(streamedRun.nextTokens.size(), static_cast<size_t>(n));
  EXPECT_TRUE(streamedRun.nextTokens[5].empty());
  EXPECT_FALSE(streamedRun.nextTokens.back().empty());
  auto* prediction = w.findChild<PredictionPanel*>();
  ASSERT_NE(prediction, nullptr);
  EXPECT_EQ(prediction->position(), 5);
  const auto& shown = prediction->entries();
  const auto& want = reference->nextTokens[5];
  ASSERT_EQ(shown.size(), want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    EXPECT_NEAR(shown[r].prob, want[r].prob, 1e-4) << "rank " << r;
    const bool apart = (r + 1 < want.size() && want[r].prob - want[r + 1].prob > 1e-3) &&
                       (r == 0 || want[r - 1].prob - want[r].prob > 1e-3);
    if (apart) {
      EXPECT_EQ(shown[r].id, want[r].id) << "rank " << r;
    }
  }

  // Materialized again: the run's own maps, read in place.
  w.model()->setMapBudgetBytes(ExplorerModel::kDefaultMapBudgetBytes);
  w.model()->recompute();
  settleRowColumn(w, panel);
  ASSERT_FALSE(w.model()->isStreamed());
  w.model()->setCurrentLayerHead(layers / 2, heads / 2);
  settleRowColumn(w, panel);
  expectRowColumnOf(*panel, last, 5, 1, 1e-6f, w.model()->keyLabels());
}

TEST(LongPromptRowColumnPanel, SaysWhatToDoBeforeAClick) {
  MainWindow w;
  auto* panel = w.findChild<RowColumnPanel*>();
  ASSERT_NE(panel, nullptr);
  settleRowColumn(w, panel);
  ASSERT_TRUE(w.model()->hasResult());
  w.model()->setPinnedRow(-1);
  panel->setKeyColumn(-1);
  EXPECT_TRUE(panel->rowWeights().empty());
  EXPECT_TRUE(panel->topKeys().empty());
  EXPECT_TRUE(panel->headerText().contains(QStringLiteral("Click a heatmap cell")));
  // The start-up example's materialized head: row 1 over the keys, column 0 over the queries.
  w.model()->setPinnedRow(1);
  panel->setKeyColumn(0);
  const attn::Mat weights = w.model()->currentWeights();
  ASSERT_GT(weights.rows(), 1);
  ASSERT_EQ(panel->rowWeights().size(), static_cast<size_t>(weights.cols()));
  for (Eigen::Index j = 0; j < weights.cols(); ++j)
    EXPECT_EQ(panel->rowWeights()[static_cast<size_t>(j)], weights(1, j));
  for (Eigen::Index i = 0; i < weights.rows(); ++i)
    EXPECT_EQ(panel->columnWeights()[static_cast<size_t>(i)], weights(i, 0));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LongPromptRowColumn, ::testing::Values("gpt2", "llama"));

}  // namespace
}  // namespace attn::ui
