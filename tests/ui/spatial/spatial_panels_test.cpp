// The spatial panels (offscreen): the image panel feeds the
// explorer patches (window2d and sinusoidal2d take the grid from them) and
// draws/export the overlay; the graph panel runs GAT and draws a 2,000-node
// graph; the query-key geometry panel follows the explorer's head; Qt's image
// loader gives core the pixels a PNG holds.
// Set ATTN_UI_SHOTS=DIR to also write PNGs of the panels.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QSpinBox>
#include <QTemporaryDir>
#include <cmath>
#include <fstream>

#include "attn/attn.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/export/figure_export.h"
#include "attn_ui/spatial/graph_panel.h"
#include "attn_ui/spatial/image_loader.h"
#include "attn_ui/spatial/image_panel.h"
#include "attn_ui/spatial/qk_geometry_panel.h"

namespace attn::ui {
namespace {

void spatialShot(QWidget& w, const char* name) {
  const QByteArray dir = qgetenv("ATTN_UI_SHOTS");
  if (dir.isEmpty()) return;
  w.resize(700, 620);
  w.grab().save(QDir(QString::fromLocal8Bit(dir)).filePath(name));
}

TEST(SpatialPanels, ImageLoaderReadsPngPixels) {
  QTemporaryDir dir;
  QImage img(3, 2, QImage::Format_RGB888);
  img.fill(QColor(10, 20, 30));
  img.setPixelColor(2, 1, QColor(255, 0, 128));
  const QString path = dir.filePath("x.png");
  ASSERT_TRUE(img.save(path));
  auto px = loadImagePixels(path);
  ASSERT_TRUE(px.ok()) << px.error().message;
  EXPECT_EQ(px->width, 3);
  EXPECT_EQ(px->height, 2);
  EXPECT_EQ(px->channels, 3);
  EXPECT_FLOAT_EQ(px->at(0, 0, 1), 20.0f / 255.0f);
  EXPECT_FLOAT_EQ(px->at(1, 2, 2), 128.0f / 255.0f);
  auto missing = loadImagePixels(dir.filePath("none.png"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("none.png"), std::string::npos);
  std::ofstream(dir.filePath("junk.png").toStdString()) << "not a png";
  auto junk = loadImagePixels(dir.filePath("junk.png"));
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.error().message.find("junk.png"), std::string::npos);
}

TEST(SpatialPanels, ImagePanelRunsWindow2dOverTheExamplePatches) {
  ExplorerModel m;
  AttentionSpec spec;
  spec.heads = 2;
  spec.mask = *Mask::parse("window2d:1");
  spec.positional = PositionalEncoding::Sinusoidal2d;
  m.setSpec(spec);
  ImagePanel p(&m);
  p.openExample();
  m.waitForIdle();
  ASSERT_TRUE(m.hasResult()) << m.lastError().toStdString();
  ASSERT_TRUE(p.showsImage());
  ASSERT_EQ(p.grid()->count(), 64);  // 128 x 128 in patches of 16
  const Mat w = m.currentWeights();
  ASSERT_EQ(w.rows(), 64);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j)
      if (std::abs(i / 8 - j / 8) > 1 || std::abs(i % 8 - j % 8) > 1) {
        ASSERT_EQ(w(i, j), 0.0f) << i << "," << j;
      }
  m.setPinnedRow(27);
  EXPECT_EQ(p.view()->figure().query, 27);
  EXPECT_TRUE(p.view()->figure().valid());
  EXPECT_NE(p.summaryText().indexOf("r3c3"), -1) << p.summaryText().toStdString();
  // A different patch size re-cuts the image.
  ASSERT_TRUE(p.setPatchSize(32));
  m.waitForIdle();
  EXPECT_EQ(m.currentWeights().rows(), 16);
  EXPECT_EQ(p.patchBox()->value(), 32);  // the box follows a size set from code
  QTemporaryDir dir;
  FigureOptions fo;
  fo.size = QSize(400, 380);
  QString error;
  ASSERT_TRUE(p.exportFigure(0, dir.filePath("overlay.png"), fo, &error)) << error.toStdString();
  ASSERT_TRUE(p.exportFigure(1, dir.filePath("heat.svg"), fo, &error)) << error.toStdString();
  EXPECT_FALSE(QImage(dir.filePath("overlay.png")).isNull());
  spatialShot(p, "image_panel.png");
  // Typing text makes the panel stand aside.
  m.setText("the cat sat");
  EXPECT_FALSE(p.showsImage());
  EXPECT_FALSE(p.view()->figure().valid());
}

TEST(SpatialPanels, GraphPanelExampleAndTwoThousandNodes) {
  GraphPanel p;
  p.openExample();
  ASSERT_NE(p.result(), nullptr) << p.errorText().toStdString();
  EXPECT_EQ(p.result()->numHeads(), 4);
  p.setNode(3);
  p.setHead(1);
  EXPECT_EQ(p.view()->figure().node, 3);
  EXPECT_TRUE(p.view()->figure().valid());
  QTemporaryDir dir;
  FigureOptions fo;
  fo.size = QSize(700, 400);
  QString error;
  ASSERT_TRUE(p.exportFigure(dir.filePath("g.png"), fo, &error)) << error.toStdString();
  spatialShot(p, "graph_panel.png");
  // 2,000 nodes in a ring with chords: computed, laid out and drawn.
  std::string csv = "source,target\n";
  for (int i = 0; i < 2000; ++i) csv += std::to_string(i) + "," + std::to_string((i + 1) % 2000) + "\n";
  std::ofstream(dir.filePath("ring.csv").toStdString()) << csv;
  p.headsBox()->setValue(1);
  ASSERT_TRUE(p.openGraph(dir.filePath("ring.csv"))) << p.errorText().toStdString();
  ASSERT_EQ(p.graph()->numNodes, 2000);
  EXPECT_EQ(p.layout().rows(), 2000);
  const Mat& a = p.result()->weights[0];
  EXPECT_EQ(a(0, 2), 0.0f);
  EXPECT_GT(a(0, 1), 0.0f);
  EXPECT_GT(a(0, 1999), 0.0f);
  p.setNode(1500);
  p.view()->resize(600, 400);
  EXPECT_FALSE(p.view()->grab().isNull());
  EXPECT_FALSE(p.openGraph(dir.filePath("missing.csv")));
  EXPECT_NE(p.errorText().indexOf("missing.csv"), -1);
}

TEST(SpatialPanels, QkGeometryPanelFollowsTheHead) {
  ExplorerModel m;
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  m.setSpec(spec);
  m.setText("the cat sat on the mat");
  m.waitForIdle();
  QkGeometryPanel p(&m);
  ASSERT_TRUE(p.view()->figure().valid()) << p.message().toStdString();
  EXPECT_EQ(p.view()->figure().geometry.numQueries, 6);
  const Mat before = p.view()->figure().geometry.points;
  m.setCurrentHead(1);
  EXPECT_GT((p.view()->figure().geometry.points - before).cwiseAbs().maxCoeff(), 1e-4f);
  m.setPinnedRow(2);
  EXPECT_EQ(p.view()->figure().query, 2);
  QTemporaryDir dir;
  FigureOptions fo;
  QString error;
  ASSERT_TRUE(p.exportFigure(dir.filePath("qk.pdf"), fo, &error)) << error.toStdString();
  spatialShot(p, "qk_geometry_panel.png");
}

}  // namespace
}  // namespace attn::ui
