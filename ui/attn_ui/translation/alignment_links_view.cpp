#include "attn_ui/translation/alignment_links_view.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace attn::ui {
namespace {
constexpr int kMargin = 8;
}

AlignmentLinksView::AlignmentLinksView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("AlignmentLinksView"));
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void AlignmentLinksView::setAlignment(attn::Mat cross, const QStringList& source, const QStringList& target,
                                      std::vector<attn::alignment::Link> argmax) {
  cross_ = std::move(cross);
  source_ = source, target_ = target;
  argmax_ = std::move(argmax);
  update();
}

void AlignmentLinksView::setReference(std::vector<attn::alignment::Link> sure,
                                      std::vector<attn::alignment::Link> possible) {
  sure_ = std::move(sure), possible_ = std::move(possible);
  update();
}

void AlignmentLinksView::clear() {
  cross_ = attn::Mat();
  source_.clear(), target_.clear();
  argmax_.clear(), sure_.clear(), possible_.clear();
  update();
}

void AlignmentLinksView::setThreshold(double t) {
  threshold_ = std::clamp(t, 0.0, 1.0);
  update();
}

double AlignmentLinksView::tokenX(bool sourceRow, int i) const {
  const int n = sourceRow ? sourceCount() : targetCount();
  if (n <= 0) return 0.0;
  const double slot = (width() - 2.0 * kMargin) / n;
  return kMargin + slot * (i + 0.5);
}

void AlignmentLinksView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setRenderHint(QPainter::Antialiasing);
  if (source_.isEmpty() || target_.isEmpty()) {
    p.setPen(palette().placeholderText().color());
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, tr("Translate a sentence to see its alignment."));
    return;
  }
  const QFontMetrics fm(font());
  const int textH = fm.height();
  const double yTop = kMargin + textH + 4, yBottom = height() - kMargin - textH - 4;
  const auto label = [&](bool src, int i, double y) {
    const int n = src ? sourceCount() : targetCount();
    const int slot = std::max(8, (width() - 2 * kMargin) / std::max(n, 1));
    const QString text = fm.elidedText(src ? source_[i] : target_[i], Qt::ElideRight, slot - 2);
    p.drawText(QRectF(tokenX(src, i) - slot / 2.0, y, slot, textH), Qt::AlignCenter, text);
  };
  const QColor ink = palette().text().color();
  const QColor accent = palette().highlight().color();
  // Every weight over the threshold, faint to dark.
  for (int t = 0; t < targetCount() && t < cross_.rows(); ++t)
    for (int s = 0; s < sourceCount() && s < cross_.cols(); ++s) {
      const float w = cross_(t, s);
      if (!(w >= threshold_)) continue;
      QColor c = ink;
      c.setAlphaF(std::clamp(0.15 + 0.7 * double(w), 0.0, 1.0));
      p.setPen(QPen(c, 1.0 + 2.0 * double(w)));
      p.drawLine(QPointF(tokenX(false, t), yBottom), QPointF(tokenX(true, s), yTop));
    }
  // The reference's links dashed (possible ones dotted), then the argmax links bold on top.
  const auto drawLinks = [&](const std::vector<attn::alignment::Link>& links, const QPen& pen) {
    p.setPen(pen);
    for (const auto& [s, t] : links)
      if (s < sourceCount() && t < targetCount())
        p.drawLine(QPointF(tokenX(false, t), yBottom), QPointF(tokenX(true, s), yTop));
  };
  const QColor ref(0, 150, 80);
  drawLinks(possible_, QPen(ref, 1.5, Qt::DotLine));
  drawLinks(sure_, QPen(ref, 2.0, Qt::DashLine));
  drawLinks(argmax_, QPen(accent, 3.0));
  p.setPen(ink);
  for (int i = 0; i < sourceCount(); ++i) label(true, i, kMargin);
  for (int i = 0; i < targetCount(); ++i) label(false, i, height() - kMargin - textH);
}

}  // namespace attn::ui
