#pragma once
// The "Vision attention" panel of a vision transformer (ViT, DeiT) run on an
// image: the chosen layer and head's attention of one query — [CLS] unless a
// patch was clicked — as a heat layer over the crop the model read, with an
// opacity slider; attention rollout through that layer (Abnar & Zuidema 2020);
// DINO's mask of the patches holding 60% of the head's mass (Caron et al.
// 2021); and the layers x heads grid of those overlays with the rollout in the
// last column. The maps come from core (attn/vision/maps/patch_maps.h) on a
// worker with Cancel; the query is the view-model's pinned row, so the heatmap
// and the other views follow a clicked patch.
#include <QImage>
#include <QWidget>
#include <memory>

#include "attn/vision/maps/patch_maps.h"

class QComboBox;
class QLabel;
class QSlider;
class QSplitter;
class QTimer;
class QToolButton;

namespace attn::models {
struct ModelRun;
}

namespace attn::ui {

class ExplorerModel;
class HiddenPanelGate;
class NewestJob;
class VisionHeadGrid;
class VisionOverlayView;

class VisionPanel : public QWidget {
  Q_OBJECT
 public:
  enum class Mode { Head, Rollout, Mask };

  explicit VisionPanel(ExplorerModel* model, QWidget* parent = nullptr);
  ~VisionPanel() override;

  void setMode(Mode mode);
  Mode mode() const { return mode_; }
  /// Opacity of the heat layer, 0..1.
  void setOpacity(double opacity);
  double opacity() const;
  /// The query token (0 = [CLS]) whose attention is drawn.
  int query() const;
  /// The grid of the shown run ([CLS] etc. + rows x cols patches); rows 0 without one.
  const attn::vision::PatchLayout& layout() const { return layout_; }
  /// The maps on screen (null before the first are computed, or after a failure).
  std::shared_ptr<const attn::vision::QueryMaps> maps() const { return maps_; }
  /// The crop the model read, as drawn under the maps.
  const QImage& image() const { return image_; }
  VisionOverlayView* view() const { return view_; }
  VisionHeadGrid* grid() const { return grid_; }
  /// Overlay above the grid (a tall frame) or beside it (a wide, short one).
  Qt::Orientation orientation() const;
  QToolButton* cancelButton() const { return cancel_; }
  const QString& status() const { return statusText_; }
  bool busy() const;
  void cancel();
  /// Blocks until the computation in flight has been delivered (tests).
  void waitForIdle();

 protected:
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void request();
  void launch();
  void redraw();
  void clear(const QString& why);
  void setStatus(const QString& text);
  void openTile(int layer, int head);
  void fitOrientation();

  ExplorerModel* model_;
  QComboBox* showBox_;
  QSlider* opacity_;
  QLabel* queryLabel_;
  QToolButton* clsButton_;
  QToolButton* cancel_;
  QLabel* status_;
  VisionOverlayView* view_;
  VisionHeadGrid* grid_;
  QSplitter* split_;
  QTimer* poll_;
  HiddenPanelGate* gate_;
  std::unique_ptr<NewestJob> job_;
  Mode mode_ = Mode::Head;
  attn::vision::PatchLayout layout_{1, 0, 0, 0};
  std::shared_ptr<const attn::models::ModelRun> run_;  // the run the maps are (being) computed of
  int mapsQuery_ = -1;                                 // and their query
  std::shared_ptr<const attn::vision::QueryMaps> maps_;
  QImage image_;
  QString statusText_;
};

}  // namespace attn::ui
