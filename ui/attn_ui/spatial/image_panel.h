#pragma once
// The "Image attention" panel: opens an image (PNG/JPEG through Qt,
// or .ppm/.pgm/.npy/.npz) or the bundled example, cuts it into P x P patches
// (core: attn::vision::cutPatches) and makes the patches the explorer's input,
// so every mechanism, mask (window2d:R) and position (sinusoidal2d) of the
// configuration applies; the main heatmap is then patch x patch. The panel
// draws the pinned query patch's attention over the image; clicking a patch
// pins it. Export Figure writes the overlay or the heatmap.
#include <QWidget>
#include <memory>

#include "attn/vision/image_patches.h"
#include "attn_ui/spatial/image_attention_view.h"

class QLabel;
class QPushButton;
class QSpinBox;

namespace attn::ui {

class ExplorerModel;
struct FigureOptions;

class ImagePanel : public QWidget {
  Q_OBJECT
 public:
  explicit ImagePanel(ExplorerModel* model, QWidget* parent = nullptr);

  /// Loads an image file; false (and the model's error) when it cannot be read.
  bool openImage(const QString& path);
  /// Loads the bundled example image.
  void openExample();
  /// Cuts the current image with `patch` and sends it to the model.
  bool setPatchSize(int patch);

  /// True when the explorer's input is this panel's image.
  bool showsImage() const;
  const attn::vision::PatchGrid* grid() const { return grid_.get(); }
  ImageAttentionView* view() const { return view_; }
  QSpinBox* patchBox() const { return patch_; }
  QString summaryText() const;
  /// Writes the overlay (view 0) or the patch x patch heatmap (view 1).
  bool exportFigure(int view, const QString& path, const FigureOptions& options, QString* error);

 public slots:
  void refresh();

 private:
  bool useImage(attn::vision::ImagePixels pixels, const QString& source);
  void showExportDialog();

  ExplorerModel* model_;
  QPushButton *open_, *example_, *export_;
  QSpinBox* patch_;
  QLabel* source_;
  ImageAttentionView* view_;
  QLabel* summary_;
  std::shared_ptr<const attn::vision::ImagePixels> pixels_;
  std::shared_ptr<const attn::vision::PatchGrid> grid_;
  QImage image_;
  QString sourceName_;
};

}  // namespace attn::ui
