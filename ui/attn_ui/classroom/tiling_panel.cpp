#include "attn_ui/classroom/tiling_panel.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "attn/engine/exec_path.h"
#include "attn_ui/common/core_text.h"
#include "attn_ui/common/number_text.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/window/hidden_panel_gate.h"

namespace attn::ui {
namespace {

QString num(double v, int digits = 4) { return numberText(v, digits, QStringLiteral("—")); }

QColor stateColor(attn::BlockState s) {
  switch (s) {
    case attn::BlockState::AllAllowed: return {70, 130, 200};   // computed, no cell test
    case attn::BlockState::Mixed: return {240, 170, 60};        // computed, cells tested
    case attn::BlockState::AllMasked: return {225, 225, 225};   // skipped
  }
  return Qt::white;
}

QString stateName(attn::BlockState s) {
  switch (s) {
    case attn::BlockState::AllAllowed: return QObject::tr("full");
    case attn::BlockState::Mixed: return QObject::tr("partly masked");
    case attn::BlockState::AllMasked: return QObject::tr("skipped");
  }
  return {};
}

}  // namespace

QString executionPathText(const attn::AttentionResult& r, const attn::AttentionSpec& spec) {
  const QString used = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(r.execUsed));
  const long long cells = static_cast<long long>(r.nq()) * r.heads.front().k.rows();
  if (spec.exec == attn::ExecPath::Auto)
    return cells <= attn::kAutoNaiveMaxCells
               ? QObject::tr("Execution: %1, picked by auto (Nq·Nk = %2 ≤ 512²: every intermediate kept)")
                     .arg(used).arg(cells)
               : QObject::tr("Execution: %1, picked by auto (Nq·Nk = %2 > 512²: tiles with an online softmax)")
                     .arg(used).arg(cells);
  if (r.execUsed != attn::execPathName(spec.exec))
    return QObject::tr("Execution: %1 (asked for %2, which does not cover mechanism %3)")
        .arg(used, qs(attn::execPathName(spec.exec)), qs(attn::mechanismName(spec.mechanism)));
  return QObject::tr("Execution: %1 (chosen)").arg(used);
}

QString approximationErrorText(const attn::HeadResult& head, int headIndex) {
  if (!head.approxError) return {};
  const auto& e = *head.approxError;
  QString weights = std::isnan(e.weightsFrobenius)
                        ? QObject::tr("weights: not comparable (the N×k map has slots, not keys)")
                        : QObject::tr("weights ‖A − A<sub>exact</sub>‖<sub>F</sub> = %1, mean row KL = %2 nats")
                              .arg(num(e.weightsFrobenius), num(e.meanRowKl));
  return QObject::tr("Head %1 vs exact softmax: %2; outputs relative error %3%")
      .arg(headIndex + 1)
      .arg(weights)
      .arg(num(100.0 * e.outputRelError, 3));
}

// --- BlockScheduleWidget ----------------------------------------------------

BlockScheduleWidget::BlockScheduleWidget(QWidget* parent) : QWidget(parent) {
  setMinimumSize(160, 160);
}

void BlockScheduleWidget::setSchedule(const attn::BlockSchedule& schedule, int highlightQueryBlock) {
  schedule_ = schedule;
  highlight_ = highlightQueryBlock;
  update();
}

void BlockScheduleWidget::clear() {
  schedule_ = {};
  highlight_ = -1;
  update();
}

void BlockScheduleWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const int rows = schedule_.numQueryBlocks, cols = schedule_.numKeyBlocks;
  if (rows <= 0 || cols <= 0) return;
  // Axis captions take a margin; tiles are square.
  const int margin = 18;
  const double cell = std::min((width() - margin - 4) / double(cols), (height() - margin - 4) / double(rows));
  const QPointF origin(margin, margin);
  p.setPen(palette().text().color());
  p.drawText(QRectF(margin, 0, cell * cols, margin), Qt::AlignCenter, tr("key tiles →"));
  p.save();
  p.translate(0, margin + cell * rows / 2);
  p.rotate(-90);
  p.drawText(QRectF(-cell * rows / 2, 0, cell * rows, margin), Qt::AlignCenter, tr("query tiles →"));
  p.restore();
  const QPen grid(palette().window().color().darker(130), 1);
  for (int b = 0; b < rows; ++b)
    for (int k = 0; k < cols; ++k) {
      const QRectF r(origin.x() + k * cell, origin.y() + b * cell, cell, cell);
      p.fillRect(r, stateColor(schedule_.states[static_cast<size_t>(b) * cols + k]));
      if (cell >= 4) {
        p.setPen(grid);
        p.drawRect(r);
      }
    }
  if (highlight_ >= 0 && highlight_ < rows) {
    p.setPen(QPen(QColor(200, 30, 30), 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(origin.x(), origin.y() + highlight_ * cell, cell * cols, cell));
  }
}

// --- TilingPanel ------------------------------------------------------------

TilingPanel::TilingPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      path_(new QLabel(this)),
      error_(new QLabel(this)),
      tile_(new QSpinBox(this)),
      row_(new QSpinBox(this)),
      schedule_(new BlockScheduleWidget(this)),
      legend_(new QLabel(this)),
      table_(new QTableWidget(this)),
      summary_(new QLabel(this)),
      message_(new QLabel(this)) {
  for (QLabel* l : {path_, error_, legend_, summary_, message_}) {
    l->setWordWrap(true);
    l->setTextFormat(Qt::RichText);
  }
  // Wide rather than tall (a bottom dock): the schedule and its controls on
  // the left, the row's trace table on the right.
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(path_);
  layout->addWidget(error_);
  auto* columns = new QHBoxLayout;
  auto* left = new QVBoxLayout;
  auto* form = new QFormLayout;
  tile_->setRange(1, 4096);
  tile_->setValue(4);
  tile_->setToolTip(tr("Teaching tile size (queries × keys). The engine's tiled path uses 256 × 512 tiles, "
                       "the sparse path 64 × 64; the numbers do not depend on it."));
  row_->setRange(0, 0);
  row_->setToolTip(tr("The query row whose online softmax is traced (follows the pinned row)."));
  form->addRow(tr("Tile size"), tile_);
  form->addRow(tr("Query row"), row_);
  left->addLayout(form);
  left->addWidget(schedule_, 1);
  left->addWidget(legend_);
  columns->addLayout(left, 2);
  auto* right = new QVBoxLayout;
  table_->setColumnCount(7);
  table_->setHorizontalHeaderLabels({tr("keys"), tr("tile"), tr("tile max"), tr("max m"), tr("rescale"),
                                     tr("sum l"), tr("H so far")});
  table_->horizontalHeaderItem(3)->setToolTip(tr("running max m of the row after this tile"));
  table_->horizontalHeaderItem(4)->setToolTip(tr("e^(m_old − m_new): the factor applied to l and the output"));
  table_->horizontalHeaderItem(5)->setToolTip(tr("running normalizer l = Σ e^(s − m) over the keys seen so far"));
  table_->horizontalHeaderItem(6)->setToolTip(tr("entropy so far, H = log l − t/l (t = Σ e^(s − m)(s − m))"));
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setMinimumHeight(120);
  right->addWidget(table_, 1);
  right->addWidget(summary_);
  columns->addLayout(right, 3);
  layout->addLayout(columns, 1);
  layout->addWidget(message_);

  connect(tile_, &QSpinBox::valueChanged, this, &TilingPanel::refresh);
  connect(row_, &QSpinBox::valueChanged, this, &TilingPanel::refresh);
  auto* gate = new HiddenPanelGate(this, [this] { refresh(); });
  connect(model_, &ExplorerModel::resultChanged, gate, &HiddenPanelGate::request);
  connect(model_, &ExplorerModel::currentHeadChanged, gate, &HiddenPanelGate::request);
  connect(model_, &ExplorerModel::pinnedRowChanged, this, [this](int row) {
    if (row >= 0) row_->setValue(row);  // refreshes
  });
  refresh();
}

