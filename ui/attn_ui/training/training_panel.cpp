#include "attn_ui/training/training_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHideEvent>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/export/figure_export_dialog.h"
#include "attn_ui/theme/presentation_theme.h"
#include "attn_ui/training/training_config_form.h"
#include "attn_ui/training/training_curve_chart.h"
#include "attn_ui/training/training_demos.h"
#include "attn_ui/training/training_induction.h"

namespace attn::ui {

using attn::train::StepSnapshot;

namespace {

QStringList toQt(const std::vector<std::string>& v) {
  QStringList out;
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

QColor runColor(int r) { return r == 0 ? QColor(0x1f, 0x77, 0xb4) : r == 1 ? QColor(0xd6, 0x27, 0x28) : headColor(r + 2); }

QAction* makeAction(QWidget* owner, const QString& text, const QKeySequence& key, const QString& tip) {
  auto* a = new QAction(text, owner);
  a->setShortcut(key);
  a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
  owner->addAction(a);
  return a;
}

QToolButton* buttonFor(QAction* a, QWidget* parent) {
  auto* b = new QToolButton(parent);
  b->setDefaultAction(a);
  b->setToolButtonStyle(Qt::ToolButtonTextOnly);
  b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  return b;
}

}  // namespace

TrainingPanel::TrainingPanel(QWidget* parent)
    : QWidget(parent),
      controller_(new TrainingController(this)),
      form_(new TrainingConfigForm(this)),
      trainAct_(makeAction(this, tr("&Train"), QKeySequence(Qt::Key_F5),
                           tr("Train until paused or the step limit"))),
      pauseAct_(makeAction(this, tr("&Pause"), QKeySequence(Qt::Key_F6), tr("Pause training"))),
      stepAct_(makeAction(this, tr("&Step"), QKeySequence(Qt::Key_F10), tr("One update"))),
      resetAct_(makeAction(this, tr("&Reset"), QKeySequence(Qt::CTRL | Qt::Key_R),
                           tr("Back to step 0 (the same seed gives the same run)"))),
      demoText_(new QLabel(this)),
      demoTitle_(new QLabel(this)),
      runBox_(new QComboBox(this)),
      layerBox_(new QComboBox(this)),
      mapGrid_(nullptr),
      expected_(new HeatmapWidget(this)),
      loss_(new TrainingCurveChart(tr("Loss"), tr("cross-entropy + regularisation"), this)),
      accuracy_(new TrainingCurveChart(tr("Accuracy"), tr("tokens right"), this)),
      entropy_(new TrainingCurveChart(tr("Entropy per head"), tr("mean row entropy (nats)"), this)),
      grad_(new TrainingCurveChart(tr("Gradient norm of W_Q, W_K"), tr("L2 norm (log scale)"), this)),
      scores_(new TrainingCurveChart(tr("Head scores on the repeated example"),
                                     tr("score (1 = only that key)"), this)),
      scrubber_(new QSlider(Qt::Horizontal, this)),
      stepLabel_(new QLabel(this)),
      follow_(new QCheckBox(tr("Follow the newest step"), this)),
      status_(new QLabel(this)) {
  setObjectName(QStringLiteral("TrainingPanel"));
  setWindowTitle(tr("Training — watch attention learn"));
  accuracy_->setValueRange(0.0, 1.02);
  scores_->setValueRange(0.0, 1.02);
  scores_->setLegendAlignment(Qt::AlignRight | Qt::AlignVCenter);  // the scores end near 0 and near 1
  scores_->setVisible(false);
  grad_->setLogScale(true);
  expected_->setMinimumSize(150, 130);
  expected_->setColorScaleLabel(tr("weight"));
  scrubber_->setToolTip(tr("Replay any recorded step"));
  follow_->setChecked(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setWordWrap(true);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(buildSetup());
  split->addWidget(buildViews());
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(4, 4, 4, 4);
  outer->addWidget(split);

  connect(trainAct_, &QAction::triggered, this, &TrainingPanel::train);
  connect(pauseAct_, &QAction::triggered, this, &TrainingPanel::pause);
  connect(stepAct_, &QAction::triggered, this, &TrainingPanel::stepOnce);
  connect(resetAct_, &QAction::triggered, this, &TrainingPanel::reset);
  connect(controller_, &TrainingController::advanced, this, &TrainingPanel::onAdvanced);
  connect(controller_, &TrainingController::stateChanged, this, &TrainingPanel::onStateChanged);
  connect(controller_, &TrainingController::failed, this, [this](const QString& m) {
    message_ = m;
    updateStatus();
  });
  connect(form_, &TrainingConfigForm::configChanged, this, [this] {
    if (!controller_->isTraining()) applyForm();
  });
  connect(scrubber_, &QSlider::valueChanged, this, &TrainingPanel::scrubTo);
  connect(follow_, &QCheckBox::toggled, this, [this](bool on) {
    if (on) onAdvanced();
  });
  connect(runBox_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
    rebuildMaps();
    showStep(shown_);
    updateCurves();
  });
  connect(layerBox_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
    showStep(shown_);
    updateCurves();
  });
  applyForm();
}

TrainingPanel::~TrainingPanel() { controller_->pause(); }

QWidget* TrainingPanel::buildSetup() {
  auto* inner = new QWidget;
  auto* col = new QVBoxLayout(inner);
  auto* setup = new QGroupBox(tr("Setup"), inner);
  auto* setupLayout = new QVBoxLayout(setup);
  setupLayout->addWidget(form_);
  col->addWidget(setup);

  auto* buttons = new QGridLayout;
  buttons->addWidget(buttonFor(trainAct_, inner), 0, 0);
  buttons->addWidget(buttonFor(pauseAct_, inner), 0, 1);
  buttons->addWidget(buttonFor(stepAct_, inner), 1, 0);
  buttons->addWidget(buttonFor(resetAct_, inner), 1, 1);
  col->addLayout(buttons);

  auto* demos = new QGroupBox(tr("Demonstrations"), inner);
  auto* demoLayout = new QVBoxLayout(demos);
  for (const auto& d : attn::train::demonstrations()) {
    auto* b = new QPushButton(demoTitle(d), demos);
    b->setObjectName(QString::fromStdString("demo-" + d.id));
    b->setToolTip(demoExplanation(d));
    connect(b, &QPushButton::clicked, this, [this, d] { startDemonstration(d); });
    demoLayout->addWidget(b);
  }
  demoTitle_->setWordWrap(true);
  demoText_->setWordWrap(true);
  demoText_->setObjectName(QStringLiteral("demoExplanation"));
  demoLayout->addWidget(demoTitle_);
  demoLayout->addWidget(demoText_);
  col->addWidget(demos);

  exportBtn_ = new QPushButton(tr("Export…"), inner);
  auto* menu = new QMenu(exportBtn_);
  menu->addAction(tr("Curves or map snapshots (PNG, SVG, PDF)…"), this, [this] { showExportCurvesDialog(); });
  menu->addAction(tr("Animation (PNG frames, GIF)…"), this, &TrainingPanel::showExportAnimationDialog);
  exportBtn_->setMenu(menu);
  col->addWidget(exportBtn_);
  col->addStretch(1);

  auto* scroll = new QScrollArea;
  scroll->setWidget(inner);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(inner->sizeHint().width() + 24);
  // Keep references the header names (pushbuttons are tool buttons here).
  trainBtn_ = pauseBtn_ = stepBtn_ = resetBtn_ = nullptr;
  return scroll;
}

QWidget* TrainingPanel::buildViews() {
  auto* w = new QWidget;
  auto* col = new QVBoxLayout(w);
  col->setContentsMargins(0, 0, 0, 0);

  auto* pick = new QHBoxLayout;
  mapsOfLabel_ = new QLabel(tr("Maps of"), w);
  mapsOfLabel_->setVisible(false);
  pick->addWidget(mapsOfLabel_);
  pick->addWidget(runBox_);
  pick->addWidget(layerBox_);
  pick->addStretch(1);
  col->addLayout(pick);

  auto* maps = new QWidget(w);
  mapGrid_ = new QGridLayout(maps);
  mapGrid_->setContentsMargins(0, 0, 0, 0);
  col->addWidget(maps, 3);

  auto* scrub = new QHBoxLayout;
  scrub->addWidget(new QLabel(tr("Step"), w));
  scrub->addWidget(scrubber_, 1);
  stepLabel_->setMinimumWidth(stepLabel_->fontMetrics().horizontalAdvance(QStringLiteral("000000 / 000000")));
  scrub->addWidget(stepLabel_);
  scrub->addWidget(follow_);
  col->addLayout(scrub);

  auto* charts = new QGridLayout;
  charts->addWidget(loss_, 0, 0);
  charts->addWidget(accuracy_, 0, 1);
  charts->addWidget(entropy_, 1, 0);
  charts->addWidget(grad_, 1, 1);
  charts->addWidget(scores_, 1, 1);
  col->addLayout(charts, 4);
  col->addWidget(status_);
  return w;
}

int TrainingPanel::headMapCount() const { return static_cast<int>(heads_.size()); }
HeatmapWidget* TrainingPanel::headMap(int h) const { return heads_.at(static_cast<size_t>(h)); }
int TrainingPanel::shownRun() const { return std::clamp(runBox_->currentIndex(), 0, std::max(0, controller_->runCount() - 1)); }
int TrainingPanel::shownLayer() const { return std::max(0, layerBox_->currentIndex()); }

bool TrainingPanel::applyForm() {
  const attn::Status st = controller_->configure({{QString(), form_->config()}}, form_->stepLimit());
  if (!st) {
    message_ = QString::fromStdString(st.error().message);
    updateStatus();
    return false;
  }
  demoId_.clear();
  demoTitle_->clear();
  demoText_->clear();
  message_.clear();
  return true;
}

bool TrainingPanel::startDemonstration(const attn::train::Demonstration& demo) {
  std::vector<std::pair<QString, attn::train::TrainConfig>> runs;
  for (size_t i = 0; i < demo.runs.size(); ++i) runs.emplace_back(demoRunLabel(demo, static_cast<int>(i)), demo.runs[i].config);
  const attn::Status st = controller_->configure(runs, demo.steps);
  if (!st) {
    message_ = QString::fromStdString(st.error().message);
    updateStatus();
    return false;
  }
  message_.clear();
  demoId_ = QString::fromStdString(demo.id);
  form_->setConfig(demo.runs.front().config);
  form_->setStepLimit(demo.steps);
  demoTitle_->setText(QStringLiteral("<b>%1</b>").arg(demoTitle(demo).toHtmlEscaped()));
  demoText_->setText(demoExplanation(demo));
  follow_->setChecked(true);
  controller_->train();
  return true;
}

void TrainingPanel::train() {
  follow_->setChecked(true);
  controller_->setStepLimit(form_->stepLimit());
  controller_->train();
}
void TrainingPanel::pause() { controller_->pause(); }
void TrainingPanel::stepOnce() {
  follow_->setChecked(true);
  controller_->step();
}
void TrainingPanel::reset() {
  message_.clear();
  controller_->reset();
}

void TrainingPanel::hideEvent(QHideEvent* event) {
  if (!event->spontaneous()) controller_->pause();  // closing the window stops the worker
  QWidget::hideEvent(event);
}

void TrainingPanel::onStateChanged() {
  const bool busy = controller_->isTraining();
  trainAct_->setEnabled(!busy);
  pauseAct_->setEnabled(busy);
  stepAct_->setEnabled(!busy);
  form_->setEnabled(!busy);
  for (QPushButton* b : findChildren<QPushButton*>())
    if (b->objectName().startsWith(QStringLiteral("demo-"))) b->setEnabled(!busy);
  exportBtn_->setEnabled(!busy);
  // The run and layer pickers follow the runs' shape.
  {
    const QSignalBlocker b1(runBox_), b2(layerBox_);
    const int run = runBox_->currentIndex(), layer = layerBox_->currentIndex();
    runBox_->clear();
    for (int r = 0; r < controller_->runCount(); ++r)
      runBox_->addItem(controller_->run(r).label.isEmpty() ? tr("Run %1").arg(r + 1) : controller_->run(r).label);
    runBox_->setCurrentIndex(std::clamp(run, 0, std::max(0, runBox_->count() - 1)));
    runBox_->setVisible(controller_->runCount() > 1);
    layerBox_->clear();
    const int layers = controller_->runCount() ? controller_->run(shownRun()).config.layers : 1;
    for (int l = 0; l < layers; ++l) layerBox_->addItem(tr("layer %1").arg(l + 1));
    layerBox_->setCurrentIndex(std::clamp(layer, 0, std::max(0, layers - 1)));
    layerBox_->setVisible(layers > 1);
    mapsOfLabel_->setVisible(controller_->runCount() > 1 || layers > 1);
  }
  rebuildMaps();
  updateStatus();
}

void TrainingPanel::rebuildMaps() {
  if (controller_->runCount() == 0) return;
  const auto& run = controller_->run(shownRun());
  const int heads = run.config.heads;
  if (headMapCount() != heads) {
    for (HeatmapWidget* h : heads_) h->deleteLater();
    heads_.clear();
    mapGrid_->removeWidget(expected_);
    const int cols = heads + 1 <= 5 ? heads + 1 : (heads + 2) / 2;
    for (int h = 0; h < heads; ++h) {
      auto* m = new HeatmapWidget(mapGrid_->parentWidget());
      m->setMinimumSize(150, 130);
      m->setColormap(colormap_);
      m->setColorScaleLabel(tr("weight"));
      mapGrid_->addWidget(m, h / cols, h % cols);
      heads_.push_back(m);
    }
    mapGrid_->addWidget(expected_, heads / cols, heads % cols);
  }
  expected_->setMatrix(run.example.expected, toQt(run.example.queryLabels), toQt(run.example.keyLabels),
                       tr("Expected: %1").arg(trainingTaskTitle(run.config.task)), 0.0, 1.0);
  expected_->setToolTip(trainingTaskDescription(run.config.task));
}

void TrainingPanel::onAdvanced() {
  const int latest = controller_->latestStep();
  {
    const QSignalBlocker b(scrubber_);
    scrubber_->setRange(0, latest);
    if (follow_->isChecked()) scrubber_->setValue(latest);
  }
  showStep(follow_->isChecked() ? latest : std::min(shown_, latest));
  updateCurves();
}

void TrainingPanel::scrubTo(int step) {
  if (follow_->isChecked()) {
    const QSignalBlocker b(follow_);
    follow_->setChecked(false);
  }
  {
    const QSignalBlocker b(scrubber_);
    scrubber_->setValue(step);
  }
  showStep(step);
}

MapRow TrainingPanel::mapRowAt(int step, int* mapsStep) const {
  const StepSnapshot s = controller_->snapshotAt(shownRun(), step);
  MapRow row;
  row.caption = tr("step %1").arg(s.step);
  const int layer = std::min(shownLayer(), static_cast<int>(s.maps.size()) - 1);
  if (layer >= 0) row.maps = s.maps[static_cast<size_t>(layer)];
  if (mapsStep) *mapsStep = s.mapsStep;
  return row;
}

void TrainingPanel::showStep(int step) {
  if (controller_->runCount() == 0) return;
  shown_ = std::clamp(step, 0, controller_->latestStep());
  const auto& run = controller_->run(shownRun());
  const MapRow row = mapRowAt(shown_, &shownMapsStep_);
  const QStringList rows = toQt(run.example.queryLabels), cols = toQt(run.example.keyLabels);
  for (int h = 0; h < headMapCount() && h < static_cast<int>(row.maps.size()); ++h)
    heads_[static_cast<size_t>(h)]->setMatrix(row.maps[static_cast<size_t>(h)], rows, cols,
                                              tr("Head %1 · step %2").arg(h + 1).arg(shownMapsStep_), 0.0, 1.0);
  stepLabel_->setText(QStringLiteral("%1 / %2").arg(shown_).arg(controller_->latestStep()));
  updateMarkers();
  updateStatus();
}

void TrainingPanel::updateMarkers() {
  for (TrainingCurveChart* c : {loss_, accuracy_, entropy_, grad_, scores_})
    c->setMarker(follow_->isChecked() ? -1 : shown_);
}

void TrainingPanel::updateCurves() {
  QVector<CurveSeries> loss, acc, ent, grad;
  const int runs = controller_->runCount();
  const int layer = shownLayer();
  for (int r = 0; r < runs; ++r) {
    const auto& run = controller_->run(r);
    const QString label = run.label;
    const int heads = run.config.heads;
    CurveSeries l{runs > 1 ? label : tr("loss"), runColor(r), {}, {}, false};
    CurveSeries a{runs > 1 ? label : tr("accuracy"), runColor(r), {}, {}, false};
    CurveSeries g{runs > 1 ? label : tr("W_Q, W_K"), runColor(r), {}, {}, false};
    CurveSeries gAll{tr("whole gradient"), QColor(140, 140, 140), {}, {}, true};
    std::vector<CurveSeries> e(static_cast<size_t>(heads));
    for (int h = 0; h < heads; ++h)
      e[static_cast<size_t>(h)] = {runs > 1 ? tr("%1, head %2").arg(label).arg(h + 1) : tr("head %1").arg(h + 1),
                                   runs > 1 ? runColor(r) : headColor(h), {}, {}, runs > 1 && h > 0};
    const int n = static_cast<int>(run.steps.size());
    for (const StepSnapshot& s : run.steps) {
      const double x = s.step;
      l.steps << x;
      l.values << s.loss;
      // Accuracy, entropy and gradients describe the batch an update was computed on: steps 1.. have one.
      if (s.step > 0 || n == 1) {
        a.steps << x;
        a.values << s.accuracy;
        g.steps << x;
        g.values << s.gradNormQK;
        gAll.steps << x;
        gAll.values << s.gradNorm;
      }
      for (int h = 0; h < heads; ++h) {
        const size_t idx = static_cast<size_t>(layer * heads + h);
        if (idx < s.headEntropy.size()) {
          e[static_cast<size_t>(h)].steps << x;
          e[static_cast<size_t>(h)].values << s.headEntropy[idx];
        }
      }
    }
    loss << l;
    acc << a;
    grad << g;
    if (runs == 1) grad << gAll;
    for (auto& c : e) ent << c;
  }
  loss_->setSeries(loss);
  accuracy_->setSeries(acc);
  entropy_->setSeries(ent);
  grad_->setSeries(grad);
  if (runs > 0)
    entropy_->setReference(std::log(static_cast<double>(controller_->run(0).config.seqLen)),
                           tr("uniform: log N"));
  updateInductionCurves();
}

// The induction task swaps the gradient chart for the head scores and marks the
// phase change (Olsson et al. 2022) on the loss and score charts.
void TrainingPanel::updateInductionCurves() {
  const int runs = controller_->runCount();
  const bool induction = runs > 0 && controller_->run(0).config.task == attn::train::Task::Induction;
  grad_->setVisible(!induction);
  scores_->setVisible(induction);
  int phase = -1;
  if (induction) {
    QVector<CurveSeries> series;
    for (int r = 0; r < runs; ++r) {
      const auto& run = controller_->run(r);
      const InductionCurves c = inductionCurves(run, runs > 1 ? run.label : QString(), runColor(r));
      series << c.induction << c.previousToken;
      if (phase < 0) phase = c.phaseChangeStep;
    }
    scores_->setSeries(series);
  }
  const QString label = tr("phase change · step %1").arg(phase);
  loss_->setEvent(phase, label);
  scores_->setEvent(phase, label);
}

void TrainingPanel::updateStatus() {
  QString text;
  if (controller_->runCount() > 0) {
    const StepSnapshot s = controller_->snapshotAt(shownRun(), shown_);
    text = tr("Step %1 of %2 · loss %3 · accuracy %4%")
               .arg(s.step)
               .arg(controller_->latestStep())
               .arg(s.loss, 0, 'g', 4)
               .arg(100.0 * s.accuracy, 0, 'f', 1);
    const auto& shownRunView = controller_->run(shownRun());
    if (shownRunView.config.task == attn::train::Task::Induction) {
      double ind = 0, prev = 0;
      bestInductionScores(s, shownRunView.config.layers, shownRunView.config.heads, &ind, &prev);
      text += tr(" · induction score %1 (layer %2) · previous-token %3 (layer 1)")
                  .arg(ind, 0, 'f', 2)
                  .arg(shownRunView.config.layers)
                  .arg(prev, 0, 'f', 2);
    }
    if (controller_->stepsPerSecond() > 0)
      text += tr(" · %1 steps/s").arg(controller_->stepsPerSecond(), 0, 'f', 0);
    if (shownMapsStep_ != s.step) text += tr(" · maps of step %1 (kept every %n step(s))", "", controller_->run(shownRun()).mapEvery).arg(shownMapsStep_);
    if (controller_->isTraining()) text += tr(" · training…");
  }
  if (!message_.isEmpty()) text += QStringLiteral("\n") + message_;
  status_->setText(text);
}

QStringList TrainingPanel::mapColumnTitles() const {
  QStringList titles;
  if (controller_->runCount() == 0) return titles;
  for (int h = 0; h < controller_->run(shownRun()).config.heads; ++h) titles << tr("Head %1").arg(h + 1);
  titles << tr("expected");
  return titles;
}

std::vector<int> TrainingPanel::sampledSteps(int count) const {
  const int latest = controller_->latestStep();
  std::vector<int> out;
  if (count <= 1) return {latest};
  for (int i = 0; i < count; ++i) {
    const int s = static_cast<int>(std::lround(static_cast<double>(i) * latest / (count - 1)));
    if (out.empty() || out.back() != s) out.push_back(s);
  }
  return out;
}

attn::Status TrainingPanel::exportCurves(const QString& path, const FigureOptions& options) {
  if (controller_->runCount() == 0) return attn::Error{path.toStdString() + ": nothing trained yet"};
  updateCurves();
  const std::vector<TrainingCurveChart*> charts{loss_, accuracy_, entropy_, grad_};
  for (TrainingCurveChart* c : charts) c->setMarker(-1);
  const attn::Status st = writeFigure(path, options, [&](QCPPainter& p, const QRect& target) {
    const int titleH = options.title.isEmpty() ? 0 : 28;
    if (titleH) {
      QFont f = p.font();
      f.setPointSizeF(12);
      f.setBold(true);
      p.setFont(f);
      p.setPen(Qt::black);
      p.drawText(QRect(target.left(), target.top(), target.width(), titleH), Qt::AlignCenter, options.title);
    }
    const int w = target.width() / 2, h = (target.height() - titleH) / 2;
    for (int i = 0; i < 4; ++i)
      livePlotPainter(*charts[static_cast<size_t>(i)])(
          p, QRect(target.left() + (i % 2) * w, target.top() + titleH + (i / 2) * h, w, h));
  });
  updateMarkers();
  return st;
}

attn::Status TrainingPanel::exportSnapshotGrid(const QString& path, const FigureOptions& options, int rows) {
  if (controller_->runCount() == 0) return attn::Error{path.toStdString() + ": nothing trained yet"};
  std::vector<MapRow> grid;
  for (int s : sampledSteps(std::max(1, rows))) grid.push_back(mapRowAt(s, nullptr));
  const auto& run = controller_->run(shownRun());
  FigureOptions o = options;
  if (o.title.isEmpty()) {
    o.title = tr("%1: the attention map forming").arg(trainingTaskTitle(run.config.task));
    if (!run.label.isEmpty()) o.title += QStringLiteral(" (%1)").arg(run.label);
  }
  return exportMapGrid(grid, &run.example.expected, mapColumnTitles(), toQt(run.example.keyLabels), path, o);
}

attn::Result<QStringList> TrainingPanel::exportAnimation(const QString& dir, int frames, bool gif, QString* gifNote) {
  if (controller_->runCount() == 0) return attn::Error{dir.toStdString() + ": nothing trained yet"};
  const auto& run = controller_->run(shownRun());
  const QStringList titles = mapColumnTitles();
  const int heads = run.config.heads;
  const QSize size(heads > 1 ? 620 : 560, 90 + 236 * heads);
  std::vector<QImage> images;
  for (int step : sampledSteps(std::max(1, frames))) {
    const MapRow row = mapRowAt(step, nullptr);
    const StepSnapshot s = controller_->snapshotAt(shownRun(), step);
    const QString title = tr("%1 — step %2 · loss %3 · accuracy %4%")
                              .arg(trainingTaskTitle(run.config.task))
                              .arg(step)
                              .arg(s.loss, 0, 'f', 3)
                              .arg(100.0 * s.accuracy, 0, 'f', 0);
    images.push_back(renderMapFrame(row, &run.example.expected, titles, toQt(run.example.keyLabels), colormap_, size, title));
  }
  auto written = writeFramePngs(images, dir);
  if (!written) return written.error();
  QStringList files = *written;
  if (gif) {
    const QString gifPath = QDir(dir).filePath(QStringLiteral("training.gif"));
    if (imageMagickProgram().isEmpty()) {
      if (gifNote) *gifNote = tr("No GIF: ImageMagick (convert) is not installed; the PNG frames are written.");
    } else if (auto st = writeGifWithImageMagick(files, gifPath, 120); !st) {
      if (gifNote) *gifNote = QString::fromStdString(st.error().message);
    } else {
      files << gifPath;
    }
  }
  return files;
}

void TrainingPanel::showExportCurvesDialog() {
  FigureExportDialog dialog({tr("Training curves (loss, accuracy, entropy, gradient norm)"),
                             tr("Map snapshots over training (grid)")},
                            0, this);
  dialog.setPath(QDir::home().filePath(QStringLiteral("training.png")));
  if (dialog.exec() != QDialog::Accepted) return;
  const attn::Status st = dialog.view() == 0 ? exportCurves(dialog.path(), dialog.options())
                                             : exportSnapshotGrid(dialog.path(), dialog.options());
  if (!st)
    QMessageBox::warning(this, tr("Export"), QString::fromStdString(st.error().message));
  else
    status_->setText(tr("Wrote %1").arg(dialog.path()));
}

void TrainingPanel::showExportAnimationDialog() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the animation frames"), QDir::homePath());
  if (dir.isEmpty()) return;
  QString note;
  auto files = exportAnimation(dir, 60, true, &note);
  if (!files) {
    QMessageBox::warning(this, tr("Export"), QString::fromStdString(files.error().message));
    return;
  }
  status_->setText(tr("Wrote %n file(s) to %1", "", static_cast<int>(files->size())).arg(dir) +
                   (note.isEmpty() ? QString() : QStringLiteral("\n") + note));
}

}  // namespace attn::ui
