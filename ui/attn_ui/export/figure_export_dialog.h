#pragma once
// File > Export figure: which view, pixel size, DPI (A4 width at 300 DPI in
// one click), colormap, shared colour scale and the file; asks before
// replacing an existing file. The caller draws: the dialog only collects.
#include <QDialog>

#include "attn_ui/export/figure_export.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace attn::ui {

class FigureExportDialog : public QDialog {
  Q_OBJECT
 public:
  /// `views` are the names offered (index = what view() returns).
  FigureExportDialog(const QStringList& views, int currentView, QWidget* parent = nullptr);

  int view() const;
  QString path() const;
  FigureOptions options() const;
  void setPath(const QString& path);

  /// Asks whether to replace `path`; tests replace this to answer themselves.
  static std::function<bool(QWidget*, const QString&)> confirmOverwrite;

 public slots:
  void accept() override;

 private:
  QComboBox *view_, *colormap_;
  QSpinBox *width_, *height_, *dpi_;
  QCheckBox* shared_;
  QLineEdit* path_;
};

}  // namespace attn::ui
