#include "attn_ui/classroom/step_through_panel.h"

#include <QKeyEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace attn::ui {
namespace {

using attn::StepKind;

QString fixed3(double v) {
  if (std::isinf(v)) return v < 0 ? QStringLiteral("−∞") : QStringLiteral("∞");
  return QString::number(v, 'f', 3);
}

QString vecText(const attn::Vec& v, int maxShown = 4) {
  QStringList parts;
  for (int i = 0; i < std::min<int>(maxShown, static_cast<int>(v.size())); ++i) parts << fixed3(v(i));
  if (v.size() > maxShown) parts << QStringLiteral("…");
  return "[" + parts.join(", ") + "]";
}

attn::Vec rowOf(const attn::Mat& m, Eigen::Index i) { return m.row(i).transpose(); }

// Draws a vector as small vertical bars around a middle line.
void drawBars(QPainter& p, const QRectF& r, const attn::Vec& v, double maxAbs, const TeachingTheme& t) {
  if (v.size() == 0 || maxAbs <= 0) return;
  const int n = static_cast<int>(std::min<Eigen::Index>(v.size(), 64));
  const double w = r.width() / n;
  const double mid = r.center().y();
  p.setPen(QPen(t.grid, 0));
  p.drawLine(QPointF(r.left(), mid), QPointF(r.right(), mid));
  p.setPen(Qt::NoPen);
  for (int i = 0; i < n; ++i) {
    const double h = std::clamp(v(i) / maxAbs, -1.0, 1.0) * (r.height() / 2 - 1);
    p.setBrush(v(i) >= 0 ? t.positive : t.negative);
    p.drawRect(QRectF(r.left() + i * w + w * 0.1, h >= 0 ? mid - h : mid, w * 0.8, std::abs(h)));
  }
}

}  // namespace

QString stepTitle(StepKind kind) {
  switch (kind) {
    case StepKind::QueryAndKeys: return StepThroughPanel::tr("Query and keys");
    case StepKind::BilinearProjection: return StepThroughPanel::tr("General: multiply q by W");
    case StepKind::CosineNormalize: return StepThroughPanel::tr("Cosine: scale q and every k to length 1");
    case StepKind::RawScores: return StepThroughPanel::tr("Raw scores: dot products");
    case StepKind::AdditiveProjections: return StepThroughPanel::tr("Additive: project q and every k");
    case StepKind::AdditiveTanh: return StepThroughPanel::tr("Additive: add and squash with tanh");
    case StepKind::AdditiveScores: return StepThroughPanel::tr("Additive: score with v");
    case StepKind::Scale: return StepThroughPanel::tr("Scale by √d_k");
    case StepKind::Temperature: return StepThroughPanel::tr("Divide by the temperature");
    case StepKind::PositionalBias: return StepThroughPanel::tr("Add the positional bias");
    case StepKind::Mask: return StepThroughPanel::tr("Apply the mask");
    case StepKind::Softmax: return StepThroughPanel::tr("Softmax: scores become weights");
    case StepKind::WeightedSum: return StepThroughPanel::tr("Weight the values");
    case StepKind::Output: return StepThroughPanel::tr("Output: sum of weighted values");
  }
  return {};
}

namespace {

/// The rows of one step's table, one per key: numbers, and bars where they help.
struct StepRows {
  StepTable& t;
  const QStringList& keys;
  Eigen::Index nk;

