#include "attn_ui/generation/token_chips.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace attn::ui {
namespace {

constexpr int kChipPadX = 4, kChipGap = 3, kLineGap = 4, kChipMargin = 2;

QColor writtenFill(const QPalette& p) {
  // An orange tint that reads on light and dark palettes alike.
  QColor c(0xe6, 0x7e, 0x22);
  c.setAlpha(p.color(QPalette::Base).lightness() > 128 ? 70 : 110);
  return c;
}

}  // namespace

TokenChips::TokenChips(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  setMouseTracking(false);
  setFocusPolicy(Qt::NoFocus);
}

void TokenChips::setTokens(const QStringList& labels, int promptLength) {
  labels_ = labels;
  promptLength_ = std::clamp(promptLength, 0, static_cast<int>(labels_.size()));
  if (selected_ >= labels_.size()) selected_ = -1;
  rects_ = layoutFor(width());
  updateGeometry();
  update();
}

void TokenChips::setSelected(int position) {
  selected_ = position >= 0 && position < labels_.size() ? position : -1;
  update();
}

QRect TokenChips::chipRect(int position) const {
  return position >= 0 && position < static_cast<int>(rects_.size()) ? rects_[static_cast<size_t>(position)]
                                                                     : QRect();
}

std::vector<QRect> TokenChips::layoutFor(int width) const {
  std::vector<QRect> out;
  const QFontMetrics fm(font());
  const int h = fm.height() + 4;
  int x = kChipMargin, y = kChipMargin;
  for (const QString& label : labels_) {
    const int w = fm.horizontalAdvance(label) + 2 * kChipPadX;
    if (x > kChipMargin && x + w > width - kChipMargin) {
      x = kChipMargin;
      y += h + kLineGap;
    }
    out.emplace_back(x, y, w, h);
    x += w + kChipGap;
  }
  return out;
}

int TokenChips::heightForWidth(int width) const {
  const auto r = layoutFor(width);
  const int line = QFontMetrics(font()).height() + 4;
  return (r.empty() ? line : r.back().bottom() + 1) + kChipMargin;
}

QSize TokenChips::sizeHint() const { return {400, heightForWidth(std::max(width(), 400))}; }
QSize TokenChips::minimumSizeHint() const {
  return {100, QFontMetrics(font()).height() + 4 + 2 * kChipMargin};
}

void TokenChips::resizeEvent(QResizeEvent* e) {
  rects_ = layoutFor(width());
  QWidget::resizeEvent(e);
}

int TokenChips::chipAt(const QPoint& p) const {
  for (size_t i = 0; i < rects_.size(); ++i)
    if (rects_[i].contains(p)) return static_cast<int>(i);
  return -1;
}

void TokenChips::mousePressEvent(QMouseEvent* e) {
  const int i = chipAt(e->position().toPoint());
  if (i >= promptLength_ && e->button() == Qt::LeftButton) {
    setSelected(i);
    emit tokenClicked(i);
  }
  QWidget::mousePressEvent(e);
}

bool TokenChips::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int i = chipAt(help->pos());
    if (i < 0) {
      QToolTip::hideText();
      e->ignore();
      return true;
    }
    QToolTip::showText(
        help->globalPos(),
        i < promptLength_
            ? tr("Prompt token %1").arg(i)
            : tr("Written token %1 (step %2): click to see its attention").arg(i).arg(i - promptLength_ + 1),
        this, chipRect(i));
    return true;
  }
  return QWidget::event(e);
}

void TokenChips::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette pal = palette();
  const QColor promptFill = pal.color(QPalette::AlternateBase);
  const QColor written = writtenFill(pal);
  for (size_t i = 0; i < rects_.size() && i < static_cast<size_t>(labels_.size()); ++i) {
    const QRect r = rects_[i];
    const bool isWritten = static_cast<int>(i) >= promptLength_;
    p.setPen(Qt::NoPen);
    p.setBrush(isWritten ? written : promptFill);
    p.drawRoundedRect(r, 3, 3);
    if (static_cast<int>(i) == selected_) {
      p.setPen(QPen(pal.color(QPalette::Highlight), 2));
      p.setBrush(Qt::NoBrush);
      p.drawRoundedRect(r.adjusted(1, 1, -1, -1), 3, 3);
    }
    p.setPen(pal.color(isWritten ? QPalette::Text : QPalette::PlaceholderText));
    p.drawText(r, Qt::AlignCenter, labels_[static_cast<qsizetype>(i)]);
  }
}

}  // namespace attn::ui
