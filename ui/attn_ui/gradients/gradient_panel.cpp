#include "attn_ui/gradients/gradient_panel.h"

#include <qcustomplot.h>

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "attn/models/single_token.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/common/core_text.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/model_run_view.h"
#include "attn_ui/export/figure_export_dialog.h"
#include "attn_ui/patching/token_count.h"
#include "attn_ui/theme/plot_theme.h"

namespace attn::ui {

GradientPanel::GradientPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      target_(new QLineEdit(this)),
      targetCount_(new QLabel(this)),
      position_(new QSpinBox(this)),
      steps_(new QSpinBox(this)),
      run_(new QPushButton(tr("Run"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      export_(new QPushButton(tr("Export Figure…"), this)),
      status_(new QLabel(this)),
      sums_(new QLabel(this)),
      chart_(new QCustomPlot(this)),
      poll_(new QTimer(this)),
      job_(std::make_unique<NewestJob>(this)) {
  setObjectName(QStringLiteral("GradientPanel"));
  target_->setToolTip(
      tr("The token whose logit is explained: one token, with its leading space where the "
         "vocabulary has one (\" Mary\"), or #ID. Filled with the model's prediction."));
  position_->setRange(-1, 4095);
  position_->setSpecialValueText(tr("last / first [MASK]"));
  position_->setValue(-1);
  position_->setToolTip(tr("The position whose logit is explained (0-based)"));
  steps_->setRange(1, 4096);
  steps_->setValue(32);
  steps_->setToolTip(tr("Integrated gradients: backward passes along the path from the zero embedding"));
  run_->setToolTip(tr("Compute the gradients (Ctrl+Return)"));
  cancel_->setEnabled(false);
  export_->setEnabled(false);
  export_->setToolTip(tr("Save the bars as PNG, SVG or PDF."));
  for (QLabel* l : {status_, sums_}) {
    l->setWordWrap(true);
    l->setTextFormat(Qt::PlainText);
  }
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Target"), this));
  controls->addWidget(target_, 2);
  controls->addWidget(targetCount_);
  controls->addWidget(new QLabel(tr("Position"), this));
  controls->addWidget(position_);
  controls->addWidget(new QLabel(tr("Steps"), this));
  controls->addWidget(steps_);
  for (QPushButton* b : {run_, cancel_, export_}) controls->addWidget(b);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addLayout(controls);
  layout->addWidget(status_);
  layout->addWidget(sums_);
  layout->addWidget(chart_, 1);
  chart_->setMinimumHeight(160);
  chart_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  chart_->yAxis->setLabel(tr("attribution (logit units)"));
  followPalette(chart_);
  setToolTip(
      tr("Gradient attribution of one logit to the input tokens: gradient × input and integrated "
         "gradients (Sundararajan et al. 2017); attention × gradient (Chefer et al. 2021) in the "
         "heatmap's Maps selector."));

  auto* shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), this);
  shortcut->setContext(Qt::WidgetWithChildrenShortcut);
  connect(shortcut, &QShortcut::activated, this, &GradientPanel::run);
  connect(run_, &QPushButton::clicked, this, &GradientPanel::run);
  connect(cancel_, &QPushButton::clicked, this, &GradientPanel::cancel);
  connect(export_, &QPushButton::clicked, this, &GradientPanel::showExportDialog);
  connect(target_, &QLineEdit::textChanged, this, &GradientPanel::updateCount);
  connect(target_, &QLineEdit::textEdited, this, [this] { targetEdited_ = !target_->text().isEmpty(); });
  poll_->setInterval(100);
  connect(poll_, &QTimer::timeout, this, [this] {
    const auto& c = job_->current();
    if (!c) return poll_->stop();
    const auto [stage, fraction] = c->progress();
    status_->setText(tr("%1… %2%").arg(stage).arg(qRound(100 * fraction)));
  });
  connect(model_, &ExplorerModel::modelChanged, this, &GradientPanel::followModel);
  connect(model_, &ExplorerModel::resultChanged, this, &GradientPanel::followText);
  followModel();
}

GradientPanel::~GradientPanel() { job_->cancel(); }

bool GradientPanel::busy() const { return job_->busy(); }

void GradientPanel::waitForIdle() {
  while (job_->busy()) {
    if (const auto& c = job_->current()) c->wait();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
}

void GradientPanel::setStatus(const QString& text, bool error) {
  statusText_ = text;
  status_->setText(text);
  status_->setStyleSheet(error ? QStringLiteral("QLabel { color: #b3261e; }") : QString());
}

void GradientPanel::updateCount() {
  const auto m = model_->modelPtr();
  const int n = m ? answerTokenCount(*m, target_->text().toStdString()) : -1;
  targetCount_->setText(n < 0 ? QString() : n == 1 ? tr("1 token") : tr("%1 tokens").arg(n));
  targetCount_->setStyleSheet(n == 1 || n < 0 ? QString() : QStringLiteral("QLabel { color: #b3261e; }"));
}

void GradientPanel::followModel() {
  job_->cancel();
  cancel_->setEnabled(false);
  result_.reset();
  tokens_.clear();
  sumsText_.clear();
  sums_->clear();
  targetEdited_ = false;
  target_->clear();
  export_->setEnabled(false);
  drawBars();
  run_->setEnabled(model_->hasModel());
  setStatus(model_->hasModel()
                ? tr("Run (Ctrl+Return) explains the target's logit by the input tokens.")
                : tr("Open a model (GPT-2, the Llama family, a BERT masked LM) to compute gradients."));
  followText();
}

// The model's own prediction at the last position as the default target.
void GradientPanel::followText() {
  const auto m = model_->modelPtr();
  const auto run = model_->ownModelRun();
  if (!m || !run || targetEdited_ || run->nextTokens.empty() || run->nextTokens.back().empty()) return;
  const auto& top = run->nextTokens.back().front();
  const QString text = QString::fromStdString(top.token);
  target_->setText(answerTokenCount(*m, top.token) == 1 ? text : QStringLiteral("#%1").arg(top.id));
}

void GradientPanel::run() {
  const auto model = model_->modelPtr();
  const auto base = model_->ownModelRun();
  if (!model) return;
  if (!base) return setStatus(tr("Type a text in the Input panel first."), true);
  auto target =
      attn::models::singleTokenId(*model, target_->text().toStdString(), tr("Target").toStdString());
  if (!target) return setStatus(uiMessage(target.error().message), true);
  attn::models::GradientOptions options;
  options.steps = steps_->value();
  options.position = position_->value();
  struct Out {
    std::shared_ptr<const attn::models::GradientAttribution> result;
    QString error;
  };
  auto out = std::make_shared<Out>();
  const QStringList tokens = modelTokenLabels(model->tokenizer(), base->encoding);
  job_->start(
      [model, base, t = *target, options, out](JobControl& control) {
        auto res = model->gradients(base->encoding, t, options, [&control](double f, std::string_view s) {
          return control.report(f, s);
        });
        if (res)
          out->result = std::make_shared<attn::models::GradientAttribution>(std::move(res).value());
        else
          out->error = uiMessage(res.error().message);
      },
      [this, out, tokens, base] {
        cancel_->setEnabled(false);
        if (!out->result) return setStatus(out->error, true);  // the bars shown stay
        showResult(out->result, tokens);
        emit attentionGradientReady(out->result, base);
      },
      tr("Backward passes"));
  cancel_->setEnabled(true);
  setStatus(tr("Backward passes…"));
  poll_->start();
}

void GradientPanel::cancel() {
  if (!job_->busy()) return;
  job_->cancel();
  cancel_->setEnabled(false);
  setStatus(result_ ? tr("Cancelled; the bars are the previous run's.") : tr("Cancelled."));
}

void GradientPanel::showResult(std::shared_ptr<const attn::models::GradientAttribution> result,
                               QStringList tokens) {
  result_ = std::move(result);
  tokens_ = std::move(tokens);
  const auto& g = *result_;
  const QString at = g.position < tokens_.size() ? tokens_[g.position] : QString();
  setStatus(tr("The logit of %1 at position %2 (“%3”), explained by each input token. Attention × gradient: "
               "heatmap tool bar, Maps.")
                .arg(QStringLiteral("“%1”").arg(target_->text()))
                .arg(g.position)
                .arg(at));
  sumsText_ =
      tr("Σ gradient × input %1; Σ integrated gradients %2 (%3 steps) vs logit − baseline logit %4 − %5 = %6 "
         "(completeness).")
          .arg(static_cast<double>(g.gradXInput.sum()), 0, 'f', 3)
          .arg(static_cast<double>(g.integratedGradients.sum()), 0, 'f', 3)
          .arg(steps_->value())
          .arg(g.targetLogit, 0, 'f', 3)
          .arg(g.baselineLogit, 0, 'f', 3)
          .arg(g.targetLogit - g.baselineLogit, 0, 'f', 3);
  sums_->setText(sumsText_);
  export_->setEnabled(true);
  drawBars();
}

void GradientPanel::drawBars() {
  chart_->clearPlottables();
  for (auto* old : chart_->findChildren<QCPBarsGroup*>()) delete old;
  chart_->legend->setVisible(result_ != nullptr);
  if (!result_) {
    chart_->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  const auto& g = *result_;
  const int n = static_cast<int>(g.gradXInput.size());
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < n; ++i) ticker->addTick(i, i < tokens_.size() ? tokens_[i] : QString::number(i));
  chart_->xAxis->setTicker(ticker);
  chart_->xAxis->setTickLabelRotation(n > 8 ? 45 : 0);
  chart_->xAxis->setSubTicks(false);
  chart_->xAxis->setRange(-0.6, n - 0.4);
  auto* group = new QCPBarsGroup(chart_);
  struct Series {
    const attn::Vec* values;
    QString name;
    QColor colour;
  };
  const Series series[] = {{&g.gradXInput, tr("gradient × input"), QColor(0x2166ac)},
                           {&g.integratedGradients, tr("integrated gradients"), QColor(0xd6604d)}};
  double lo = 0, hi = 0;
  for (const Series& s : series) {
    if (s.values->size() != n) continue;
    auto* bars = new QCPBars(chart_->xAxis, chart_->yAxis);
    bars->setName(s.name);
    bars->setWidth(0.38);
    bars->setBrush(s.colour);
    bars->setPen(Qt::NoPen);
    bars->setBarsGroup(group);
    QVector<double> keys, values;
    for (int i = 0; i < n; ++i) {
      keys << i;
      values << (*s.values)(i);
      lo = std::min(lo, values.back());
      hi = std::max(hi, values.back());
    }
    bars->setData(keys, values, true);
  }
  const double pad = 0.08 * std::max(1e-6, hi - lo);
  chart_->yAxis->setRange(lo - pad, hi + pad);
  chart_->replot(QCustomPlot::rpQueuedReplot);
}

bool GradientPanel::exportFigure(const QString& path, const FigureOptions& options, QString* error) {
  if (!result_) {
    if (error) *error = tr("Nothing to export yet: compute the gradients first.");
    return false;
  }
  const auto st = writeFigure(path, options, livePlotPainter(*chart_));
  if (!st && error) *error = QString::fromStdString(st.error().message);
  return st.ok();
}

void GradientPanel::showExportDialog() {
  FigureExportDialog dialog({tr("Gradient × input and integrated gradients")}, 0, this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  if (!exportFigure(dialog.path(), dialog.options(), &error))
    QMessageBox::warning(this, tr("Export figure"), error);
}

}  // namespace attn::ui
