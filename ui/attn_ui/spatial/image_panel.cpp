#include "attn_ui/spatial/image_panel.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/export/figure_export.h"
#include "attn_ui/export/figure_export_dialog.h"
#include "attn_ui/spatial/example_image.h"
#include "attn_ui/spatial/image_loader.h"
#include <qcustomplot.h>

namespace attn::ui {

ImagePanel::ImagePanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      open_(new QPushButton(tr("Open Image…"), this)),
      example_(new QPushButton(tr("Example"), this)),
      export_(new QPushButton(tr("Export Figure…"), this)),
      patch_(new QSpinBox(this)),
      source_(new QLabel(this)),
      view_(new ImageAttentionView(this)),
      summary_(new QLabel(this)) {
  setObjectName("ImagePanel");
  open_->setToolTip(tr("Open a PNG, JPEG, PPM/PGM or NumPy (.npy/.npz) image: attention then runs over its patches."));
  example_->setToolTip(tr("Use the bundled 128 x 128 example image (8 x 8 patches of 16 pixels)."));
  export_->setToolTip(tr("Save the overlay or the patch x patch heatmap as PNG, SVG or PDF."));
  patch_->setRange(2, 256);
  patch_->setValue(16);
  patch_->setSuffix(tr(" px"));
  patch_->setToolTip(tr("Patch side P: the image is cut into P x P squares, one token each (pixels past the last "
                        "whole patch are dropped). Use mask window2d:R for local 2-D windows and positions "
                        "sinusoidal2d for 2-D positions."));
  view_->setToolTip(tr("Attention of the outlined query patch over the image: brighter = more weight; darkened "
                       "patches are masked. Click a patch to make it the query."));
  source_->setWordWrap(true);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(open_);
  buttons->addWidget(example_);
  buttons->addWidget(new QLabel(tr("Patch"), this));
  buttons->addWidget(patch_);
  buttons->addStretch(1);
  buttons->addWidget(export_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buttons);
  layout->addWidget(source_);
  layout->addWidget(view_, 1);
  layout->addWidget(summary_);

  connect(open_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open image"), QString(),
        tr("Images (*.png *.jpg *.jpeg *.bmp *.gif *.ppm *.pgm *.npy *.npz);;All files (*)"));
    if (!path.isEmpty()) openImage(path);
  });
  connect(example_, &QPushButton::clicked, this, &ImagePanel::openExample);
  connect(patch_, &QSpinBox::editingFinished, this, [this] { setPatchSize(patch_->value()); });
  connect(export_, &QPushButton::clicked, this, &ImagePanel::showExportDialog);
  connect(view_, &ImageAttentionView::patchClicked, model_, &ExplorerModel::setPinnedRow);
  connect(model_, &ExplorerModel::resultChanged, this, &ImagePanel::refresh);
  connect(model_, &ExplorerModel::inputChanged, this, &ImagePanel::refresh);
  connect(model_, &ExplorerModel::currentHeadChanged, this, &ImagePanel::refresh);
  connect(model_, &ExplorerModel::pinnedRowChanged, this, &ImagePanel::refresh);
  refresh();
}

bool ImagePanel::openImage(const QString& path) {
  auto pixels = loadImagePixels(path);
  if (!pixels) {
    model_->reportError(QString::fromStdString(pixels.error().message));
    return false;
  }
  return useImage(std::move(pixels).value(), path);
}

void ImagePanel::openExample() { useImage(pixelsFromImage(exampleImage()), tr("example image")); }

bool ImagePanel::useImage(attn::vision::ImagePixels pixels, const QString& source) {
  pixels_ = std::make_shared<const attn::vision::ImagePixels>(std::move(pixels));
  image_ = imageFromPixels(*pixels_);
  sourceName_ = source;
  grid_.reset();  // a new image is always re-cut, even from the same path
  return setPatchSize(patch_->value());
}