  QString label(Eigen::Index j) const {
    return j < keys.size() ? keys[static_cast<int>(j)] : QString::number(j);
  }
  /// Key j's row of `cells` with one bar.
  void add(Eigen::Index j, const QStringList& cells, double bar, bool dimmed = false) {
    StepTable::Row r;
    r.label = label(j);
    r.cells = cells;
    r.hasBar = true;
    r.bar = bar;
    r.dimmed = dimmed;
    t.rows.push_back(r);
  }
  /// a_j (and b_j), the bar showing the last column.
  void scalars(const attn::Vec& a, const attn::Vec* b = nullptr) {
    for (Eigen::Index j = 0; j < nk; ++j) {
      StepTable::Row r;
      r.label = label(j);
      r.cells << fixed3(a(j));
      if (b) r.cells << fixed3((*b)(j));
      const double shown = b ? (*b)(j) : a(j);
      r.hasBar = std::isfinite(shown);
      r.bar = r.hasBar ? shown : 0.0;
      t.rows.push_back(r);
    }
  }
  /// An optional scalar column `lead`, then row j of `m` as numbers and as small bars;
  /// `dimZeroLead` greys keys whose lead is 0 (weights).
  void vectors(const attn::Mat& m, const attn::Vec* lead = nullptr, bool dimZeroLead = false) {
    for (Eigen::Index j = 0; j < nk; ++j) {
      StepTable::Row r;
      r.label = label(j);
      if (lead) r.cells << fixed3((*lead)(j));
      r.bars = rowOf(m, j);
      r.cells << vecText(r.bars);
      r.dimmed = dimZeroLead && lead && (*lead)(j) == 0.0f;
      t.rows.push_back(r);
    }
  }
};

/// The steps that make q and the keys: projections, normalization, additive's tanh.
void projectionStep(const attn::StepThrough& w, StepKind kind, const QString& query, StepRows& rows) {
  StepTable& t = rows.t;
  switch (kind) {
    case StepKind::QueryAndKeys:
      t.formula = StepThroughPanel::tr("query “%1”: q = x W_Q;  every key j: k_j = x_j W_K   (d_k = %2)")
                      .arg(query)
                      .arg(w.q.size());
      t.topLabel = "q";
      t.topBars = w.q;
      t.headers << "k_j";
      rows.vectors(w.k);
      break;
    case StepKind::BilinearProjection:
      t.formula = StepThroughPanel::tr("u = qᵀ W,  W is d_q × d_k = %1 × %2").arg(w.q.size()).arg(w.qW.size());
      t.topLabel = "u";
      t.topBars = w.qW;
      t.headers << "k_j";
      rows.vectors(w.k);
      break;
    case StepKind::CosineNormalize:
      t.formula = StepThroughPanel::tr("q̂ = q / |q|,  k̂_j = k_j / |k_j|,   |q| = %1").arg(fixed3(w.qNorm));
      t.note = StepThroughPanel::tr("Only directions count: every score will lie in [−1, 1].");
      t.topLabel = "q̂";
      t.topBars = w.qUnit;
      t.headers << "|k_j|" << "k̂_j";
      rows.vectors(w.kUnit, &w.kNorms);
      break;
    case StepKind::AdditiveProjections:
      t.formula = StepThroughPanel::tr("W_qᵀ q (above) and W_kᵀ k_j (per key), hidden size %1").arg(w.wqQ.size());
      t.topLabel = "W_qᵀq";
      t.topBars = w.wqQ;
      t.headers << "W_kᵀk_j";
      rows.vectors(w.wkK);
      break;
    case StepKind::AdditiveTanh:
      t.formula = StepThroughPanel::tr("h_j = tanh(W_qᵀ q + W_kᵀ k_j)");
      t.headers << "h_j";
      rows.vectors(w.tanhSum);
      break;
    default:
      break;
  }
}

/// The steps on the scores s_j: raw, scaled, tempered, biased, masked.
void scoreStep(const attn::StepThrough& w, StepKind kind, StepRows& rows) {
  StepTable& t = rows.t;
  switch (kind) {
    case StepKind::RawScores:
      t.formula = w.general  ? StepThroughPanel::tr("s_j = u · k_j = qᵀ W k_j")
                  : w.cosine ? StepThroughPanel::tr("s_j = q̂ · k̂_j = cos(q, k_j)")
                             : StepThroughPanel::tr("s_j = q · k_j = Σ_d q_d k_j,d");
      t.headers << "s_j";
      rows.scalars(w.rawScores);
      break;
    case StepKind::AdditiveScores:
      t.formula = StepThroughPanel::tr("s_j = vᵀ h_j");
      t.topLabel = "v";
      t.topBars = w.vAdd;
      t.headers << "s_j";
      rows.scalars(w.rawScores);
      break;
    case StepKind::Scale:
      t.formula = StepThroughPanel::tr("s_j / √d_k = s_j / √%1 = s_j × %2").arg(w.q.size()).arg(fixed3(w.scale));
      t.headers << "s_j" << "s_j / √d_k";
      rows.scalars(w.rawScores, &w.scaledScores);
      break;
    case StepKind::Temperature:
      t.formula = StepThroughPanel::tr("s_j / T,  T = %1").arg(fixed3(w.temperature));
      t.note = w.temperature == 1.0f ? StepThroughPanel::tr("T = 1 leaves the scores as they are; T > 1 flattens, "
                                                            "T < 1 sharpens the softmax.")
                                     : QString();
      t.headers << StepThroughPanel::tr("before") << StepThroughPanel::tr("after");
      rows.scalars(w.scaledScores, &w.temperedScores);
      break;
    case StepKind::PositionalBias:
      t.formula = StepThroughPanel::tr("s_j + b_j  (positional bias)");
      t.headers << "s_j" << "b_j" << StepThroughPanel::tr("sum");
      for (Eigen::Index j = 0; j < rows.nk; ++j)
        rows.add(j, {fixed3(w.temperedScores(j)), fixed3(w.bias(j)), fixed3(w.biasedScores(j))},
                 w.biasedScores(j));
      break;
    case StepKind::Mask: {
      const auto hidden = std::count(w.allowed.begin(), w.allowed.end(), uint8_t{0});
      t.formula = StepThroughPanel::tr("s_j stays where key j is visible, −∞ where the mask hides it");
      t.note = StepThroughPanel::tr("%n key(s) hidden", "", static_cast<int>(hidden));
      t.headers << "s_j";
      rows.scalars(w.maskedScores);
      for (Eigen::Index j = 0; j < rows.nk; ++j)
        t.rows[static_cast<size_t>(j)].dimmed = !w.allowed[static_cast<size_t>(j)];
      break;
    }
    default:
      break;
  }
}

/// The steps from the scores to the output: softmax, weighted values, their sum.
void weightStep(const attn::StepThrough& w, StepKind kind, StepRows& rows) {
  StepTable& t = rows.t;
  switch (kind) {
    case StepKind::Softmax:
      t.formula = StepThroughPanel::tr("a_j = e^(s_j − m) / Σ e^(s − m),   m = %1,   Σ = %2")
                      .arg(fixed3(w.rowMax))
                      .arg(fixed3(w.expSum));
      t.note = w.fullyMasked ? StepThroughPanel::tr("Every key is hidden: all weights are 0.")
                             : StepThroughPanel::tr("Subtracting the maximum m keeps e^x from overflowing.");
      t.headers << "s_j − m" << "e^(s_j − m)" << "a_j";
      for (Eigen::Index j = 0; j < rows.nk; ++j) {
        const bool ok = w.allowed[static_cast<size_t>(j)];
        rows.add(j,
                 {ok ? fixed3(w.maskedScores(j) - w.rowMax) : fixed3(-INFINITY), fixed3(w.exps(j)),
                  fixed3(w.weights(j))},
                 w.weights(j), !ok);
      }
      break;
    case StepKind::WeightedSum:
      t.formula = StepThroughPanel::tr("every value v_j is multiplied by its weight a_j");
      t.headers << "a_j" << "a_j v_j";
      rows.vectors(w.weightedValues, &w.weights, /*dimZeroLead=*/true);
      break;
    case StepKind::Output:
      t.formula = StepThroughPanel::tr("o = Σ_j a_j v_j = %1").arg(vecText(w.output, 6));
      t.topLabel = "o";
      t.topBars = w.output;
      t.headers << "a_j" << "v_j";
      rows.vectors(w.v, &w.weights, /*dimZeroLead=*/true);
      break;
    default:
      break;
  }
}

}  // namespace