QString TilingPanel::pathText() const { return path_->text(); }
QString TilingPanel::errorText() const { return error_->text(); }
QString TilingPanel::message() const { return message_->text(); }
QString TilingPanel::summaryText() const { return summary_->text(); }

void TilingPanel::refresh() {
  view_.reset();
  message_->clear();
  const auto* h = model_->currentHeadResult();
  if (!model_->hasResult() || !h) {
    path_->clear();
    error_->clear();
    schedule_->clear();
    legend_->clear();
    table_->setRowCount(0);
    summary_->clear();
    message_->setText(tr("No result yet."));
    return;
  }
  const auto& r = model_->result();
  const auto& spec = model_->resultSpec();
  path_->setText(executionPathText(r, spec));
  const QString err = approximationErrorText(*h, model_->currentHead());
  error_->setText(err);
  error_->setVisible(!err.isEmpty());

  const int nq = static_cast<int>(h->q.rows()), nk = static_cast<int>(h->k.rows());
  {
    QSignalBlocker block(row_);
    row_->setRange(0, std::max(0, nq - 1));
  }
  // Enough tiles to teach, few enough to draw: at most kMaxTilesPerSide a side.
  const int longest = std::max(nq, nk);
  const int block = std::max(tile_->value(), (longest + kMaxTilesPerSide - 1) / kMaxTilesPerSide);
  auto v = attn::tilingTeachingView(r, spec, model_->currentHead(), row_->value(), std::max(1, block));
  if (!v) {
    schedule_->clear();
    legend_->clear();
    table_->setRowCount(0);
    summary_->clear();
    message_->setText(QString::fromStdString(v.error().message).toHtmlEscaped());
    return;
  }
  view_ = std::move(v).value();
  const auto& s = view_->schedule;
  const int total = s.numQueryBlocks * s.numKeyBlocks;
  const int mixed = static_cast<int>(std::count(s.states.begin(), s.states.end(), attn::BlockState::Mixed));
  schedule_->setSchedule(s, view_->trace.queryBlock);
  legend_->setText(
      tr("<span style='color:%1'>■</span> computed &nbsp; <span style='color:%2'>■</span> computed, mask tested "
         "cell by cell &nbsp; <span style='color:#aaaaaa'>■</span> skipped — %3 of %4 tiles of %5 × %5 computed "
         "(%6 need cell tests); the outlined band holds row %7.%8")
          .arg(stateColor(attn::BlockState::AllAllowed).name(), stateColor(attn::BlockState::Mixed).name())
          .arg(s.computedTiles())
          .arg(total)
          .arg(view_->tiles.queryBlock)
          .arg(mixed)
          .arg(view_->row)
          .arg(block > tile_->value() ? tr(" Tiles enlarged to %1 to fit %2 tokens.").arg(block).arg(longest)
                                      : QString()));
  fillTable();
  const double H = view_->trace.finalEntropy;
  summary_->setText(tr("Row %1: H = log l − t/l = %2 nats after the last tile; the engine's entropy of this "
                       "row (%3 path): %4 nats. The tiled path itself runs %5 × %6 tiles (sparse: 64 × 64).")
                        .arg(view_->row)
                        .arg(num(H, 6), QString::fromStdString(r.execUsed), num(view_->engineEntropy, 6))
                        .arg(attn::TileConfig{}.queryBlock)
                        .arg(attn::TileConfig{}.keyBlock));
}

void TilingPanel::fillTable() {
  const auto& steps = view_->trace.steps;
  table_->setRowCount(static_cast<int>(steps.size()));
  for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
    const auto& st = steps[static_cast<size_t>(i)];
    const bool skipped = st.state == attn::BlockState::AllMasked;
    const QStringList cells{QStringLiteral("%1–%2").arg(st.keyBegin).arg(st.keyEnd - 1),
                            stateName(st.state),
                            skipped ? QStringLiteral("—") : num(st.tileMax),
                            num(st.runningMax),
                            num(st.rescale),
                            num(st.runningSum),
                            num(st.entropySoFar)};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (skipped) item->setForeground(QColor(150, 150, 150));
      table_->setItem(i, c, item);
    }
  }
}

}  // namespace attn::ui
