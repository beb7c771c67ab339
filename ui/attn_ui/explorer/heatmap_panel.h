#pragma once
// The central view: a tool row (head, what to draw, colormap, reset) over the
// heatmap, an error banner, hover read-out and row pinning through the model.
#include <QList>
#include <QWidget>

#include "attn/engine.h"

class QAction;
class QComboBox;
class QLabel;
class QSpinBox;

namespace attn::ui {

class ExplorerModel;
class HeatmapWidget;

enum class HeatmapQuantity { Weights, ScaledLogits, RawLogits, Mask };

/// The matrix a quantity draws for one head: weights as computed; logits with
/// NaN where `mask` hides the cell (drawn in the masked colour); the mask as
/// 1 = keep, 0 = masked. Empty when the execution path did not keep it (the
/// tiled path keeps no logits; metrics-only keeps no weights).
/// scaled / logitScale where the path kept no raw logits (tiled, sparse).
attn::Mat rawLogitsOf(const attn::HeadResult& head, float logitScale);
/// `logitScale` (attn::logitScale of the result's spec) derives raw logits
/// from scaled ones on paths that keep only the latter.
attn::Mat heatmapValues(const attn::HeadResult& head, HeatmapQuantity q, const attn::Mask& mask,
                        float logitScale = 1.0f);

class HeatmapPanel : public QWidget {
  Q_OBJECT
 public:
  explicit HeatmapPanel(ExplorerModel* model, QWidget* parent = nullptr);

  HeatmapWidget* heatmap() const { return heatmap_; }
  QSpinBox* headSelector() const { return head_; }
  QComboBox* quantitySelector() const { return quantity_; }
  QComboBox* colormapSelector() const { return colormap_; }
  /// Appends `w` to the panel's tool row (which wraps in a narrow window); the row takes ownership.
  void addToolBarWidget(QWidget* w);
  /// The tool row: head, what to draw, masked cells, colours, reset and what was appended.
  QWidget* toolRow() const { return bar_; }
  QLabel* errorBanner() const { return banner_; }
  /// Zoom, reset and head navigation, for the View menu.
  QList<QAction*> viewActions() const { return actions_; }
  HeatmapQuantity quantity() const;
  /// Quantity as saved in sessions: weights, scaled_logits, raw_logits, mask.
  QString quantityKey() const;
  void setQuantityKey(const QString& key);
  /// Text shown when hovering cell (row, col) of the current head.
  QString hoverText(int row, int col) const;
  /// Toggles the masked-cell overlay (also in the View menu).
  QAction* maskOverlayAction() const { return maskOverlay_; }
  /// The mask the shown result was computed with (pad tokens bound).
  const attn::Mask& shownMask() const;
  /// The model's maps are signed (attention x gradient scaled to [-1, 1], the quantization
  /// effect): the weights are drawn on the diverging colormap over [-range, range] and named
  /// `what` (empty: off); a non-empty `note` is shown over the map with the head's max |value|.
  void setSignedMaps(const QString& what, double range = 1.0, const QString& note = QString());
  bool signedMaps() const { return !signedWhat_.isEmpty(); }
  /// The model's maps are not its weights but other rows that sum to 1 (attention norms, ALTI):
  /// the title and the colour scale name them `what` (empty: the weights).
  void setMapsName(const QString& what);
  const QString& mapsName() const { return mapsWhat_; }

 signals:
  void colormapChanged(const QString& name);

 public slots:
  void setColormapName(const QString& name);

 private:
  void redraw();
  void redrawStreamed();
  QString streamedHoverText(int row, int col) const;
  QWidget* bar_ = nullptr;  // the tool row (FlowLayout)
  void showError(const QString& message);
  void showNotice(const QString& message);

  ExplorerModel* model_;
  HeatmapWidget* heatmap_;
  QSpinBox* head_;
  QComboBox* quantity_;
  QComboBox* colormap_;
  QLabel* banner_;
  // An error stays until a new result is asked for (input, spec or model changed,
  // metrics-only accepted): a result asked for before it (the start-up example,
  // while `attnscope DIR` fails to open DIR) must not clear it.
  bool bannerSticky_ = false;
  QAction* maskOverlay_ = nullptr;
  QList<QAction*> actions_;
  QString signedWhat_;
  double signedRange_ = 1.0;
  QString signedNote_;
  QString mapsWhat_;
};

}  // namespace attn::ui