StepTable stepTable(const attn::StepThrough& w, StepKind kind, const QStringList& keys,
                    const QString& query) {
  StepTable t;
  t.title = stepTitle(kind);
  StepRows rows{t, keys, w.k.rows()};
  switch (kind) {
    case StepKind::QueryAndKeys:
    case StepKind::BilinearProjection:
    case StepKind::CosineNormalize:
    case StepKind::AdditiveProjections:
    case StepKind::AdditiveTanh:
      projectionStep(w, kind, query, rows);
      break;
    case StepKind::RawScores:
    case StepKind::AdditiveScores:
    case StepKind::Scale:
    case StepKind::Temperature:
    case StepKind::PositionalBias:
    case StepKind::Mask:
      scoreStep(w, kind, rows);
      break;
    case StepKind::Softmax:
    case StepKind::WeightedSum:
    case StepKind::Output:
      weightStep(w, kind, rows);
      break;
  }
  return t;
}

StepThroughPanel::StepThroughPanel(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(320, 240);
  setToolTip(tr("Step through the selected query row: Right / Space next, Left / Backspace back."));
}

void StepThroughPanel::setWalk(const attn::StepThrough& walk, const QStringList& keyLabels,
                               const QString& queryLabel) {
  const bool sameSteps = walk_ && walk_->steps() == walk.steps();
  walk_ = walk;
  message_.clear();
  steps_ = walk.steps();
  keyLabels_ = keyLabels;
  queryLabel_ = queryLabel;
  if (!sameSteps) step_ = std::min(step_, stepCount() - 1);  // stay on the step being explained
  update();
}

