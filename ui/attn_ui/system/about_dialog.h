#pragma once
// Help > About: the version and what a bug report needs (kernel level, threads,
// backends, Qt and Eigen versions), with a button that copies them as text.
#include <QDialog>
#include <QString>

namespace attn::ui {

class AboutDialog : public QDialog {
  Q_OBJECT
 public:
  explicit AboutDialog(QWidget* parent = nullptr);
  /// The English text copied for a bug report (attnscope-cli info --system's lines plus Qt).
  static QString reportText();
};

}  // namespace attn::ui
