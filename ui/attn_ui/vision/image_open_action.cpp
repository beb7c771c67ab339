#include "attn_ui/vision/image_open_action.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QPushButton>
#include <QStatusBar>
#include <QTimer>

#include "attn/vision/image_pixels.h"
#include "attn_ui/common/remembered_dialog.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/spatial/example_image.h"
#include "attn_ui/spatial/image_loader.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {

ImageOpenAction::ImageOpenAction(MainWindow* window, QDockWidget* visionDock)
    : QObject(window), window_(window), dock_(visionDock), action_(new QAction(tr("Open &Image…"), this)) {
  action_->setObjectName(QStringLiteral("OpenImageAction"));
  action_->setToolTip(
      tr("Open a picture (PNG, JPEG, BMP, PPM, NumPy) for the vision model to look at; "
         "its image processor resizes, crops and normalises it."));
  action_->setStatusTip(action_->toolTip());
  action_->setEnabled(false);
  // After File > Open Model… and Recent Models.
  QMenu* file = window_->fileMenu();
  const QList<QAction*> actions = file->actions();
  const qsizetype at = actions.indexOf(window_->modelOpener()->recentMenu()->menuAction());
  file->insertAction(at >= 0 ? actions.value(at + 1) : nullptr, action_);
  connect(action_, &QAction::triggered, this, &ImageOpenAction::openDialog);
  connect(window_->inputPanel()->openImageButton(), &QPushButton::clicked, this,
          &ImageOpenAction::openDialog);
  connect(window_->model(), &ExplorerModel::modelChanged, this, &ImageOpenAction::modelChanged);
}

bool ImageOpenAction::open(const QString& path) {
  auto pixels = loadImagePixels(path);
  if (!pixels) {
    window_->model()->reportError(QString::fromStdString(pixels.error().message));
    return false;
  }
  window_->model()->setModelImage(
      std::make_shared<const attn::vision::ImagePixels>(std::move(pixels).value()), path);
  window_->statusBar()->showMessage(tr("Opened the image %1").arg(QFileInfo(path).fileName()), 6000);
  return true;
}

void ImageOpenAction::openDialog() {
  const QString path = openFileRemembered(
      window_, tr("Open Image"), "paths/lastImageFolder",
      tr("Images (*.png *.jpg *.jpeg *.bmp *.gif *.ppm *.pgm *.npy *.npz);;All files (*)"));
  if (!path.isEmpty()) open(path);
}

void ImageOpenAction::modelChanged() {
  ExplorerModel* model = window_->model();
  const bool vision = model->hasVisionModel();
  action_->setEnabled(vision);
  if (!vision) return;
  if (!model->modelImage())
    model->setModelImage(std::make_shared<const attn::vision::ImagePixels>(pixelsFromImage(exampleImage())),
                         tr("example image"));
  if (!dock_) return;
  dock_->show();
  // Once the tab bar holds it (the dock layout raises its own tab on a model change), and
  // with most of the right column's height: the overlay is this model's main view.
  QTimer::singleShot(0, dock_, [this] {
    dock_->raise();
    window_->resizeDocks({dock_}, {window_->height() * 3 / 5}, Qt::Vertical);
  });
}

}  // namespace attn::ui
