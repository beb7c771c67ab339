// The configuration panel's mask rows and positional selector, through the
// view-model to the heatmap: what is drawn is exactly what core computes for
// the same spec; bad parameters show core's message and keep the view; the
// overlay marks masked cells and fully masked rows.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

#include "attn/tokenizers/tokenizer.h"
#include "attn_ui/explorer/config_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/mask_selector.h"
#include "attn_ui/window/status_summary.h"

namespace attn::ui {
namespace {

const char* kMaskConfigText = "the cat sat on the mat today";  // 7 tokens

attn::AttentionResult direct(const attn::AttentionSpec& spec) {
  auto in = attn::inputFromTokens(attn::tokenizeWords(kMaskConfigText), spec.dModel, spec.seed);
  auto r = attn::runAttention(in, spec);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return std::move(r).value();
}

// A model with the panel and the heatmap on it, as the window wires them.
struct Rig {
  QWidget window;
  ExplorerModel model;
  ConfigPanel* config;
  HeatmapPanel* heatmap;
  StatusSummary* status;
  Rig() {
    config = new ConfigPanel(&model, &window);
    heatmap = new HeatmapPanel(&model, &window);
    status = new StatusSummary(&model, &window);
    auto* l = new QVBoxLayout(&window);
    l->addWidget(config);
    l->addWidget(heatmap, 1);
    l->addWidget(status);
    window.resize(700, 1100);
    model.setCoalesceMs(0);
    config->applyToModel();
    model.setText(kMaskConfigText);
    settle();
  }
  void settle() {
    model.waitForIdle();
    QCoreApplication::processEvents();
  }
  MaskSelector* masks() const { return config->maskSelector(); }
  // The spec the panel built, with an independently parsed mask in place of its own.
  attn::AttentionSpec expected(const std::string& maskSpec) const {
    attn::AttentionSpec s = model.spec();
    s.mask = attn::Mask::parse(maskSpec).value();
    return s;
  }
  void expectShowsCore(const std::string& maskSpec) {
    ASSERT_EQ(model.spec().mask.spec(), maskSpec);
    const auto ref = direct(expected(maskSpec));
    ASSERT_TRUE(model.hasResult());
    EXPECT_EQ(model.currentWeights(), ref.heads[0].weights) << maskSpec;
    EXPECT_EQ(heatmap->heatmap()->matrix(), ref.heads[0].weights) << maskSpec;
    EXPECT_EQ(model.result().heads[3].weights, ref.heads[3].weights) << maskSpec;
  }
};

TEST(MaskConfig, EveryFamilyRowIsListedWithTooltips) {
  Rig rig;
  const QStringList names = rig.masks()->familyNames();
  EXPECT_EQ(names, (QStringList{"causal", "padding", "window", "dilated", "global", "block", "random", "custom",
                              "window2d"}));
  for (const QString& n : names) {
    EXPECT_FALSE(rig.masks()->familyCheck(n)->toolTip().isEmpty()) << n.toStdString();
    for (int i = 0; QWidget* w = rig.masks()->paramWidget(n, i); ++i)
      EXPECT_FALSE(w->toolTip().isEmpty()) << n.toStdString() << i;
  }
  EXPECT_NE(rig.masks()->paramWidget("dilated", 1), nullptr);  // W and D
  EXPECT_EQ(rig.masks()->paramWidget("dilated", 2), nullptr);
  EXPECT_FALSE(rig.masks()->advancedEdit()->toolTip().isEmpty());
  EXPECT_EQ(rig.masks()->specText(), "none");
}

TEST(MaskConfig, SelectingFamiliesAndParametersShowsWhatCoreComputes) {
  Rig rig;
  rig.expectShowsCore("none");
  const attn::Mat unmasked = rig.model.currentWeights();

  rig.masks()->familyCheck("window")->setChecked(true);  // default W = 4
  rig.settle();
  rig.expectShowsCore("window:4");
  EXPECT_EQ(rig.model.currentWeights()(0, 5), 0.0f);
  EXPECT_GT(rig.model.currentWeights()(0, 4), 0.0f);

  qobject_cast<QSpinBox*>(rig.masks()->paramWidget("window", 0))->setValue(1);
  rig.settle();
  rig.expectShowsCore("window:1");

  rig.masks()->familyCheck("causal")->setChecked(true);  // composes: a look-back window
  rig.settle();
  rig.expectShowsCore("causal+window:1");
  EXPECT_EQ(rig.masks()->advancedEdit()->text(), "causal+window:1");

  rig.masks()->setParam("global", 0, "0,5");  // touching a parameter checks its family
  rig.settle();
  EXPECT_TRUE(rig.masks()->familyCheck("global")->isChecked());
  rig.expectShowsCore("causal+window:1+global:0,5");

  for (const char* f : {"causal", "window", "global"}) rig.masks()->familyCheck(f)->setChecked(false);
  rig.masks()->familyCheck("dilated")->setChecked(true);
  rig.settle();
  rig.expectShowsCore("dilated:4,2");
  rig.masks()->familyCheck("dilated")->setChecked(false);
  rig.masks()->familyCheck("block")->setChecked(true);
  rig.masks()->setParam("block", 0, "3");
  rig.settle();
  rig.expectShowsCore("block:3");
  rig.masks()->familyCheck("block")->setChecked(false);
  rig.masks()->setParam("random", 0, "0.5");
  rig.masks()->setParam("random", 1, "11");
  rig.settle();
  rig.expectShowsCore("random:0.5,11");
  rig.masks()->familyCheck("random")->setChecked(false);
  rig.masks()->setParam("padding", 0, "5");
  rig.settle();
  rig.expectShowsCore("padding:5");
  rig.masks()->familyCheck("padding")->setChecked(false);
  rig.settle();
  rig.expectShowsCore("none");
  EXPECT_EQ(rig.model.currentWeights(), unmasked);
}

TEST(MaskConfig, AdvancedSpecAndSetSpecKeepTheRowsInSync) {
  Rig rig;
  QLineEdit* adv = rig.masks()->advancedEdit();
  adv->setText("block:2 + causal");
  adv->setModified(true);
  emit adv->editingFinished();
  rig.settle();
  EXPECT_TRUE(rig.masks()->familyCheck("block")->isChecked());
  EXPECT_TRUE(rig.masks()->familyCheck("causal")->isChecked());
  EXPECT_FALSE(rig.masks()->familyCheck("window")->isChecked());
  EXPECT_EQ(qobject_cast<QSpinBox*>(rig.masks()->paramWidget("block", 0))->value(), 2);
  EXPECT_EQ(adv->text(), "block:2+causal");  // canonical
  rig.expectShowsCore("block:2+causal");

  attn::AttentionSpec s = rig.model.spec();
  s.mask = attn::Mask::parse("dilated:3,2+global:0,5+random:0.25,9+padding").value();
  rig.config->setSpec(s);
  rig.settle();
  for (const char* f : {"dilated", "global", "random", "padding"})
    EXPECT_TRUE(rig.masks()->familyCheck(f)->isChecked()) << f;
  EXPECT_FALSE(rig.masks()->familyCheck("block")->isChecked());
  EXPECT_EQ(qobject_cast<QSpinBox*>(rig.masks()->paramWidget("dilated", 0))->value(), 3);
  EXPECT_EQ(qobject_cast<QSpinBox*>(rig.masks()->paramWidget("dilated", 1))->value(), 2);
  EXPECT_EQ(qobject_cast<QLineEdit*>(rig.masks()->paramWidget("global", 0))->text(), "0,5");
  EXPECT_EQ(qobject_cast<QLineEdit*>(rig.masks()->paramWidget("random", 0))->text(), "0.25");
  EXPECT_EQ(qobject_cast<QLineEdit*>(rig.masks()->paramWidget("padding", 0))->text(), "");
  rig.expectShowsCore("dilated:3,2+global:0,5+random:0.25,9+padding");
}

TEST(MaskConfig, BadParametersShowCoreMessageAndKeepTheView) {
  Rig rig;
  rig.masks()->familyCheck("causal")->setChecked(true);
  rig.settle();
  const attn::Mat before = rig.heatmap->heatmap()->matrix();
  const std::string specBefore = rig.model.spec().mask.spec();

  // window 0: core's parser refuses it; the panel says so and changes nothing.
  qobject_cast<QSpinBox*>(rig.masks()->paramWidget("window", 0))->setValue(0);
  rig.settle();
  EXPECT_FALSE(rig.config->problemLabel()->isHidden());
  EXPECT_TRUE(rig.config->problemLabel()->text().contains("window must be at least 1 (got 0)"))
      << rig.config->problemLabel()->text().toStdString();
  EXPECT_TRUE(rig.config->problemLabel()->text().contains("previous view is kept"));
  EXPECT_EQ(rig.model.spec().mask.spec(), specBefore);
  EXPECT_EQ(rig.heatmap->heatmap()->matrix(), before);

  // A global index past the 7 tokens: the engine refuses it; the banner says so.
  qobject_cast<QSpinBox*>(rig.masks()->paramWidget("window", 0))->setValue(2);
  rig.masks()->familyCheck("window")->setChecked(false);
  rig.masks()->setParam("global", 0, "99");
  rig.settle();
  EXPECT_TRUE(rig.config->problemLabel()->isHidden());
  EXPECT_TRUE(rig.model.lastError().contains("global index 99 is past the sequence")) << rig.model.lastError().toStdString();
  EXPECT_FALSE(rig.heatmap->errorBanner()->isHidden());
  EXPECT_TRUE(rig.heatmap->errorBanner()->text().contains("global index 99"));
  EXPECT_EQ(rig.heatmap->heatmap()->matrix(), before);

  // Free text that is not a mask at all.
  rig.masks()->advancedEdit()->setText("sideways");
  rig.masks()->advancedEdit()->setModified(true);
  emit rig.masks()->advancedEdit()->editingFinished();
  rig.settle();
  EXPECT_TRUE(rig.config->problemLabel()->text().contains("unknown mask 'sideways'"));
  EXPECT_EQ(rig.heatmap->heatmap()->matrix(), before);
}

TEST(MaskConfig, EveryPositionalEncodingIsSelectableAndFollowsCore) {
  Rig rig;
  QComboBox* pos = rig.config->positionalSelector();
  ASSERT_EQ(pos->count(), static_cast<int>(attn::positionalEncodings().size()));
  const attn::Mat none = rig.model.currentWeights();
  for (const attn::PositionalInfo& p : attn::positionalEncodings()) {
    const int i = pos->findData(QString::fromStdString(p.name));
    ASSERT_GE(i, 0) << p.name;
    EXPECT_FALSE(pos->itemData(i, Qt::ToolTipRole).toString().isEmpty()) << p.name;
    pos->setCurrentIndex(i);
    rig.settle();
    EXPECT_EQ(rig.model.spec().positional, p.kind);
    attn::AttentionSpec s = rig.expected("none");
    s.positional = p.kind;
    const auto ref = direct(s);
    EXPECT_EQ(rig.heatmap->heatmap()->matrix(), ref.heads[0].weights) << p.name;
    EXPECT_EQ(rig.model.result().heads[2].weights, ref.heads[2].weights) << p.name;
    if (p.kind != attn::PositionalEncoding::None) {
      EXPECT_NE(rig.model.currentWeights(), none) << p.name << " left the weights as they were";
    }
  }
}

QRgb pixelAt(HeatmapWidget* w, int row, int col) {
  w->replot();
  const QImage img = w->grab().toImage();
  const int x = static_cast<int>(w->xAxis->coordToPixel(col)), y = static_cast<int>(w->yAxis->coordToPixel(row));
  return img.pixel(static_cast<int>(x * img.devicePixelRatio()), static_cast<int>(y * img.devicePixelRatio()));
}

TEST(MaskConfig, OverlayMarksMaskedCellsAndFullyMaskedRows) {
  Rig rig;
  rig.window.show();
  // block:2 keeps 2x2 blocks on the diagonal; padding:1 then keeps key 0 only:
  // rows 0 and 1 keep (i, 0), rows 2..6 have every key masked.
  rig.masks()->setParam("block", 0, "2");
  rig.masks()->setParam("padding", 0, "1");
  rig.settle();
  rig.expectShowsCore("padding:1+block:2");
  HeatmapWidget* hm = rig.heatmap->heatmap();
  EXPECT_TRUE(hm->maskOverlayShown());
  const auto& full = rig.model.currentHeadResult()->fullyMaskedRows;
  EXPECT_EQ(full, (std::vector<int>{2, 3, 4, 5, 6}));
  EXPECT_TRUE(rig.status->text().contains("5 query row(s) have every key masked")) << rig.status->text().toStdString();
  EXPECT_TRUE(rig.heatmap->hoverText(3, 0).contains("every key of this query is masked"));
  EXPECT_FALSE(rig.heatmap->hoverText(1, 0).contains("every key"));

  // The overlay changes masked cells only: (0, 1) is masked (weight 0), (0, 0) kept.
  const QRgb maskedOn = pixelAt(hm, 0, 1), keptOn = pixelAt(hm, 0, 0);
  rig.heatmap->maskOverlayAction()->setChecked(false);
  EXPECT_FALSE(hm->maskOverlayShown());
  const QRgb maskedOff = pixelAt(hm, 0, 1), keptOff = pixelAt(hm, 0, 0);
  EXPECT_NE(maskedOn, maskedOff);
  EXPECT_EQ(keptOn, keptOff);
  rig.heatmap->maskOverlayAction()->setChecked(true);
  EXPECT_TRUE(hm->maskOverlayShown());

  // The mask view draws the bound mask itself (1 = keep), not an overlay.
  rig.heatmap->setQuantityKey("mask");
  EXPECT_FALSE(hm->maskOverlayShown());
  const attn::Mat m = hm->matrix();
  EXPECT_EQ(m(0, 0), 1.0f);
  EXPECT_EQ(m(1, 0), 1.0f);
  EXPECT_EQ(m(1, 1), 0.0f);  // in the block, but past padding:1
  EXPECT_EQ(m(3, 2), 0.0f);
}

TEST(MaskConfig, PaddingFromPadTokensIsDrawnAsBound) {
  Rig rig;
  rig.model.setText("hello world [PAD] [PAD]");
  rig.masks()->familyCheck("padding")->setChecked(true);  // LEN empty: read the pad tokens
  rig.settle();
  ASSERT_EQ(rig.model.spec().mask.spec(), "padding");
  ASSERT_TRUE(rig.model.hasResult()) << rig.model.lastError().toStdString();
  ASSERT_EQ(rig.model.result().nk(), 4) << "the words tokenizer must keep [PAD] whole";
  rig.heatmap->setQuantityKey("mask");
  const attn::Mat m = rig.heatmap->heatmap()->matrix();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(m(i, 1), 1.0f);
    EXPECT_EQ(m(i, 2), 0.0f);  // a pad key
    EXPECT_EQ(rig.model.currentWeights()(i, 3), 0.0f);
  }
}

TEST(MaskConfig, CustomMaskBitmapFromASpecSurvivesThePanel) {
  Rig rig;
  std::vector<uint8_t> keep(49, 0);
  for (int i = 0; i < 7; ++i) keep[static_cast<size_t>(i * 7 + (6 - i))] = 1;  // the anti-diagonal
  attn::AttentionSpec s = rig.model.spec();
  s.mask = attn::Mask::custom(keep, 7, 7);
  rig.config->setSpec(s);  // as a session with a custom bitmap does
  rig.settle();
  EXPECT_TRUE(rig.masks()->familyCheck("custom")->isChecked());
  ASSERT_TRUE(rig.model.hasResult()) << rig.model.lastError().toStdString();
  s.mask = attn::Mask::custom(keep, 7, 7);
  EXPECT_EQ(rig.model.currentWeights(), direct(s).heads[0].weights);
  EXPECT_EQ(rig.model.currentWeights()(0, 6), 1.0f);
  // Composing keeps the bitmap: causal leaves the anti-diagonal's lower half.
  rig.masks()->familyCheck("causal")->setChecked(true);
  rig.settle();
  s.mask = attn::Mask::parse("causal+custom").value().withCustom(keep, 7, 7);
  EXPECT_EQ(rig.model.currentWeights(), direct(s).heads[0].weights);
  EXPECT_EQ(rig.model.currentHeadResult()->fullyMaskedRows, (std::vector<int>{0, 1, 2}));
}

}  // namespace
}  // namespace attn::ui