void StepThroughPanel::clearWalk(const QString& message) {
  message_ = message;
  walk_.reset();
  steps_.clear();
  step_ = 0;
  update();
}

void StepThroughPanel::setTheme(const TeachingTheme& theme) {
  theme_ = theme;
  update();
}

void StepThroughPanel::setStep(int step) {
  if (steps_.empty()) return;
  step = std::clamp(step, 0, stepCount() - 1);
  if (step == step_) return;
  step_ = step;
  update();
  emit stepChanged(step_);
}

void StepThroughPanel::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_Right: case Qt::Key_Space: case Qt::Key_PageDown: case Qt::Key_N: next(); break;
    case Qt::Key_Left: case Qt::Key_Backspace: case Qt::Key_PageUp: case Qt::Key_P: previous(); break;
    case Qt::Key_Home: setStep(0); break;
    case Qt::Key_End: setStep(stepCount() - 1); break;
    default: QWidget::keyPressEvent(e); return;
  }
  e->accept();
}

void StepThroughPanel::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  paintStep(p, rect());
}

namespace {

/// The bars of one step are scaled together so they compare.
struct BarScale {
  double maxAbs = 0.0;  // vector bars
  double maxBar = 0.0;  // single bars
  bool anyNegative = false;
};

BarScale barScale(const StepTable& t) {
  BarScale sc;
  sc.maxAbs = t.topBars.size() ? t.topBars.cwiseAbs().maxCoeff() : 0.0;
  for (const auto& row : t.rows) {
    if (row.bars.size()) sc.maxAbs = std::max<double>(sc.maxAbs, row.bars.cwiseAbs().maxCoeff());
    if (row.hasBar) {
      sc.maxBar = std::max(sc.maxBar, std::abs(row.bar));
      sc.anyNegative |= row.bar < 0;
    }
  }
  return sc;
}

/// Columns: token | cells... | bars.
struct StepColumns {
  int nCells, tokenW, barW, cellW;
};

/// The vector above the table (q, u, o ...) as numbers and bars; r starts below it.
void paintTopVector(QPainter& p, QRect& r, const StepTable& t, const BarScale& sc, const TeachingTheme& th,
                    const QFontMetrics& fm, int rowH, double s) {
  p.setPen(th.text);
  const QRect lab(r.left(), r.top(), r.width() / 5, rowH);
  p.drawText(lab, Qt::AlignVCenter | Qt::AlignLeft, t.topLabel + " = ");
  const QRect vec(lab.right(), r.top(), static_cast<int>(r.width() * 0.62) - lab.width() - 6, rowH);
  p.drawText(vec, Qt::AlignVCenter, fm.elidedText(vecText(t.topBars), Qt::ElideRight, vec.width()));
  drawBars(p, QRectF(r.left() + r.width() * 0.62, r.top() + 2, r.width() * 0.38, rowH - 4), t.topBars,
           sc.maxAbs, th);
  r.setTop(r.top() + rowH + static_cast<int>(4 * s));
}

/// The header row and its rule; r starts below them.
void paintHeaders(QPainter& p, QRect& r, const StepTable& t, const StepColumns& col, const TeachingTheme& th,
                  int rowH) {
  QFont headerFont = th.font(10, true);
  p.setFont(headerFont);
  int widest = 0;
  for (const QString& h : t.headers) widest = std::max(widest, p.fontMetrics().horizontalAdvance(h));
  if (col.cellW > 12 &&
      widest > col.cellW - 8) {  // large presentation fonts: headers shrink rather than overlap
    headerFont.setPointSizeF(std::max(6.0, headerFont.pointSizeF() * (col.cellW - 8) / widest));
    p.setFont(headerFont);
  }
  p.setPen(th.dim);
  p.drawText(QRect(r.left(), r.top(), col.tokenW, rowH), Qt::AlignVCenter, StepThroughPanel::tr("key"));
  for (int c = 0; c < col.nCells; ++c)
    p.drawText(QRect(r.left() + col.tokenW + c * col.cellW, r.top(), col.cellW, rowH),
               Qt::AlignVCenter | Qt::AlignRight, t.headers[c]);
  r.setTop(r.top() + rowH);
  p.setPen(QPen(th.grid, 0));
  p.drawLine(r.topLeft(), r.topRight());
}

/// A scalar column's bar: from the middle when some are negative, else from the left.
void paintSingleBar(QPainter& p, const QRectF& box, const StepTable::Row& row, const BarScale& sc,
                    const TeachingTheme& th) {
  p.setPen(Qt::NoPen);
  p.setBrush(row.dimmed ? th.dim : (row.bar >= 0 ? th.positive : th.negative));
  const double frac = row.bar / sc.maxBar;
  const double x0 = sc.anyNegative ? box.center().x() : box.left();
  const double len = (sc.anyNegative ? box.width() / 2 : box.width()) * frac;
  p.drawRect(QRectF(std::min(x0, x0 + len), box.top(), std::abs(len), box.height()));
}

/// The rows that fit in r, the last one saying how many more keys there are.
void paintRows(QPainter& p, const QRect& r, const StepTable& t, const StepColumns& col, const BarScale& sc,
               const TeachingTheme& th, const QFontMetrics& fm, int rowH, double s) {
  p.setFont(th.font(10));
  const int fit = std::max(1, r.height() / rowH);
  const int shown = std::min<int>(fit, static_cast<int>(t.rows.size()));
  for (int i = 0; i < shown; ++i) {
    const auto& row = t.rows[static_cast<size_t>(i)];
    const int y = r.top() + i * rowH;
    const bool last = i == shown - 1 && shown < static_cast<int>(t.rows.size());
    p.setPen(row.dimmed ? th.dim : th.text);
    if (last) {
      p.drawText(QRect(r.left(), y, r.width(), rowH), Qt::AlignVCenter,
                 StepThroughPanel::tr("… %n more key(s)", "", static_cast<int>(t.rows.size()) - i));
      break;
    }
    p.drawText(QRect(r.left(), y, col.tokenW - 4, rowH), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(row.label, Qt::ElideRight, col.tokenW - 4));
    for (int c = 0; c < std::min<int>(col.nCells, static_cast<int>(row.cells.size())); ++c)
      p.drawText(QRect(r.left() + col.tokenW + c * col.cellW, y, col.cellW, rowH),
                 Qt::AlignVCenter | Qt::AlignRight,
                 fm.elidedText(row.cells[c], Qt::ElideRight, col.cellW));  // keep signs and leading digits
    const QRectF barBox(r.right() - col.barW + 8 * s, y + 3, col.barW - 8 * s, rowH - 6);
    if (row.bars.size())
      drawBars(p, barBox, row.bars, sc.maxAbs, th);
    else if (row.hasBar && sc.maxBar > 0)
      paintSingleBar(p, barBox, row, sc, th);
  }
}

}  // namespace

