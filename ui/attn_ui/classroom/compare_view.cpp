#include "attn_ui/classroom/compare_view.h"

#include <QHBoxLayout>
#include <QPainter>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "attn_ui/explorer/heatmap_widget.h"

namespace attn::ui {

QString compareDeltasText(const attn::CompareSummary& s) {
  const auto signedNum = [](double v) { return (v >= 0 ? "+" : "") + QString::number(v, 'f', 4); };
  return CompareView::tr("mean |B − A| = %1    max |B − A| = %2\n"
                         "entropy (nats): A %3, B %4, Δ %5    same top key: %6%    mean JS divergence: %7\n"
                         "A as exact: ‖B − A‖_F = %8    mean row KL(A‖B) = %9 nats")
      .arg(s.meanAbsDiff, 0, 'f', 4)
      .arg(s.maxAbsDiff, 0, 'f', 4)
      .arg(s.entropyMeanA, 0, 'f', 4)
      .arg(s.entropyMeanB, 0, 'f', 4)
      .arg(signedNum(s.entropyDelta()))
      .arg(s.argmaxAgreement * 100.0, 0, 'f', 0)
      .arg(s.meanJsDivergence, 0, 'f', 4)
      .arg(s.frobenius, 0, 'g', 4)
      .arg(s.meanRowKl, 0, 'g', 4);
}

CompareView::CompareView(QWidget* parent)
    : QWidget(parent),
      a_(new HeatmapWidget(this)),
      b_(new HeatmapWidget(this)),
      diff_(new HeatmapWidget(this)),
      deltas_(new QLabel(this)) {
  auto* plots = new QHBoxLayout;
  for (auto* p : {a_, b_, diff_}) {
    p->setMinimumSize(200, 200);
    plots->addWidget(p, 1);
  }
  a_->setColorScaleLabel(tr("weight"));
  b_->setColorScaleLabel(tr("weight"));
  diff_->setColorScaleLabel(tr("B − A"));
  diff_->setColormap("diverging");
  deltas_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  deltas_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(plots, 1);
  layout->addWidget(deltas_);
}

void CompareView::setColormap(const QString& name) {
  colormap_ = name;
  a_->setColormap(name);
  b_->setColormap(name);
}

void CompareView::setComparison(const attn::Mat& a, const attn::Mat& b, const attn::CompareSummary& s,
                                const QStringList& rowLabels, const QStringList& colLabels, const QString& titleA,
                                const QString& titleB) {
  rows_ = rowLabels;
  cols_ = colLabels;
  titleA_ = titleA;
  titleB_ = titleB;
  a_->setMatrix(a, rowLabels, colLabels, "A: " + titleA, 0.0, 1.0);
  b_->setMatrix(b, rowLabels, colLabels, "B: " + titleB, 0.0, 1.0);
  // Symmetric range so white is exactly "no change".
  const double m = std::max(1e-6, static_cast<double>(s.maxAbsDiff));
  diff_->setMatrix(s.difference, rowLabels, colLabels, tr("Difference B − A"), -m, m);
  deltas_->setText(compareDeltasText(s));
}

FigurePainter CompareView::figurePainter() {
  return [this](QCPPainter& p, const QRect& target) {
    const int textH = std::max(40, target.height() / 8);
    const int w = target.width() / 3;
    const int h = target.height() - textH;
    // Fresh plots laid out at the figure's size (as many labels as fit there),
    // leaving the ones on screen alone.
    const double m = std::max(1e-6, static_cast<double>(diff_->matrix().cwiseAbs().maxCoeff()));
    struct Spec { const HeatmapWidget* from; QString title, scale, cmap; double lo, hi; };
    const Spec specs[] = {{a_, "A: " + titleA_, tr("weight"), colormap_, 0.0, 1.0},
                          {b_, "B: " + titleB_, tr("weight"), colormap_, 0.0, 1.0},
                          {diff_, tr("Difference B − A"), tr("B − A"), "diverging", -m, m}};
    int i = 0;
    for (const Spec& s : specs) {
      HeatmapWidget plot;
      layoutOffscreen(plot, QSize(w, h));
      plot.setColormap(s.cmap);
      plot.setColorScaleLabel(s.scale);
      plot.setMatrix(s.from->matrix(), rows_, cols_, s.title, s.lo, s.hi);
      plotPainter(plot)(p, QRect(target.left() + w * i++, target.top(), w, h));
    }
    p.setPen(Qt::black);
    QFont f = p.font();
    f.setPointSizeF(9);
    p.setFont(f);
    p.drawText(QRect(target.left() + 10, target.top() + h, target.width() - 20, textH),
               Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, deltas_->text());
  };
}

}  // namespace attn::ui
