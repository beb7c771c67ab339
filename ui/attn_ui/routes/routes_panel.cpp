#include "attn_ui/routes/routes_panel.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/model_run_view.h"
#include "attn_ui/export/figure_export.h"
#include "attn_ui/export/figure_export_dialog.h"
#include "attn_ui/routes/routes_view.h"

namespace attn::ui {
namespace {

constexpr double kSliderScale = 1000.0;  // slider steps per unit of threshold
constexpr int kSliderMax = 500;          // routes above 0.5 are rarely more than the residual

const std::vector<attn::models::RouteEdge>& noEdges() {
  static const std::vector<attn::models::RouteEdge> none;
  return none;
}

}  // namespace

RoutesPanel::RoutesPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      position_(new QComboBox(this)),
      slider_(new QSlider(Qt::Horizontal, this)),
      spin_(new QDoubleSpinBox(this)),
      run_(new QPushButton(tr("Run"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      export_(new QPushButton(tr("Export Figure…"), this)),
      status_(new QLabel(this)),
      view_(new RoutesView(this)),
      poll_(new QTimer(this)),
      job_(std::make_unique<NewestJob>(this)) {
  setObjectName(QStringLiteral("RoutesPanel"));
  position_->setToolTip(tr("The token whose route is traced: the prediction made there"));
  position_->setMinimumContentsLength(10);
  position_->setPlaceholderText(tr("last token"));
  slider_->setRange(1, kSliderMax);
  spin_->setRange(0.001, 1.0);
  spin_->setDecimals(3);
  spin_->setSingleStep(0.005);
  const QString thresholdTip = tr(
      "Keep an edge when its share of its block's output is at least this (Ferrando & Voita 2024 use 0.04). "
      "Changing it traces the route again without a new run.");
  slider_->setToolTip(thresholdTip);
  spin_->setToolTip(thresholdTip);
  run_->setToolTip(tr("Compute every edge's importance for the main window's text"));
  cancel_->hide();
  status_->setWordWrap(true);
  status_->setTextFormat(Qt::PlainText);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Position"), this));
  top->addWidget(position_);
  top->addWidget(new QLabel(tr("Threshold"), this));
  top->addWidget(slider_, 1);
  top->addWidget(spin_);
  top->addWidget(run_);
  top->addWidget(cancel_);
  top->addWidget(export_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addLayout(top);
  layout->addWidget(status_);
  layout->addWidget(view_, 1);
  status_->setToolTip(
      tr("Information flow routes (Ferrando & Voita 2024): the parts of the forward pass that carry at least "
         "the threshold's share of each block's output, from the chosen token at the top down to the input "
         "tokens. Blue: attention heads; grey: the residual stream; orange: MLPs."));

  connect(slider_, &QSlider::valueChanged, this, [this](int v) { setThreshold(v / kSliderScale); });
  connect(spin_, &QDoubleSpinBox::valueChanged, this, &RoutesPanel::setThreshold);
  connect(position_, &QComboBox::currentIndexChanged, this, [this] { retrace(); });
  connect(run_, &QPushButton::clicked, this, &RoutesPanel::run);
  connect(cancel_, &QPushButton::clicked, this, &RoutesPanel::cancel);
  connect(export_, &QPushButton::clicked, this, &RoutesPanel::showExportDialog);
  connect(view_, &RoutesView::edgeClicked, this, [this](const attn::models::RouteEdge& e) {
    if (e.kind == attn::models::RouteEdgeKind::Head) model_->setCurrentLayerHead(e.layer, e.head);
  });
  poll_->setInterval(100);
  connect(poll_, &QTimer::timeout, this, [this] {
    const auto& c = job_->current();
    if (!c) return poll_->stop();
    const auto [stage, fraction] = c->progress();
    status_->setText(tr("%1… %2%").arg(stage).arg(qRound(100 * fraction)));
  });
  connect(model_, &ExplorerModel::modelChanged, this, [this] {
    job_->cancel();
    routes_.reset();  // another model's importances
    encoding_ = {};
    tokens_.clear();
    {
      const QSignalBlocker block(position_);
      position_->clear();
    }
    view_->setFigure({});
    const auto m = model_->modelPtr();
    QString why = m ? tr("Run traces the contribution graph of the main window's text.") : QString();
    if (m && !m->info().causal) {  // the core says which models it covers, at no cost for these
      const auto refused = m->flowRoutes(attn::models::Encoding{}, {});
      if (!refused) why = QString::fromStdString(refused.error().message);
    }
    setStatus(why);
    updateControls();
  });
  setThreshold(attn::models::FlowRouteOptions{}.threshold);
  setStatus(tr("Run traces the contribution graph of the main window's text."));
  updateControls();
}

RoutesPanel::~RoutesPanel() { job_->cancel(); }

double RoutesPanel::threshold() const { return spin_->value(); }
int RoutesPanel::position() const { return routes_ ? position_->currentIndex() : -1; }
void RoutesPanel::setPosition(int position) { position_->setCurrentIndex(position); }
QString RoutesPanel::status() const { return status_->text(); }
bool RoutesPanel::busy() const { return job_->busy(); }

const std::vector<attn::models::RouteEdge>& RoutesPanel::edges() const {
  return view_->figure().valid() ? view_->figure().edges : noEdges();
}

void RoutesPanel::setThreshold(double threshold) {
  {
    const QSignalBlocker a(spin_), b(slider_);
    spin_->setValue(threshold);
    slider_->setValue(static_cast<int>(std::lround(threshold * kSliderScale)));
  }
  retrace();
}

void RoutesPanel::setStatus(const QString& text) { status_->setText(text); }

void RoutesPanel::updateControls() {
  const bool running = job_->busy();
  const auto m = model_->modelPtr();
  run_->setEnabled(!running && m && m->info().causal);
  cancel_->setVisible(running);
  export_->setEnabled(routes_ != nullptr);
}

void RoutesPanel::run() {
  const auto m = model_->modelPtr();
  const auto base = model_->ownModelRun();
  if (!m || !base) return setStatus(tr("Open a causal language model and type a text first."));
  const attn::models::Encoding encoding = base->encoding;
  attn::models::FlowRouteOptions options;
  options.threshold = threshold();
  const bool sameText = routes_ && encoding.ids == encoding_.ids;
  options.position = sameText ? position_->currentIndex() : -1;
  if (!m->info().causal) {  // refused before any work
    const auto refused = m->flowRoutes(encoding, options);
    if (!refused) setStatus(QString::fromStdString(refused.error().message));
    return;
  }
  struct Out {
    std::shared_ptr<const attn::models::FlowRoutes> routes;
    QString error;
  };
  auto out = std::make_shared<Out>();
  last_ = job_->start(
      [m, encoding, options, out](JobControl& control) {
        auto r = m->flowRoutes(encoding, options,
                               [&control](double f, std::string_view s) { return control.report(f, s); });
        if (r)
          out->routes = std::make_shared<const attn::models::FlowRoutes>(std::move(*r));
        else
          out->error = QString::fromStdString(r.error().message);
      },
      [this, out, encoding, m] {
        updateControls();
        if (!out->routes) return setStatus(out->error);  // the graph shown stays
        showRoutes(out->routes, encoding, modelTokenLabels(m->tokenizer(), encoding));
      },
      tr("Tracing the contribution graph"));
  updateControls();
  poll_->start();
}

void RoutesPanel::cancel() {
  if (!job_->busy()) return;
  job_->cancel();
  updateControls();
  setStatus(routes_ ? tr("Cancelled; the graph shown is the one before.") : tr("Cancelled."));
}

void RoutesPanel::waitForIdle() {
  if (last_) last_->wait();
  QCoreApplication::processEvents();
  while (job_->busy()) {
    if (const auto& c = job_->current()) c->wait();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
}

void RoutesPanel::showRoutes(std::shared_ptr<const attn::models::FlowRoutes> routes,
                             attn::models::Encoding encoding, QStringList tokens) {
  routes_ = std::move(routes);
  encoding_ = std::move(encoding);
  tokens_ = std::move(tokens);
  {
    const QSignalBlocker block(position_);
    position_->clear();
    for (int i = 0; i < tokens_.size(); ++i) position_->addItem(tr("%1  %2").arg(i).arg(tokens_[i]));
    position_->setCurrentIndex(routes_->position);
  }
  updateControls();
  retrace();
}

void RoutesPanel::retrace() {
  if (!routes_) return;
  const int position = position_->currentIndex();
  RoutesFigure f;
  f.tokens = tokens_;
  f.layers = static_cast<int>(routes_->attnImportance.size());
  f.position = position;
  // The run's own route when nothing changed, else Algorithm 1 again on the same importances.
  f.edges = position == routes_->position && threshold() == routes_->threshold
                ? routes_->edges
                : attn::models::routeEdges(*routes_, position, threshold());
  f.title = tr("Contribution graph of token %1 “%2”, threshold %3")
                .arg(position)
                .arg(position >= 0 && position < f.tokens.size() ? f.tokens[position] : QString())
                .arg(threshold());
  setStatus(tr("%n edge(s). Hover an edge for its importance; click a head's edge to show that head.",
               nullptr, static_cast<int>(f.edges.size())));
  view_->setFigure(std::move(f));
}

bool RoutesPanel::exportFigure(const QString& path, const FigureOptions& options, QString* error) {
  if (!view_->figure().valid()) {
    if (error) *error = tr("Nothing to export yet: run the contribution graph first.");
    return false;
  }
  RoutesFigure f = view_->figure();
  if (!options.title.isEmpty()) f.title = options.title;
  QPalette paper;  // black on white, whatever the window's theme
  paper.setColor(QPalette::Base, Qt::white);
  paper.setColor(QPalette::Text, Qt::black);
  const auto st = writeFigure(
      path, options, [&f, &paper](QCPPainter& p, const QRect& r) { paintRoutes(p, QRectF(r), f, paper); });
  if (!st && error) *error = QString::fromStdString(st.error().message);
  return st.ok();
}

void RoutesPanel::showExportDialog() {
  FigureExportDialog dialog({tr("Contribution graph")}, 0, this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  if (!exportFigure(dialog.path(), dialog.options(), &error))
    QMessageBox::warning(this, tr("Export figure"), error);
}

}  // namespace attn::ui
