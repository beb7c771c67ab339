#include "attn_ui/explorer/row_column_panel.h"

#include <qcustomplot.h>

#include <QCoreApplication>
#include <QEventLoop>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "attn/analysis/qk_geometry.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_source.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/theme/plot_theme.h"
#include "attn_ui/window/hidden_panel_gate.h"

namespace attn::ui {
namespace {

QCustomPlot* weightCurve(const QString& xLabel, QWidget* parent) {
  auto* plot = new QCustomPlot(parent);
  plot->addGraph();
  plot->graph(0)->setPen(QPen(QColor(30, 60, 130), 1.2));
  plot->graph(0)->setLineStyle(QCPGraph::lsImpulse);
  plot->xAxis->setLabel(xLabel);
  plot->yAxis->setLabel(RowColumnPanel::tr("weight"));
  plot->setMinimumHeight(150);
  followPalette(plot);
  return plot;
}

void setCurve(QCustomPlot* plot, const std::vector<float>& values) {
  QVector<double> x, y;
  x.reserve(static_cast<qsizetype>(values.size()));
  y.reserve(static_cast<qsizetype>(values.size()));
  double top = 0.0;
  for (size_t i = 0; i < values.size(); ++i) {
    x << static_cast<double>(i);
    y << static_cast<double>(values[i]);
    top = std::max(top, static_cast<double>(values[i]));
  }
  plot->graph(0)->setData(x, y, true);
  plot->xAxis->setRange(-0.5, std::max(1.0, static_cast<double>(values.size()) - 0.5));
  plot->yAxis->setRange(0.0, top > 0.0 ? top * 1.05 : 1.0);
  plot->replot(QCustomPlot::rpQueuedReplot);
}

std::vector<float> toVector(const attn::Mat& m) {
  std::vector<float> out(static_cast<size_t>(m.size()));
  for (Eigen::Index i = 0; i < m.size(); ++i) out[static_cast<size_t>(i)] = m.data()[i];
  return out;
}

}  // namespace

RowColumnPanel::RowColumnPanel(ExplorerModel* model, HeatmapWidget* heatmap, QWidget* parent)
    : QWidget(parent),
      model_(model),
      header_(new QLabel(this)),
      rowPlot_(weightCurve(tr("key token"), this)),
      columnPlot_(weightCurve(tr("query token"), this)),
      topCount_(new QSpinBox(this)),
      table_(new QTableWidget(0, 3, this)),
      job_(std::make_unique<NewestJob>(this)) {
  // A streamed head's row and column cost a pass over the kept q/k: only for a shown dock.
  gate_ = new HiddenPanelGate(this, [this] { compute(); });
  header_->setWordWrap(true);
  topCount_->setRange(1, 100);
  topCount_->setValue(10);
  topCount_->setToolTip(tr("How many of the keys the query token attends to most are listed."));
  table_->setHorizontalHeaderLabels({tr("key"), tr("token"), tr("weight")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
  table_->setMinimumHeight(140);

  auto* topRow = new QHBoxLayout;
  topRow->addWidget(new QLabel(tr("Where the query token attends: top"), this));
  topRow->addWidget(topCount_);
  topRow->addStretch(1);
  // The answer to "where does this token attend" first (a laptop's dock shows its top
  // rows without scrolling), the two curves side by side below it.
  auto* curves = new QHBoxLayout;
  curves->addWidget(rowPlot_, 1);
  curves->addWidget(columnPlot_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(header_);
  layout->addLayout(topRow);
  layout->addWidget(table_, 1);
  layout->addLayout(curves, 1);

  connect(topCount_, &QSpinBox::valueChanged, this, &RowColumnPanel::refresh);
  connect(model_, &ExplorerModel::resultChanged, this, &RowColumnPanel::refresh);
  connect(model_, &ExplorerModel::pinnedRowChanged, this, &RowColumnPanel::refresh);
  if (heatmap)
    connect(heatmap, &HeatmapWidget::cellClicked, this, [this](int, int col) {
      setKeyColumn(col);
      emit cellPicked();
    });
  refresh();
}

RowColumnPanel::~RowColumnPanel() = default;

void RowColumnPanel::setKeyColumn(int column) {
  if (column == column_) return;
  column_ = column;
  refresh();
}

void RowColumnPanel::setTopCount(int k) { topCount_->setValue(k); }

int RowColumnPanel::queryRow() const { return model_->hasResult() ? model_->pinnedRow() : -1; }

QString RowColumnPanel::headerText() const { return header_->text(); }

bool RowColumnPanel::busy() const { return job_->busy(); }

void RowColumnPanel::waitForIdle() {
  while (job_->busy()) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
}

void RowColumnPanel::refresh() { gate_->request(); }

void RowColumnPanel::compute() {
  job_->cancel();
  const int row = queryRow();
  const int n = model_->hasResult() ? model_->result().nq() : 0;
  const int nk = model_->hasResult() ? model_->result().nk() : 0;
  const int col = column_ >= 0 && column_ < nk ? column_ : -1;
  if (row < 0 && col < 0) {
    // Nothing picked: the hint once, not a replot per result while a slider drags.
    if (!row_.empty() || !columnValues_.empty() || header_->text().isEmpty())
      showData({}, {}, tr("Click a heatmap cell: its query row and key column show here."));
    return;
  }
  if (model_->isStreamed()) {
    // Recomputed from the kept q/k off the GUI thread: a column costs a pass over every row.
    auto source = std::make_shared<StreamedHeadSource>(model_->streamedStore(), model_->currentLayer(),
                                                       model_->currentHead());
    struct Cells {
      std::vector<float> row, column;
      std::string error;
    };
    auto out = std::make_shared<Cells>();
    job_->start(
        [source, out, row, col, n, nk] {
          if (row >= 0) {
            auto r = source->cells({row, row + 1, 0, nk});
            if (r)
              out->row = toVector(*r);
            else
              out->error = r.error().message;
          }
          if (col >= 0) {
            auto c = source->cells({0, n, col, col + 1});
            if (c)
              out->column = toVector(*c);
            else
              out->error = c.error().message;
          }
        },
        [this, out] {
          showData(std::move(out->row), std::move(out->column), QString::fromStdString(out->error));
        });
    return;
  }
  const auto* head = model_->currentHeadResult();
  if (!head || head->weights.size() == 0)
    return showData({}, {},
                    tr("This view keeps no weights (metrics only): there is no row or column to show."));
  const attn::Mat& w = head->weights;
  std::vector<float> r, c;
  if (row >= 0 && row < w.rows()) r = toVector(w.row(row));
  if (col >= 0 && col < w.cols()) c = toVector(w.col(col));
  showData(std::move(r), std::move(c), QString());
}

void RowColumnPanel::showData(std::vector<float> row, std::vector<float> column, const QString& error) {
  row_ = std::move(row);
  columnValues_ = std::move(column);
  top_.clear();
  const QStringList queries = model_->queryLabels(), keys = model_->keyLabels();
  const auto label = [](const QStringList& l, int i) {
    return i >= 0 && i < l.size() ? l[i] : QString::number(i);
  };
  const int r = queryRow();
  const int c = columnValues_.empty() ? -1 : column_;
  QStringList lines;
  if (!error.isEmpty()) lines << error;
  if (!row_.empty()) lines << tr("Query row %1 “%2”: its weight on each key").arg(r).arg(label(queries, r));
  if (c >= 0) lines << tr("Key column %1 “%2”: the weight each query gives it").arg(c).arg(label(keys, c));
  if (!row_.empty() || c >= 0)
    lines << tr("Layer %1, head %2").arg(model_->currentLayer() + 1).arg(model_->currentHead() + 1);
  header_->setText(lines.join(QLatin1Char('\n')));
  setCurve(rowPlot_, row_);
  setCurve(columnPlot_, columnValues_);
  if (!row_.empty()) {
    const Eigen::Map<const Eigen::RowVectorXf> weights(row_.data(), static_cast<Eigen::Index>(row_.size()));
    top_ = attn::topKeys(weights, topCount_->value());
  }
  table_->setRowCount(static_cast<int>(top_.size()));
  for (int i = 0; i < static_cast<int>(top_.size()); ++i) {
    const int key = top_[static_cast<size_t>(i)];
    table_->setItem(i, 0, new QTableWidgetItem(QString::number(key)));
    table_->setItem(i, 1, new QTableWidgetItem(label(keys, key)));
    table_->setItem(i, 2, new QTableWidgetItem(QString::number(row_[static_cast<size_t>(key)], 'f', 4)));
  }
}

}  // namespace attn::ui
