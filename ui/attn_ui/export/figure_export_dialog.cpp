#include "attn_ui/export/figure_export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>

#include "attn_ui/theme/colormaps.h"

namespace attn::ui {

std::function<bool(QWidget*, const QString&)> FigureExportDialog::confirmOverwrite =
    [](QWidget* parent, const QString& path) {
      return QMessageBox::question(parent, FigureExportDialog::tr("Replace file?"),
                                   FigureExportDialog::tr("%1 already exists. Replace it?").arg(path),
                                   QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
    };

FigureExportDialog::FigureExportDialog(const QStringList& views, int currentView, QWidget* parent)
    : QDialog(parent),
      view_(new QComboBox(this)),
      colormap_(new QComboBox(this)),
      width_(new QSpinBox(this)),
      height_(new QSpinBox(this)),
      dpi_(new QSpinBox(this)),
      shared_(new QCheckBox(tr("One colour scale for all heads"), this)),
      path_(new QLineEdit(this)) {
  setWindowTitle(tr("Export figure"));
  view_->addItems(views);
  view_->setCurrentIndex(currentView);
  colormap_->addItems(colormapNames());
  for (auto* s : {width_, height_}) {
    s->setRange(16, 20000);
    s->setSuffix(tr(" px"));
  }
  width_->setValue(1600);
  height_->setValue(1200);
  dpi_->setRange(10, 2400);
  dpi_->setValue(300);
  auto* a4 = new QPushButton(tr("A4 width"), this);
  a4->setToolTip(tr("Width of an A4 page (210 mm) at the chosen DPI, 4:3"));
  connect(a4, &QPushButton::clicked, this, [this] {
    width_->setValue(a4WidthPixels(dpi_->value()));
    height_->setValue(width_->value() * 3 / 4);
  });
  auto* size = new QHBoxLayout;
  size->addWidget(width_);
  size->addWidget(height_);
  size->addWidget(a4);
  auto* browse = new QPushButton(tr("Browse…"), this);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getSaveFileName(this, tr("Export figure"), path_->text(),
                                                   tr("Figures (*.png *.svg *.pdf)"), nullptr,
                                                   QFileDialog::DontConfirmOverwrite);  // accept() asks
    if (!p.isEmpty()) path_->setText(p);
  });
  auto* file = new QHBoxLayout;
  file->addWidget(path_, 1);
  file->addWidget(browse);
  path_->setPlaceholderText(tr("figure.png, figure.svg or figure.pdf"));

  auto* form = new QFormLayout(this);
  form->addRow(tr("View"), view_);
  form->addRow(tr("Size"), size);
  form->addRow(tr("DPI"), dpi_);
  form->addRow(tr("Colormap"), colormap_);
  form->addRow(QString(), shared_);
  form->addRow(tr("File"), file);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &FigureExportDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);
}

int FigureExportDialog::view() const { return view_->currentIndex(); }
QString FigureExportDialog::path() const { return path_->text().trimmed(); }
void FigureExportDialog::setPath(const QString& path) { path_->setText(path); }

FigureOptions FigureExportDialog::options() const {
  FigureOptions o;
  o.size = QSize(width_->value(), height_->value());
  o.dpi = dpi_->value();
  o.colormap = colormap_->currentText();
  o.sharedScale = shared_->isChecked();
  return o;
}

void FigureExportDialog::accept() {
  if (path().isEmpty()) return;
  if (!figureFormatFor(path())) {
    QMessageBox::warning(this, tr("Export figure"), tr("Use a .png, .svg or .pdf file name."));
    return;
  }
  if (QFileInfo::exists(path()) && !confirmOverwrite(this, path())) return;
  QDialog::accept();
}

}  // namespace attn::ui
