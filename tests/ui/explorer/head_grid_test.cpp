// Head grid: one tile per head, mean entropy from core, click and keys select heads.
#include <gtest/gtest.h>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QApplication>

#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/head_grid.h"

namespace attn::ui {
namespace {

TEST(HeadGrid, ShowsEveryHeadWithItsMeanEntropyAndSelectsOnClickAndKeys) {
  ExplorerModel m;
  attn::AttentionSpec spec;
  spec.heads = 6;
  spec.dModel = 24;
  spec.mask = attn::Mask::causal();
  m.setSpec(spec);
  m.setText("one two three four five six seven");
  HeadGrid grid(&m);
  grid.resize(300, 300);
  grid.show();
  m.waitForIdle();
  QCoreApplication::processEvents();
  ASSERT_EQ(grid.meanEntropies().size(), 6);
  for (int h = 0; h < 6; ++h)  // independent: mean of core's per-row entropies
    EXPECT_NEAR(grid.meanEntropies()[h], m.result().heads[h].entropy.mean(), 1e-6);
  EXPECT_EQ(grid.columns(), 3);

  const QPoint centre = grid.tileRect(4).center();
  EXPECT_EQ(grid.headAt(centre), 4);
  QMouseEvent press(QEvent::MouseButtonPress, centre, grid.mapToGlobal(centre), Qt::LeftButton,
                    Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&grid, &press);
  EXPECT_EQ(m.currentHead(), 4);

  QKeyEvent left(QEvent::KeyPress, Qt::Key_Left, Qt::NoModifier);
  QApplication::sendEvent(&grid, &left);
  EXPECT_EQ(m.currentHead(), 3);
  QKeyEvent up(QEvent::KeyPress, Qt::Key_Up, Qt::NoModifier);
  QApplication::sendEvent(&grid, &up);
  EXPECT_EQ(m.currentHead(), 0);
  QApplication::sendEvent(&grid, &up);  // stays inside the grid
  EXPECT_EQ(m.currentHead(), 0);
  QKeyEvent end(QEvent::KeyPress, Qt::Key_End, Qt::NoModifier);
  QApplication::sendEvent(&grid, &end);
  EXPECT_EQ(m.currentHead(), 5);

  QImage shot(grid.size(), QImage::Format_RGB32);
  grid.render(&shot);
  QSet<QRgb> colours;
  for (int y = 0; y < shot.height(); y += 3)
    for (int x = 0; x < shot.width(); x += 3) colours.insert(shot.pixel(x, y));
  EXPECT_GT(colours.size(), 20);  // thumbnails, not a blank widget
}

}  // namespace
}  // namespace attn::ui
