#include "attn_ui/spatial/graph_panel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>

#include "attn/graph/force_layout.h"
#include "attn_ui/export/figure_export.h"
#include "attn_ui/export/figure_export_dialog.h"

namespace attn::ui {

GraphPanel::GraphPanel(QWidget* parent)
    : QWidget(parent),
      open_(new QPushButton(tr("Open Graph…"), this)),
      example_(new QPushButton(tr("Example"), this)),
      export_(new QPushButton(tr("Export Figure…"), this)),
      heads_(new QSpinBox(this)),
      features_(new QSpinBox(this)),
      seed_(new QSpinBox(this)),
      combine_(new QComboBox(this)),
      head_(new QComboBox(this)),
      info_(new QLabel(this)),
      view_(new GraphAttentionView(this)) {
  setObjectName("GraphPanel");
  open_->setToolTip(tr("Open an edge list (.csv: source,target node indices from 0) or an .npz with 'adj' [N, N] "
                       "and/or node features 'x' [N, F]; up to 2,000 nodes."));
  example_->setToolTip(tr("The bundled example: three communities of six nodes."));
  export_->setToolTip(tr("Save the graph and heatmap as PNG, SVG or PDF."));
  heads_->setRange(1, 16);
  heads_->setValue(4);
  heads_->setToolTip(tr("Attention heads K, each with its own W and a (Velickovic et al. 2018, eq. 5)."));
  features_->setRange(1, 256);
  features_->setValue(8);
  features_->setToolTip(tr("Output features per head F' (W is F x F')."));
  seed_->setRange(0, 1000000);
  seed_->setValue(42);
  seed_->setToolTip(tr("Seed of the parameters W and a, and of the force-directed layout."));
  combine_->addItem(tr("Concatenate (hidden layer)"), "concat");
  combine_->addItem(tr("Average (output layer)"), "mean");
  combine_->setToolTip(tr("How heads are combined: concatenated after ELU (eq. 5) or averaged (eq. 6)."));
  head_->setToolTip(tr("The head whose attention is drawn."));
  view_->setToolTip(tr("Edges into the selected node (ringed) are drawn with opacity and width = its attention "
                       "weight alpha_ij = softmax_j LeakyReLU(a^T [W h_i || W h_j]); click a node to select it. "
                       "Right: the N x N weights, grey where there is no edge."));
  info_->setWordWrap(true);

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(open_);
  buttons->addWidget(example_);
  buttons->addStretch(1);
  buttons->addWidget(export_);
  auto* form = new QFormLayout;
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Heads"), this));
  row->addWidget(heads_);
  row->addWidget(new QLabel(tr("F'"), this));
  row->addWidget(features_);
  row->addWidget(new QLabel(tr("Seed"), this));
  row->addWidget(seed_);
  form->addRow(row);
  auto* row2 = new QHBoxLayout;
  row2->addWidget(combine_);
  row2->addWidget(new QLabel(tr("Show head"), this));
  row2->addWidget(head_);
  form->addRow(row2);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buttons);
  layout->addLayout(form);
  layout->addWidget(info_);
  layout->addWidget(view_, 1);

  connect(open_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open graph"), QString(),
                                                      tr("Graphs (*.csv *.npz);;All files (*)"));
    if (!path.isEmpty() && !openGraph(path)) QMessageBox::warning(this, tr("Open graph"), error_);
  });
  connect(example_, &QPushButton::clicked, this, &GraphPanel::openExample);
  connect(export_, &QPushButton::clicked, this, &GraphPanel::showExportDialog);
  for (QSpinBox* b : {heads_, features_, seed_}) connect(b, &QSpinBox::editingFinished, this, &GraphPanel::recompute);
  connect(combine_, &QComboBox::currentIndexChanged, this, &GraphPanel::recompute);
  connect(head_, &QComboBox::currentIndexChanged, this, [this](int h) {
    if (h >= 0) refreshView();
  });
  connect(view_, &GraphAttentionView::nodeClicked, this, &GraphPanel::setNode);
  refreshView();
}

bool GraphPanel::openGraph(const QString& path) {
  const std::string p = path.toStdString();
  attn::Result<attn::graph::GraphData> g = attn::Error{""};
  if (path.endsWith(".npz", Qt::CaseInsensitive)) {
    auto a = attn::graph::readGraphArrays(p);
    if (a) g = std::move(a->graph);
    else g = a.error();
  } else {
    g = attn::graph::readEdgeListCsv(p);
  }
  if (g && g->features.size() == 0) g->features = attn::graph::identityFeatures(g->numNodes);
  if (g)
    if (auto st = attn::graph::validateGraph(*g, p); !st) g = st.error();
  if (!g) {
    error_ = QString::fromStdString(g.error().message);
    info_->setText(error_);
    return false;
  }
  setGraph(std::move(g).value(), path);
  return result_.has_value();
}

