// The heatmap's tool row wraps: in a window as narrow as the central view of a
// 1366 x 768 screen every control (and what the window appends, such as the Maps
// selector) stays visible inside the panel, on two lines; in a wide one they share
// one line. And the flow layout itself on fixed-size items.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "attn_ui/common/flow_layout.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"

namespace attn::ui {
namespace {

struct ToolRowRig {
  QWidget window;
  ExplorerModel model;
  HeatmapPanel* panel;
  ToolRowRig() {
    panel = new HeatmapPanel(&model, &window);
    auto* extra = new QWidget;
    auto* row = new QHBoxLayout(extra);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(new QLabel("Maps ", extra));
    auto* box = new QComboBox(extra);
    box->addItem("Quantization effect (quantized - full precision)");
    row->addWidget(box);
    panel->addToolBarWidget(extra);
    auto* l = new QVBoxLayout(&window);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(panel);
    window.show();
  }
  /// The tool row's controls at window width `w`: their rectangles in the panel.
  std::vector<QRect> controlsAt(int w) {
    window.resize(w, 600);
    QApplication::processEvents();
    std::vector<QRect> out;
    for (QWidget* c : panel->toolRow()->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly))
      if (c->isVisible()) out.emplace_back(c->mapTo(panel, QPoint(0, 0)), c->size());
    return out;
  }
};

TEST(HeatmapToolRow, NarrowWrapsWithEveryControlInside) {
  ToolRowRig rig;
  const auto wide = rig.controlsAt(1800);
  ASSERT_EQ(wide.size(), 6u);  // head, show, masked cells, colours, reset, the appended Maps selector
  // One line: every control's vertical extent overlaps every other's (centred on the line's
  // tallest control, their centres may differ by a pixel of rounding).
  int lowestTop = wide.front().top(), highestBottom = wide.front().bottom();
  for (const QRect& r : wide) {
    lowestTop = std::max(lowestTop, r.top());
    highestBottom = std::min(highestBottom, r.bottom());
  }
  EXPECT_LE(lowestTop, highestBottom) << "one line when wide";
  const auto narrow = rig.controlsAt(520);
  ASSERT_EQ(narrow.size(), 6u);
  int lines = 1;
  for (size_t i = 0; i < narrow.size(); ++i) {
    const QRect& r = narrow[i];
    EXPECT_TRUE(QRect(0, 0, 520, rig.panel->height()).contains(r)) << "control " << i << " outside the panel";
    if (i > 0 && r.top() > narrow[i - 1].bottom()) ++lines;
    for (size_t j = 0; j < i; ++j) EXPECT_FALSE(r.intersects(narrow[j])) << "controls " << j << " and " << i;
  }
  EXPECT_GE(lines, 2);
  EXPECT_GT(rig.panel->toolRow()->height(), wide.front().height());
  // The heatmap sits below the row, not under it.
  EXPECT_GE(rig.panel->heatmap()->mapTo(rig.panel, QPoint(0, 0)).y(),
            rig.panel->toolRow()->geometry().bottom());
}

TEST(FlowLayout, PlacesFixedItemsLineByLine) {
  QWidget w;
  auto* flow = new FlowLayout(&w, 10, 4);
  std::vector<QWidget*> items;
  for (int i = 0; i < 5; ++i) {
    auto* c = new QWidget(&w);
    c->setFixedSize(100, i == 1 ? 30 : 20);
    flow->addWidget(c);
    items.push_back(c);
  }
  // 100 + 10 + 100 + 10 + 100 = 320 fits three a line; the next two wrap.
  EXPECT_EQ(flow->heightForWidth(330), 30 + 4 + 20);
  EXPECT_EQ(flow->heightForWidth(1000), 30);
  EXPECT_EQ(flow->heightForWidth(105), 20 + 30 + 20 + 20 + 20 + 4 * 4);
  flow->setGeometry(QRect(0, 0, 330, 54));
  EXPECT_EQ(items[0]->geometry(), QRect(0, 5, 100, 20));  // centred on the line's 30
  EXPECT_EQ(items[1]->geometry(), QRect(110, 0, 100, 30));
  EXPECT_EQ(items[2]->geometry(), QRect(220, 5, 100, 20));
  EXPECT_EQ(items[3]->geometry(), QRect(0, 34, 100, 20));
  EXPECT_EQ(items[4]->geometry(), QRect(110, 34, 100, 20));
  EXPECT_EQ(flow->sizeHint(), QSize(540, 30));
}

}  // namespace
}  // namespace attn::ui
