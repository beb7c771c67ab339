// Figure export: PNG size/DPI/content, SVG that QSvgRenderer reads back with
// the tokens as text, PDF header and page size, head grid, atomic writes.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QSet>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <cmath>

#include "attn_ui/export/figure_export.h"

namespace attn::ui {
namespace {

const QStringList kTokens{"the", "猫", "sat", "你好"};

attn::Mat weights() {
  attn::Mat v(4, 4);
  v << 1, 0, 0, 0, 0.5, 0.5, 0, 0, 0.2, 0.3, 0.5, 0, 0.1, 0.2, 0.3, 0.4;
  return v;
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

int distinctColours(const QImage& img) {
  QSet<QRgb> colours;
  for (int y = 0; y < img.height(); y += 3)
    for (int x = 0; x < img.width(); x += 3) colours.insert(img.pixel(x, y));
  return static_cast<int>(colours.size());
}

TEST(FigureExport, Png300DpiAtA4WidthKeepsSizeAndRecordsDpi) {
  QTemporaryDir dir;
  FigureOptions o;
  o.dpi = 300;
  o.size = QSize(a4WidthPixels(300), 1860);
  EXPECT_EQ(o.size.width(), 2480);
  const QString path = dir.filePath("a4.png");
  ASSERT_TRUE(exportHeatmap(weights(), kTokens, kTokens, path, o).ok());
  QImage img(path);
  ASSERT_FALSE(img.isNull());
  EXPECT_EQ(img.size(), QSize(2480, 1860));
  EXPECT_NEAR(img.dotsPerMeterX() * 0.0254, 300.0, 0.5);
  EXPECT_GT(distinctColours(img), 20);
  // The cell for weight 1.0 (row 0, col 0) is drawn in viridis' top colour, yellow.
  // It lies in the left half, upper half of the plot: look for it there.
  bool yellow = false;
  for (int y = 0; y < img.height() / 2 && !yellow; y += 4)
    for (int x = 0; x < img.width() / 2 && !yellow; x += 4) {
      const QColor c = img.pixelColor(x, y);
      yellow = c.red() > 230 && c.green() > 210 && c.blue() < 60;
    }
  EXPECT_TRUE(yellow);
}

TEST(FigureExport, SvgReadsBackAndKeepsTokensAsText) {
  QTemporaryDir dir;
  FigureOptions o;
  o.size = QSize(640, 560);
  o.title = "Head 1";
  const QString path = dir.filePath("f.svg");
  ASSERT_TRUE(exportHeatmap(weights(), kTokens, kTokens, path, o).ok());
  const QByteArray svg = readAll(path);
  ASSERT_TRUE(svg.contains("<svg"));
  const QString text = QString::fromUtf8(svg);
  for (const QString& t : kTokens) EXPECT_TRUE(text.contains(">" + t + "<")) << t.toStdString();
  EXPECT_TRUE(text.contains(">Head 1<"));
  QSvgRenderer renderer(path);
  ASSERT_TRUE(renderer.isValid());
  EXPECT_EQ(renderer.viewBox().size(), QSize(640, 560));  // 96 DPI: logical = pixels
  QImage img(320, 280, QImage::Format_ARGB32);
  img.fill(Qt::white);
  QPainter p(&img);
  renderer.render(&p);
  p.end();
  EXPECT_GT(distinctColours(img), 10);
}

TEST(FigureExport, PdfHasHeaderAndPhysicalPageSize) {
  QTemporaryDir dir;
  FigureOptions o;
  o.size = QSize(1200, 900);
  o.dpi = 150;  // 8 x 6 inches = 576 x 432 points
  const QString path = dir.filePath("f.pdf");
  ASSERT_TRUE(exportHeatmap(weights(), kTokens, kTokens, path, o).ok());
  const QByteArray pdf = readAll(path);
  ASSERT_TRUE(pdf.startsWith("%PDF-"));
  const auto m = QRegularExpression(R"(/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\])").match(QString::fromLatin1(pdf));
  ASSERT_TRUE(m.hasMatch());
  EXPECT_NEAR(m.captured(1).toDouble(), 576.0, 1.0);
  EXPECT_NEAR(m.captured(2).toDouble(), 432.0, 1.0);
  EXPECT_TRUE(pdf.trimmed().endsWith("%%EOF"));
}

TEST(FigureExport, HeadGridSharedScaleChangesThePicture) {
  QTemporaryDir dir;
  std::vector<attn::Mat> heads{weights(), weights() * 0.25f, weights() * 0.5f};
  FigureOptions o;
  o.size = QSize(900, 800);
  const QString own = dir.filePath("own.png"), shared = dir.filePath("shared.png");
  ASSERT_TRUE(exportHeadGrid(heads, kTokens, kTokens, own, o).ok());
  o.sharedScale = true;
  ASSERT_TRUE(exportHeadGrid(heads, kTokens, kTokens, shared, o).ok());
  const QImage a(own), b(shared);
  ASSERT_EQ(a.size(), QSize(900, 800));
  EXPECT_GT(distinctColours(a), 20);
  EXPECT_NE(a, b);  // head 2 at 1/4 of head 1 looks darker on the shared scale
  const QString svg = dir.filePath("grid.svg");
  ASSERT_TRUE(exportHeadGrid(heads, kTokens, kTokens, svg, o).ok());
  EXPECT_TRUE(QSvgRenderer(svg).isValid());
  EXPECT_TRUE(QString::fromUtf8(readAll(svg)).contains(">Head 3<"));
}

TEST(FigureExport, FailuresNameTheFileAndLeaveOldFileAlone) {
  QTemporaryDir dir;
  const QString path = dir.filePath("old.png");
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("precious");
  }
  FigureOptions o;
  o.size = QSize(8, 8);
  auto st = exportHeatmap(weights(), kTokens, kTokens, path, o);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("old.png"), std::string::npos);
  EXPECT_EQ(readAll(path), QByteArray("precious"));
  o.size = QSize(400, 300);
  st = exportHeatmap(weights(), kTokens, kTokens, dir.filePath("f.gif"), o);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(".png, .svg or .pdf"), std::string::npos);
  st = exportHeatmap(weights(), kTokens, kTokens, dir.filePath("missing/dir/f.png"), o);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files), QStringList{"old.png"});  // no temporaries left
}

}  // namespace
}  // namespace attn::ui
