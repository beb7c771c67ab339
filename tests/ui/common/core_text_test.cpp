// Labels that come from core (mask families, positional encodings, per-head
// measures, units) are registered for translation and shown in Chinese when
// the zh_CN catalogue is installed.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>

#include "attn/analysis/measure_table.h"
#include "attn/engine.h"
#include "attn/io/input_file.h"
#include "attn/engine/memory_budget.h"
#include "attn/masks/mask.h"
#include "attn/engine/positions.h"
#include "attn_ui/common/core_text.h"
#include "attn_ui/explorer/mask_selector.h"
#include "attn_ui/window/translations.h"

namespace attn::ui {
namespace {

std::vector<std::string> everyCoreLabel() {
  std::vector<std::string> labels;
  for (const auto& f : maskFamilies()) {
    labels.push_back(f.title);
    labels.push_back(f.description);
    for (const auto& p : f.params) labels.push_back(p.description);
  }
  for (const auto& p : positionalEncodings()) {
    labels.push_back(p.title);
    labels.push_back(p.description);
    if (!p.appliedTo.empty()) labels.push_back(p.appliedTo);
  }
  for (const auto& m : headMeasures()) {
    labels.emplace_back(m.label);
    if (!m.unit.empty()) labels.emplace_back(m.unit);
  }
  labels.emplace_back(unitName(EntropyUnit::Bits));
  labels.emplace_back(unitName(EntropyUnit::Nats));
  return labels;
}

class CoreText : public ::testing::Test {
 protected:
  void TearDown() override {
    auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
    installUiTranslators(*app, "en");
  }
};

TEST_F(CoreText, EveryCoreLabelIsRegisteredForTranslation) {
  const auto labels = everyCoreLabel();
  EXPECT_GT(labels.size(), 50u);
  for (const auto& l : labels) EXPECT_TRUE(coreTextRegistered(l)) << "not in core_text.cpp: " << l;
  EXPECT_FALSE(coreTextRegistered("a label nobody wrote"));
}

TEST_F(CoreText, ChineseCatalogueTranslatesEveryCoreLabel) {
  auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
  ASSERT_TRUE(installUiTranslators(*app, "zh_CN"));
  for (const auto& l : everyCoreLabel()) {
    if (l == "ALiBi" || l == "logits") continue;  // a name and a term kept as they are in Chinese
    EXPECT_NE(coreText(l), QString::fromStdString(l)) << "untranslated: " << l;
  }
  EXPECT_EQ(coreText("Sliding window"), QString("滑动窗口"));
  ASSERT_TRUE(installUiTranslators(*app, "en"));
  EXPECT_EQ(coreText("Sliding window"), QString("Sliding window"));
  EXPECT_EQ(coreText("a label nobody wrote"), QString("a label nobody wrote"));
}

TEST_F(CoreText, MaskSelectorShowsFamilyTitlesInChinese) {
  auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
  ASSERT_TRUE(installUiTranslators(*app, "zh_CN"));
  MaskSelector selector;
  auto* window = selector.findChild<QCheckBox*>("mask_window");
  auto* causal = selector.findChild<QCheckBox*>("mask_causal");
  ASSERT_NE(window, nullptr);
  ASSERT_NE(causal, nullptr);
  EXPECT_EQ(window->text(), QString("滑动窗口"));
  EXPECT_NE(causal->text(), QString("Causal (look-ahead)"));
  EXPECT_TRUE(window->toolTip().endsWith(QChar(0x3002))) << window->toolTip().toStdString();
}

TEST(UiMessage, CoreErrorsNameTheWindowsControlsNotCommandLineOptions) {
  // Real messages from core: a file whose width 10 heads do not divide, and
  // a request over a 1 MB memory budget.
  AttentionInput in;
  in.x = Mat::Zero(4, 64);
  AttentionSpec spec;
  spec.heads = 10;
  const auto fit = fitSpecToInput(in, spec);
  ASSERT_FALSE(fit);
  const QString heads = uiMessage(fit.error().message);
  EXPECT_FALSE(heads.contains("--")) << heads.toStdString();
  EXPECT_TRUE(heads.contains("Configuration > Heads")) << heads.toStdString();
  EXPECT_TRUE(heads.contains("Configuration > d_k")) << heads.toStdString();
  EXPECT_TRUE(heads.startsWith("'x' has width 64, which 10 heads")) << heads.toStdString();

  spec.heads = 12;
  spec.memoryBudget = 1 << 20;
  const auto mem = checkAttentionMemory(spec, ExecPath::Naive, 12, 2048, 2048);
  ASSERT_FALSE(mem);
  const QString budget = uiMessage(mem.error().message);
  EXPECT_FALSE(budget.contains("--")) << budget.toStdString();
  EXPECT_TRUE(budget.endsWith("use fewer tokens or heads")) << budget.toStdString();
  EXPECT_TRUE(budget.contains("budget of 1.0 MiB;")) << budget.toStdString();
}

}  // namespace
}  // namespace attn::ui
