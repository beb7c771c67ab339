#pragma once
// A layout that places its items left to right and starts a new line where the next
// one would pass the right edge (its height then follows its width). Tool rows use it
// so that every control stays reachable in a narrow window: a QToolBar hides what does
// not fit behind an extension button, whose menu does not show composite widgets.
#include <QLayout>
#include <QList>

namespace attn::ui {

class FlowLayout : public QLayout {
 public:
  explicit FlowLayout(QWidget* parent = nullptr, int hSpacing = 6, int vSpacing = 2);
  ~FlowLayout() override;

  void addItem(QLayoutItem* item) override;
  int count() const override { return static_cast<int>(items_.size()); }
  QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;
  Qt::Orientations expandingDirections() const override { return {}; }
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;

 private:
  /// Lays the items out in `rect` (or only measures, `apply` false); returns the height used.
  int arrange(const QRect& rect, bool apply) const;

  QList<QLayoutItem*> items_;
  int hSpacing_, vSpacing_;
};

}  // namespace attn::ui