void GraphPanel::openExample() { setGraph(attn::graph::exampleGraph(), tr("example graph")); }

void GraphPanel::setGraph(attn::graph::GraphData graph, const QString& source) {
  graph_ = std::move(graph);
  source_ = source;
  node_ = 0;
  layout_.resize(0, 0);
  recompute();
}

bool GraphPanel::recompute() {
  if (!graph_) return false;
  attn::graph::GatSpec spec;
  spec.heads = heads_->value();
  spec.outFeatures = features_->value();
  spec.seed = static_cast<uint64_t>(seed_->value());
  spec.combine = combine_->currentData().toString() == "mean" ? attn::graph::HeadCombine::Mean
                                                              : attn::graph::HeadCombine::Concat;
  auto r = attn::graph::runGat(*graph_, spec);
  if (!r) {
    error_ = QString::fromStdString(r.error().message);
    result_.reset();
    refreshView();
    return false;
  }
  error_.clear();
  result_ = std::move(r).value();
  heatHead_ = -1;
  layout_ = attn::graph::forceLayout(*graph_, {spec.seed, 0});
  const int keep = std::clamp(head_->currentIndex(), 0, spec.heads - 1);
  head_->blockSignals(true);
  head_->clear();
  for (int h = 0; h < spec.heads; ++h) head_->addItem(QString::number(h + 1));
  head_->setCurrentIndex(keep);
  head_->blockSignals(false);
  refreshView();
  return true;
}

void GraphPanel::setNode(int node) {
  if (!graph_ || node < 0 || node >= graph_->numNodes) return;
  node_ = node;
  refreshView();
}

void GraphPanel::setHead(int head) {
  if (head >= 0 && head < head_->count()) head_->setCurrentIndex(head);
}

void GraphPanel::refreshView() {
  export_->setEnabled(result_.has_value());
  if (!graph_ || !result_) {
    info_->setText(error_.isEmpty() ? tr("Open a graph (or the example) to see graph attention.") : error_);
    view_->setFigure({});
    emit changed();
    return;
  }
  const int h = std::max(0, head_->currentIndex());
  GraphAttentionFigure f;
  f.layout = layout_;
  f.edges = graph_->edges;
  f.weights = result_->weights[static_cast<size_t>(h)];
  f.keep = result_->keep;
  for (const auto& l : graph_->labels) f.labels << QString::fromStdString(l);
  f.groups = graph_->groups;
  f.node = node_;
  if (heatHead_ != h) {
    heat_ = graphHeatmapImage(f);
    heatHead_ = h;
  }
  f.heatmapImage = heat_;
  int degree = 0;
  for (int j = 0; j < graph_->numNodes; ++j) degree += result_->keep[static_cast<size_t>(node_) * graph_->numNodes + j];
  info_->setText(tr("%1: %2 nodes, %3 edges, %4 features. Node %5 attends over %6 nodes (itself included).")
                     .arg(QFileInfo(source_).fileName(), QString::number(graph_->numNodes),
                          QString::number(graph_->edges.size()), QString::number(graph_->features.cols()),
                          f.labels.value(node_), QString::number(degree)));
  view_->setFigure(std::move(f));
  emit changed();
}

bool GraphPanel::exportFigure(const QString& path, const FigureOptions& options, QString* error) {
  if (!result_) {
    if (error) *error = tr("Nothing to export yet.");
    return false;
  }
  GraphAttentionFigure f = view_->figure();
  f.colormap = options.colormap;
  f.heatmapImage = graphHeatmapImage(f);
  f.title = options.title.isEmpty() ? tr("GAT head %1 — attention of node %2").arg(head_->currentIndex() + 1).arg(f.labels.value(node_))
                                    : options.title;
  const auto st = writeFigure(path, options, [&f](QCPPainter& p, const QRect& r) { paintGraphAttention(p, r, f); });
  if (!st && error) *error = QString::fromStdString(st.error().message);
  return st.ok();
}

void GraphPanel::showExportDialog() {
  FigureExportDialog dialog({tr("Graph attention")}, 0, this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  if (!exportFigure(dialog.path(), dialog.options(), &error)) QMessageBox::warning(this, tr("Export figure"), error);
}

}  // namespace attn::ui