bool ImagePanel::setPatchSize(int patch) {
  if (!pixels_) return false;
  if (grid_ && grid_->patch == patch && showsImage()) return true;
  auto grid = attn::vision::cutPatches(*pixels_, patch, sourceName_.toStdString());
  if (!grid) {
    model_->reportError(QString::fromStdString(grid.error().message));
    if (grid_) {
      const QSignalBlocker block(patch_);  // the box shows the patch size in use
      patch_->setValue(grid_->patch);
    }
    return false;
  }
  grid_ = std::make_shared<const attn::vision::PatchGrid>(std::move(grid).value());
  {
    const QSignalBlocker block(patch_);
    patch_->setValue(patch);
  }
  model_->setPinnedRow(-1);
  model_->setLoadedInput(std::make_shared<const attn::AttentionInput>(attn::vision::patchInput(*grid_)), sourceName_);
  refresh();
  return true;
}

bool ImagePanel::showsImage() const {
  if (!grid_ || !model_->hasLoadedInput() || model_->loadedSource() != sourceName_) return false;
  const attn::AttentionInput* in = model_->loadedInput();
  return in && in->gridCols == grid_->cols && in->queryTokens == grid_->tokens;
}

QString ImagePanel::summaryText() const { return summary_->text(); }

void ImagePanel::refresh() {
  const bool ours = showsImage();
  export_->setEnabled(ours && model_->hasResult());
  if (!ours) {
    source_->setText(tr("Open an image (or the example) to attend over its patches."));
    view_->setFigure({});
    summary_->clear();
    return;
  }
  source_->setText(tr("%1: %2 x %3 pixels, %4 x %5 patches of %6 px (%7 values each)")
                       .arg(QFileInfo(sourceName_).fileName(), QString::number(pixels_->width),
                            QString::number(pixels_->height), QString::number(grid_->cols),
                            QString::number(grid_->rows), QString::number(grid_->patch),
                            QString::number(grid_->pixels.cols())));
  ImageAttentionFigure f;
  f.image = image_;
  f.patch = grid_->patch;
  f.rows = grid_->rows;
  f.cols = grid_->cols;
  if (model_->hasResult() && !model_->isMetricsOnly()) f.weights = model_->currentWeights();
  f.query = std::max(model_->pinnedRow(), 0);
  const bool valid = f.weights.rows() == grid_->count() && f.weights.cols() == grid_->count();
  if (valid) {
    const int q = f.query;
    Eigen::Index best = 0;
    const float top = f.weights.row(q).maxCoeff(&best);
    summary_->setText(tr("Query patch %1, head %2: most weight on %3 (%4); mask %5.")
                          .arg(QString::fromStdString(grid_->tokens[static_cast<size_t>(q)]))
                          .arg(model_->currentHead() + 1)
                          .arg(QString::fromStdString(grid_->tokens[static_cast<size_t>(best)]))
                          .arg(top, 0, 'f', 3)
                          .arg(QString::fromStdString(model_->resultSpec().mask.spec())));
  } else {
    summary_->setText(model_->lastError());
    f.weights.resize(0, 0);
  }
  view_->setFigure(f);
}

bool ImagePanel::exportFigure(int view, const QString& path, const FigureOptions& options, QString* error) {
  attn::Status st = attn::okStatus();
  if (!showsImage() || !model_->hasResult() || !view_->figure().valid()) {
    if (error) *error = tr("Nothing to export yet.");
    return false;
  }
  if (view == 0) {
    ImageAttentionFigure f = view_->figure();
    f.colormap = options.colormap;
    f.title = options.title.isEmpty() ? summary_->text() : options.title;
    st = writeFigure(path, options, [&f](QCPPainter& p, const QRect& r) { paintImageAttention(p, r, f); });
  } else {
    st = exportHeatmap(model_->currentWeights(), model_->queryLabels(), model_->keyLabels(), path, options);
  }
  if (!st && error) *error = QString::fromStdString(st.error().message);
  return st.ok();
}

void ImagePanel::showExportDialog() {
  FigureExportDialog dialog({tr("Image attention overlay"), tr("Patch x patch heatmap")}, 0, this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  if (!exportFigure(dialog.view(), dialog.path(), dialog.options(), &error))
    QMessageBox::warning(this, tr("Export figure"), error);
}

}  // namespace attn::ui