void StepThroughPanel::paintStep(QPainter& p, const QRect& target) const {
  const TeachingTheme& th = theme_;
  p.save();
  p.fillRect(target, th.background);
  const double s = th.fontScale;
  const int m = static_cast<int>(10 * s);
  QRect r = target.adjusted(m, m, -m, -m);
  if (!walk_) {
    p.setPen(th.dim);
    p.setFont(th.font(11));
    p.drawText(r, Qt::AlignCenter | Qt::TextWordWrap,
               message_.isEmpty() ? tr("Select a query row to step through its attention.") : message_);
    p.restore();
    return;
  }
  const StepTable t = stepTable(*walk_, stepKind(), keyLabels_, queryLabel_);
  auto line = [&](const QString& text, const QFont& f, const QColor& c) {
    p.setFont(f);
    p.setPen(c);
    const QRect br = p.boundingRect(r, Qt::AlignLeft | Qt::TextWordWrap, text);
    p.drawText(r, Qt::AlignLeft | Qt::TextWordWrap, text);
    r.setTop(br.bottom() + static_cast<int>(4 * s));
  };
  line(tr("Step %1 of %2 — query “%3”").arg(step_ + 1).arg(stepCount()).arg(queryLabel_), th.font(9), th.dim);
  line(t.title, th.font(13, true), th.accent);
  line(t.formula, th.font(11), th.text);
  if (!t.note.isEmpty()) line(t.note, th.font(9), th.dim);

  const BarScale sc = barScale(t);
  p.setFont(th.font(10));
  const QFontMetrics fm = p.fontMetrics();
  const int rowH = static_cast<int>(fm.height() * 1.45);
  if (t.topBars.size()) paintTopVector(p, r, t, sc, th, fm, rowH, s);
  const int nCells = static_cast<int>(t.headers.size());
  const int tokenW = r.width() / 5, barW = r.width() / 4;
  const StepColumns col{nCells, tokenW, barW, nCells > 0 ? (r.width() - tokenW - barW) / nCells : 0};
  paintHeaders(p, r, t, col, th, rowH);
  paintRows(p, r, t, col, sc, th, fm, rowH, s);
  p.restore();
}

}  // namespace attn::ui
