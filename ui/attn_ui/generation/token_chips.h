#pragma once
// A generated sequence as token chips that wrap like text: the prompt's tokens plain, the
// written tokens tinted, the chosen one outlined. A click on a written token chooses it.
#include <QStringList>
#include <QWidget>
#include <vector>

namespace attn::ui {

class TokenChips : public QWidget {
  Q_OBJECT
 public:
  explicit TokenChips(QWidget* parent = nullptr);

  /// `labels`: every token as a reader sees it; the first `promptLength` are the prompt's.
  void setTokens(const QStringList& labels, int promptLength);
  void setSelected(int position);  // -1: none
  int selected() const { return selected_; }
  int count() const { return static_cast<int>(labels_.size()); }
  /// Where chip `position` is drawn (empty when there is none); for tests and tool tips.
  QRect chipRect(int position) const;

  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 signals:
  /// A written (not prompt) token was clicked.
  void tokenClicked(int position);

 protected:
  void paintEvent(QPaintEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  bool event(QEvent* e) override;

 private:
  std::vector<QRect> layoutFor(int width) const;
  int chipAt(const QPoint& p) const;

  QStringList labels_;
  int promptLength_ = 0;
  int selected_ = -1;
  std::vector<QRect> rects_;  // for the current width
};

}  // namespace attn::ui
