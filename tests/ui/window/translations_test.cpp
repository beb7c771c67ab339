// The UI language: the embedded zh_CN catalogue translates the teaching
// views (with the namespace-qualified contexts moc uses), and CJK text renders.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFontDatabase>
#include <QImage>
#include <QPainter>

#include "attn_ui/classroom/step_through_panel.h"
#include "attn_ui/window/translations.h"

namespace attn::ui {
namespace {

TEST(Translations, ChineseCatalogueTranslatesStepTitlesAndPlurals) {
  auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
  ASSERT_NE(app, nullptr);
  ASSERT_TRUE(installUiTranslators(*app, "zh_CN"));
  EXPECT_EQ(stepTitle(attn::StepKind::Softmax), QString("Softmax：分数变为权重"));
  EXPECT_EQ(StepThroughPanel::tr("%n key(s) hidden", "", 3), QString("3 个键被遮住"));
  ASSERT_TRUE(installUiTranslators(*app, "en"));
  EXPECT_EQ(stepTitle(attn::StepKind::Softmax), QString("Softmax: scores become weights"));
  EXPECT_EQ(StepThroughPanel::tr("%n key(s) hidden", "", 1), QString("1 key hidden"));
  EXPECT_EQ(StepThroughPanel::tr("%n key(s) hidden", "", 2), QString("2 keys hidden"));
  EXPECT_EQ(resolveUiLanguage("zh_CN"), "zh_CN");
  EXPECT_TRUE(uiLanguages().contains(resolveUiLanguage("klingon")));
}

QImage renderText(const QString& text) {
  QImage img(120, 60, QImage::Format_ARGB32);
  img.fill(Qt::white);
  QPainter p(&img);
  QFont f;
  f.setPointSize(20);
  p.setFont(f);
  p.setPen(Qt::black);
  p.drawText(img.rect(), Qt::AlignCenter, text);
  p.end();
  return img;
}

int darkPixels(const QImage& img) {
  int dark = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) dark += qGray(img.pixel(x, y)) < 128;
  return dark;
}

TEST(Translations, CjkTextRendersWithRealGlyphs) {
  // fonts-noto-cjk: Chinese labels must come out as glyphs. Without a CJK
  // font every character is the same missing-glyph box, so two different
  // characters would render identically.
  EXPECT_FALSE(QFontDatabase::families(QFontDatabase::SimplifiedChinese).isEmpty());
  const QImage zhu = renderText(QString("注")), yi = renderText(QString("意"));
  EXPECT_GT(darkPixels(zhu), 40);
  EXPECT_NE(zhu, yi);
  EXPECT_EQ(renderText(QString("\uE000")), renderText(QString("\uE001")));  // the box, for contrast
}

}  // namespace
}  // namespace attn::ui
