// The head grid's tiles labelled by head type, offscreen, on the GPT-2
// fixture: the labels are core's modelHeadTypes for the opened model, drawn
// inside each tile where they fit, the tooltip text states the scores and the
// thresholds, and the strings have Chinese translations.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFontMetrics>
#include <algorithm>

#include "attn/models/experiments/head_types_run.h"
#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/head_grid.h"
#include "attn_ui/pretrained/experiments_actions.h"
#include "attn_ui/pretrained/head_types_controller.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/window/translations.h"

namespace attn::ui {
namespace {

QString headTypesUiFixture() { return QStringLiteral(ATTN_FIXTURE_DIR "/models/gpt2"); }

TEST(HeadTypesUi, TilesShowCoresLabelsForTheOpenedModel) {
  MainWindow w;
  w.resize(1366, 768);
  w.show();
  auto* xp = w.findChild<ExperimentsActions*>();
  ASSERT_NE(xp, nullptr);
  ASSERT_NE(xp->headTypes(), nullptr);
  w.model()->setCoalesceMs(0);
  ASSERT_TRUE(w.openFile(headTypesUiFixture()));
  w.modelOpener()->waitForIdle();
  w.model()->waitForIdle();
  xp->headTypes()->waitForIdle();
  QCoreApplication::processEvents();
  auto* grid = w.findChild<HeadGrid*>();
  ASSERT_NE(grid, nullptr);
  ASSERT_TRUE(grid->showsLayers());
  ASSERT_EQ(grid->tileCount(), 8);
  const auto result = xp->headTypes()->result();
  ASSERT_NE(result, nullptr);
  auto model = attn::models::Model::open(headTypesUiFixture().toStdString());
  ASSERT_TRUE(model.ok());
  auto expected = attn::models::modelHeadTypes(**model);
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  ASSERT_EQ(result->types, expected->types);
  for (int t = 0; t < 8; ++t) {
    EXPECT_EQ(grid->tileTypeLabel(t), headTypeShortText(expected->types[t / 4][t % 4])) << t;
    const QRect band = grid->tileTypeRect(t);
    if (band.isEmpty()) continue;  // a tile too small for it keeps the label in its tooltip
    EXPECT_TRUE(grid->tileRect(t).contains(band)) << t;
  }
  // Where a label is drawn it fits whole: the label itself or its abbreviation, never cut.
  const QFont small = [&] {
    QFont f = grid->font();
    f.setPointSizeF(std::max(6.0, f.pointSizeF() - 1.0));
    return f;
  }();
  const QFontMetrics fm(small);
  auto checkFits = [&](const QString& label, const QString& abbreviation) {
    int drawn = 0;
    for (int t = 0; t < 8; ++t) {
      const QRect band = grid->tileTypeRect(t);
      if (band.isEmpty()) continue;
      ++drawn;
      const QString text = grid->tileTypeText(t);
      EXPECT_TRUE(text == label || text == abbreviation) << text.toStdString();
      EXPECT_LE(fm.horizontalAdvance(text), band.width() - 4) << text.toStdString();
    }
    return drawn;
  };
  EXPECT_EQ(checkFits(grid->tileTypeLabel(0), grid->tileTypeLabel(0)),
            8);  // at 1366 x 768 every tile has one
  // The widest label, on tiles too narrow for it, falls back to its abbreviation.
  QVector<QVector<QString>> wide(2, QVector<QString>(4, headTypeShortText(attn::HeadType::PreviousToken)));
  QVector<QVector<QString>> abbreviated(
      2, QVector<QString>(4, headTypeAbbreviation(attn::HeadType::PreviousToken)));
  grid->setHeadTypes(wide, abbreviated, {});
  EXPECT_GT(checkFits(wide[0][0], abbreviated[0][0]), 0);
  // Closing the model (back to the explorer) takes the labels away.
  w.model()->setModel(nullptr);
  xp->headTypes()->waitForIdle();
  EXPECT_EQ(xp->headTypes()->result(), nullptr);
  EXPECT_TRUE(grid->tileTypeLabel(0).isEmpty());
}

TEST(HeadTypesUi, TheTooltipTextStatesEveryScoreAndThreshold) {
  attn::HeadTypeScores s;
  s.induction = 0.82f;
  s.previousToken = 0.05f;
  s.local = 0.31f;
  const QString text = headTypeDetailText(attn::classifyHead(s), s, {});
  EXPECT_TRUE(text.contains("Head type: induction")) << text.toStdString();
  EXPECT_TRUE(text.contains("induction: 0.82 (label at ≥ 0.4)")) << text.toStdString();
  EXPECT_TRUE(text.contains("local (±3 tokens): 0.31 (label at ≥ 0.6)")) << text.toStdString();
  EXPECT_EQ(text.count('\n'), 6);
}

TEST(HeadTypesUi, TheLabelsHaveChineseTranslations) {
  auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
  ASSERT_NE(app, nullptr);
  ASSERT_TRUE(installUiTranslators(*app, "zh_CN"));
  EXPECT_EQ(headTypeShortText(attn::HeadType::Induction), QString("归纳"));
  EXPECT_EQ(headTypeShortText(attn::HeadType::PreviousToken), QString("前一词元"));
  EXPECT_EQ(headTypeShortText(attn::HeadType::Broad), QString("广泛"));
  EXPECT_EQ(headTypeAbbreviation(attn::HeadType::PreviousToken), QString("前词"));
  ASSERT_TRUE(installUiTranslators(*app, "en"));
  EXPECT_EQ(headTypeShortText(attn::HeadType::Induction), QString("induction"));
}

}  // namespace
}  // namespace attn::ui
