#include "attn_ui/spatial/qk_geometry_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>

#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/window/hidden_panel_gate.h"
#include "attn_ui/export/figure_export.h"
#include "attn_ui/export/figure_export_dialog.h"

namespace attn::ui {

QkGeometryPanel::QkGeometryPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      topK_(new QSpinBox(this)),
      export_(new QPushButton(tr("Export Figure…"), this)),
      message_(new QLabel(this)),
      view_(new QkGeometryView(this)) {
  setObjectName("QkGeometryPanel");
  topK_->setRange(1, 20);
  topK_->setValue(3);
  topK_->setToolTip(tr("How many of the hovered query's highest-weight keys are joined to it."));
  export_->setToolTip(tr("Save the scatter as PNG, SVG or PDF."));
  view_->setToolTip(tr("The head's queries (blue) and keys (orange) projected together to 2-D by PCA, after "
                       "AttentionViz's normalization (keys translated to the queries' mean, norms matched; the "
                       "weights are unchanged). Hover a query to join it to its top keys."));
  message_->setWordWrap(true);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Top keys"), this));
  row->addWidget(topK_);
  row->addStretch(1);
  row->addWidget(export_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(row);
  layout->addWidget(message_);
  layout->addWidget(view_, 1);
  auto* gate = new HiddenPanelGate(this, [this] { refresh(); });  // an SVD per change, on this thread
  connect(model_, &ExplorerModel::resultChanged, gate, &HiddenPanelGate::request);
  connect(model_, &ExplorerModel::currentHeadChanged, gate, &HiddenPanelGate::request);
  connect(model_, &ExplorerModel::pinnedRowChanged, view_, &QkGeometryView::setHighlightedQuery);
  connect(topK_, &QSpinBox::valueChanged, this, &QkGeometryPanel::refresh);
  connect(export_, &QPushButton::clicked, this, &QkGeometryPanel::showExportDialog);
  refresh();
}

QString QkGeometryPanel::message() const { return message_->text(); }

void QkGeometryPanel::refresh() {
  const attn::HeadResult* head = model_->hasResult() ? model_->currentHeadResult() : nullptr;
  export_->setEnabled(false);
  if (!head) {
    message_->setText(tr("No result yet."));
    view_->setFigure({});
    return;
  }
  if (head->q.size() == 0 || head->k.size() == 0) {
    message_->setText(tr("This result has no queries and keys (precomputed weights): nothing to project."));
    view_->setFigure({});
    return;
  }
  auto g = attn::qkGeometry(head->q, head->k);
  if (!g) {
    message_->setText(QString::fromStdString(g.error().message));
    view_->setFigure({});
    return;
  }
  QkGeometryFigure f;
  f.geometry = std::move(g).value();
  f.queryLabels = model_->queryLabels();
  f.keyLabels = model_->keyLabels();
  f.weights = head->weights;
  f.topK = topK_->value();
  f.query = model_->pinnedRow() >= 0 ? model_->pinnedRow() : view_->figure().query;
  if (f.query >= f.geometry.numQueries) f.query = -1;
  message_->setText(tr("Head %1: %2 queries, %3 keys; PC1 and PC2 hold %4% of the variance.")
                        .arg(model_->currentHead() + 1)
                        .arg(f.geometry.numQueries)
                        .arg(f.geometry.numKeys)
                        .arg(100 * (f.geometry.explained[0] + f.geometry.explained[1]), 0, 'f', 1));
  view_->setFigure(std::move(f));
  export_->setEnabled(true);
}

bool QkGeometryPanel::exportFigure(const QString& path, const FigureOptions& options, QString* error) {
  if (!view_->figure().valid()) {
    if (error) *error = tr("Nothing to export yet.");
    return false;
  }
  QkGeometryFigure f = view_->figure();
  f.title = options.title.isEmpty() ? tr("Query–key geometry, head %1").arg(model_->currentHead() + 1) : options.title;
  const auto st = writeFigure(path, options, [&f](QCPPainter& p, const QRect& r) { paintQkGeometry(p, r, f); });
  if (!st && error) *error = QString::fromStdString(st.error().message);
  return st.ok();
}

void QkGeometryPanel::showExportDialog() {
  FigureExportDialog dialog({tr("Query–key geometry")}, 0, this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  if (!exportFigure(dialog.path(), dialog.options(), &error)) QMessageBox::warning(this, tr("Export figure"), error);
}

}  // namespace attn::ui
