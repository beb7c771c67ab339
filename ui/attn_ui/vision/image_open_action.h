#pragma once
// File > Open Image… for a vision transformer: the file is decoded by Qt's
// image reader (attn_ui/spatial/image_loader.h; .ppm/.pgm/.npy/.npz by core)
// and handed to the view-model as pixels, which the model's own image processor
// prepares in core. A vision model opened without an image runs on the bundled
// example picture until one is opened; the Vision attention dock is then shown.
#include <QObject>
#include <QString>

class QAction;
class QDockWidget;

namespace attn::ui {

class MainWindow;

class ImageOpenAction : public QObject {
  Q_OBJECT
 public:
  ImageOpenAction(MainWindow* window, QDockWidget* visionDock);

  /// Loads `path` as the vision model's image; false (and the error banner) when it cannot be read.
  bool open(const QString& path);
  QAction* action() const { return action_; }

 private:
  void openDialog();
  void modelChanged();

  MainWindow* window_;
  QDockWidget* dock_;
  QAction* action_;
};

}  // namespace attn::ui
