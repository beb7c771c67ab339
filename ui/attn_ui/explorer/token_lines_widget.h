#pragma once
// Token lines, after BertViz's head view (Vig 2019): query tokens on the left,
// key tokens on the right, a line from query i to key j whose opacity is the
// weight a_ij; several heads are drawn together, one colour per head. Hovering
// a token keeps only its lines (a query's outgoing or a key's incoming).
#include <QList>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "attn/tensor.h"
#include "attn_ui/theme/presentation_theme.h"

namespace attn::ui {

class TokenLinesWidget : public QWidget {
  Q_OBJECT
 public:
  enum class Side { None, Query, Key };

  explicit TokenLinesWidget(QWidget* parent = nullptr);

  /// `heads` are the weight matrices to draw, `headNumbers` their 0-based ids
  /// (for colours and the legend).
  void setData(const QStringList& queryTokens, const QStringList& keyTokens, const std::vector<attn::Mat>& heads,
               const QList<int>& headNumbers);
  /// Isolates a token as hovering does (Side::None shows everything).
  void setFocusToken(Side side, int index);
  Side focusSide() const { return focusSide_; }
  int focusIndex() const { return focusIndex_; }
  void setTheme(const TeachingTheme& theme);
  /// Lines with a weight below this are not drawn (clutter).
  void setMinWeight(double w) { minWeight_ = w; update(); }

  struct Line {
    int head, query, key;
    double weight;
  };
  /// The lines the current focus shows (what paintLines draws).
  std::vector<Line> visibleLines() const;
  /// The token under `pos` in a widget of this size.
  std::pair<Side, int> tokenAt(const QPoint& pos) const;

  void paintLines(QPainter& painter, const QRect& target) const;
  QSize sizeHint() const override { return {420, 520}; }

 signals:
  void focusTokenChanged(int side, int index);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  struct Geometry {
    QRectF left, right;  // token columns
    double rowH = 0;
    double top = 0;
  };
  Geometry geometry(const QRect& target) const;

  QStringList queries_, keys_;
  std::vector<attn::Mat> heads_;
  QList<int> headNumbers_;
  Side focusSide_ = Side::None;
  int focusIndex_ = -1;
  double minWeight_ = 0.01;
  TeachingTheme theme_;
};

}  // namespace attn::ui
