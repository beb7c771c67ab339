#include "attn_ui/patching/patching_panel.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QTabWidget>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <utility>

#include "attn/models/single_token.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/common/core_text.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/model_run_view.h"
#include "attn_ui/export/figure_export_dialog.h"
#include "attn_ui/patching/token_count.h"

namespace attn::ui {
namespace {

struct PatchExample {
  const char *clean, *corrupt, *target, *foil;
};

// The indirect-object template of Wang et al. 2023 first (with names a small English vocabulary
// such as the bundled Austen model's keeps whole), then the factual-recall pair of Meng et al. 2022; the
// first whose texts have one token count and whose answers are one token each on the loaded tokenizer fills
// the fields.
constexpr PatchExample kPatchExamples[] = {
    {"When Mary and John went to the store, John gave a drink to",
     "When Mary and John went to the store, Mary gave a drink to", " Mary", " John"},
    {"When Elizabeth and Jane went to the ball, Jane gave a letter to",
     "When Elizabeth and Jane went to the ball, Elizabeth gave a letter to", " Elizabeth", " Jane"},
    {"The Eiffel Tower is in the city of", "The Colosseum is in the city of", " Paris", " Rome"},
    {"The cat sat on the mat, and it was", "The dog sat on the mat, and it was", " happy", " tired"},
};

/// Largest |value| of the map, at least 1: the diverging scale spans [-m, m], so 1 (all of the
/// difference recovered) is saturated unless a patch overshoots.
double symmetricBound(const attn::Mat& m) {
  double bound = 1.0;
  for (Eigen::Index i = 0; i < m.size(); ++i)
    if (std::isfinite(m.data()[i])) bound = std::max(bound, std::abs(static_cast<double>(m.data()[i])));
  return bound;
}

}  // namespace

PatchingPanel::PatchingPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      clean_(new QLineEdit(this)),
      corrupt_(new QLineEdit(this)),
      target_(new QLineEdit(this)),
      foil_(new QLineEdit(this)),
      cleanCount_(new QLabel(this)),
      corruptCount_(new QLabel(this)),
      targetCount_(new QLabel(this)),
      foilCount_(new QLabel(this)),
      residual_(new QCheckBox(tr("Residual stream"), this)),
      heads_(new QCheckBox(tr("Heads"), this)),
      mlp_(new QCheckBox(tr("MLP"), this)),
      run_(new QPushButton(tr("Run"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      export_(new QPushButton(tr("Export Figure…"), this)),
      status_(new QLabel(this)),
      diffs_(new QLabel(this)),
      tabs_(new QTabWidget(this)),
      residualMap_(new HeatmapWidget(this)),
      headsMap_(new HeatmapWidget(this)),
      mlpMap_(new HeatmapWidget(this)),
      poll_(new QTimer(this)),
      job_(std::make_unique<NewestJob>(this)) {
  setObjectName(QStringLiteral("PatchingPanel"));
  clean_->setToolTip(tr("The clean text: the model predicts the target after it."));
  corrupt_->setToolTip(tr("The corrupt text: the same number of tokens, changed where it matters."));
  target_->setToolTip(
      tr("One token, with its leading space where the vocabulary has one (\" Mary\"), or #ID."));
  foil_->setToolTip(target_->toolTip());
  for (QCheckBox* box : {residual_, heads_, mlp_}) box->setChecked(true);
  residual_->setToolTip(tr("The residual stream entering each layer, one position at a time"));
  heads_->setToolTip(tr("Each head's output at every position"));
  mlp_->setToolTip(tr("Each layer's MLP output, one position at a time"));
  run_->setToolTip(tr("Patch every chosen site (Ctrl+Return)"));
  cancel_->setEnabled(false);
  export_->setEnabled(false);
  export_->setToolTip(tr("Save the shown map as PNG, SVG or PDF."));
  status_->setWordWrap(true);
  status_->setTextFormat(Qt::PlainText);
  diffs_->setWordWrap(true);
  diffs_->setTextFormat(Qt::PlainText);

  buildLayout();
  connectControls();
  followModel();
}

PatchingPanel::~PatchingPanel() { job_->cancel(); }

void PatchingPanel::buildLayout() {
  auto* form = new QGridLayout;
  form->setContentsMargins(0, 0, 0, 0);
  const auto addRow = [form](int row, const QString& label, QLineEdit* edit, QLabel* count) {
    form->addWidget(new QLabel(label), row, 0);
    form->addWidget(edit, row, 1);
    form->addWidget(count, row, 2);
  };
  addRow(0, tr("Clean"), clean_, cleanCount_);
  addRow(1, tr("Corrupt"), corrupt_, corruptCount_);
  addRow(2, tr("Target"), target_, targetCount_);
  addRow(3, tr("Foil"), foil_, foilCount_);
  form->setColumnStretch(1, 1);
  auto* sites = new QHBoxLayout;
  for (QCheckBox* box : {residual_, heads_, mlp_}) sites->addWidget(box);
  sites->addStretch(1);
  auto* buttons = new QHBoxLayout;
  for (QPushButton* b : {run_, cancel_, export_}) buttons->addWidget(b);
  buttons->addStretch(1);
  auto* left = new QVBoxLayout;
  left->addLayout(form);
  left->addLayout(sites);
  left->addLayout(buttons);
  left->addWidget(status_);
  left->addWidget(diffs_);
  left->addStretch(1);
  auto* leftBox = new QWidget(this);
  leftBox->setLayout(left);
  leftBox->setMaximumWidth(460);
  tabs_->addTab(residualMap_, tr("Residual stream"));
  tabs_->addTab(headsMap_, tr("Heads"));
  tabs_->addTab(mlpMap_, tr("MLP"));
  tabs_->setCurrentIndex(1);
  for (HeatmapWidget* m : {residualMap_, headsMap_, mlpMap_}) {
    m->setColormap(QStringLiteral("diverging"));
    m->setColorScaleLabel(tr("recovered"));
    m->yAxis->setLabel(tr("layer"));
    m->xAxis->setLabel(m == headsMap_ ? tr("head") : tr("token of the clean text"));
  }
  // A map drawn while its tab was hidden thinned its labels for the size it had then.
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    QTimer::singleShot(0, this, [this] {
      if (auto* m = qobject_cast<HeatmapWidget*>(tabs_->currentWidget())) m->replot();
      drawMaps();
    });
  });
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addWidget(leftBox, 2);
  layout->addWidget(tabs_, 5);
  setToolTip(tr(
      "Activation patching: the corrupt text runs with one activation taken from the clean text's run; each "
      "cell is the share of the clean − corrupt logit difference (target − foil, last position) it brings "
      "back: 1 all of it, 0 nothing (Meng et al. 2022; Wang et al. 2023)."));
}

void PatchingPanel::connectControls() {
  auto* shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), this);
  shortcut->setContext(Qt::WidgetWithChildrenShortcut);
  connect(shortcut, &QShortcut::activated, this, &PatchingPanel::run);
  connect(run_, &QPushButton::clicked, this, &PatchingPanel::run);
  connect(cancel_, &QPushButton::clicked, this, &PatchingPanel::cancel);
  connect(export_, &QPushButton::clicked, this, &PatchingPanel::showExportDialog);
  for (QLineEdit* e : {clean_, corrupt_, target_, foil_})
    connect(e, &QLineEdit::textChanged, this, &PatchingPanel::updateCounts);
  poll_->setInterval(100);
  connect(poll_, &QTimer::timeout, this, [this] {
    const auto& c = job_->current();
    if (!c) return poll_->stop();
    const auto [stage, fraction] = c->progress();
    status_->setText(tr("%1… %2%").arg(stage).arg(qRound(100 * fraction)));
  });
  const auto hover = [this](Site site, HeatmapWidget* map) {
    connect(map, &HeatmapWidget::cellHovered, this, [this, site, map](int row, int col, const QPoint& at) {
      QToolTip::showText(at, cellDetails(site, row, col), map);
    });
    connect(map, &HeatmapWidget::hoverLeft, this, [] { QToolTip::hideText(); });
  };
  hover(Site::Residual, residualMap_);
  hover(Site::Heads, headsMap_);
  hover(Site::Mlp, mlpMap_);
  connect(headsMap_, &HeatmapWidget::cellClicked, this, [this](int row, int col) {
    if (!result_ || row < 0 || col < 0 || row >= result_->heads.rows() || col >= result_->heads.cols())
      return;
    model_->setCurrentLayerHead(row, col);
  });
  connect(model_, &ExplorerModel::modelChanged, this, &PatchingPanel::followModel);
}

QCheckBox* PatchingPanel::siteBox(Site site) const {
  return site == Site::Residual ? residual_ : site == Site::Heads ? heads_ : mlp_;
}

HeatmapWidget* PatchingPanel::map(Site site) const {
  return site == Site::Residual ? residualMap_ : site == Site::Heads ? headsMap_ : mlpMap_;
}

bool PatchingPanel::busy() const { return job_->busy(); }

void PatchingPanel::waitForIdle() {
  while (job_->busy()) {
    if (const auto& c = job_->current()) c->wait();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
}

void PatchingPanel::setStatus(const QString& text, bool error) {
  statusText_ = text;
  status_->setText(text);
  status_->setStyleSheet(error ? QStringLiteral("QLabel { color: #b3261e; }") : QString());
}

int PatchingPanel::tokenCount(const QString& text) const {
  const auto m = model_->modelPtr();
  return m ? textTokenCount(*m, text.toStdString()) : -1;
}

void PatchingPanel::updateCounts() {
  const auto m = model_->modelPtr();
  const int clean = tokenCount(clean_->text()), corrupt = tokenCount(corrupt_->text());
  const auto tokens = [](int n) {
    return n < 0 ? QString() : n == 1 ? tr("1 token") : tr("%1 tokens").arg(n);
  };
  cleanCount_->setText(tokens(clean));
  corruptCount_->setText(tokens(corrupt));
  const bool same = clean == corrupt;
  corruptCount_->setStyleSheet(same ? QString() : QStringLiteral("QLabel { color: #b3261e; }"));
  for (auto [edit, label] : {std::pair{target_, targetCount_}, std::pair{foil_, foilCount_}}) {
    const int n = m ? answerTokenCount(*m, edit->text().toStdString()) : -1;
    label->setText(tokens(n));
    label->setStyleSheet(n == 1 || n < 0 ? QString() : QStringLiteral("QLabel { color: #b3261e; }"));
  }
}

void PatchingPanel::followModel() {
  job_->cancel();
  cancel_->setEnabled(false);
  result_.reset();
  tokens_.clear();
  diffs_->clear();
  drawMaps();
  const auto m = model_->modelPtr();
  run_->setEnabled(m != nullptr);
  if (!m) {
    setStatus(tr("Open a causal language model (GPT-2, the Llama family) to patch its activations."));
    updateCounts();
    return;
  }
  // A fitting example in place of the last one, unless the fields were edited by hand.
  const bool untouched =
      clean_->text().isEmpty() ||
      std::any_of(std::begin(kPatchExamples), std::end(kPatchExamples),
                  [this](const PatchExample& e) { return clean_->text() == QLatin1String(e.clean); });
  if (untouched) {
    for (const PatchExample& e : kPatchExamples) {
      if (textTokenCount(*m, e.clean) != textTokenCount(*m, e.corrupt) ||
          answerTokenCount(*m, e.target) != 1 || answerTokenCount(*m, e.foil) != 1)
        continue;
      clean_->setText(QString::fromUtf8(e.clean));
      corrupt_->setText(QString::fromUtf8(e.corrupt));
      target_->setText(QString::fromUtf8(e.target));
      foil_->setText(QString::fromUtf8(e.foil));
      for (QLineEdit* edit : {clean_, corrupt_}) edit->setCursorPosition(0);  // the start reads better
      break;
    }
  }
  updateCounts();
  setStatus(tr("Run (Ctrl+Return) patches every chosen site."));
}

void PatchingPanel::run() {
  const auto model = model_->modelPtr();
  if (!model) return;
  attn::models::PatchingOptions sites;
  sites.residual = residual_->isChecked();
  sites.heads = heads_->isChecked();
  sites.mlp = mlp_->isChecked();
  if (!sites.residual && !sites.heads && !sites.mlp)
    return setStatus(tr("Choose at least one site: residual stream, heads or MLP."), true);
  auto clean = model->encode(clean_->text().toStdString(), std::nullopt, "clean");
  if (!clean) return setStatus(uiMessage(clean.error().message), true);
  auto corrupt = model->encode(corrupt_->text().toStdString(), std::nullopt, "corrupt");
  if (!corrupt) return setStatus(uiMessage(corrupt.error().message), true);
  auto target =
      attn::models::singleTokenId(*model, target_->text().toStdString(), tr("Target").toStdString());
  if (!target) return setStatus(uiMessage(target.error().message), true);
  auto foil = attn::models::singleTokenId(*model, foil_->text().toStdString(), tr("Foil").toStdString());
  if (!foil) return setStatus(uiMessage(foil.error().message), true);
  struct Out {
    std::shared_ptr<const attn::models::PatchingResult> result;
    QString error;
  };
  auto out = std::make_shared<Out>();
  const QStringList tokens = modelTokenLabels(model->tokenizer(), *clean);
  job_->start(
      [model, cleanEnc = *clean, corruptEnc = *corrupt, t = *target, f = *foil, sites,
       out](JobControl& control) {
        auto res = model->patch(cleanEnc, corruptEnc, t, f, sites,
                                [&control](double fr, std::string_view s) { return control.report(fr, s); });
        if (res)
          out->result = std::make_shared<attn::models::PatchingResult>(std::move(res).value());
        else
          out->error = uiMessage(res.error().message);
      },
      [this, out, tokens] {
        cancel_->setEnabled(false);
        if (!out->result) return setStatus(out->error, true);  // the maps shown stay
        showResult(out->result, tokens);
      },
      tr("Patching"));
  cancel_->setEnabled(true);
  setStatus(tr("Patching…"));
  poll_->start();
}

void PatchingPanel::cancel() {
  if (!job_->busy()) return;
  job_->cancel();
  cancel_->setEnabled(false);
  setStatus(result_ ? tr("Cancelled; the maps are the previous run's.") : tr("Cancelled."));
}

void PatchingPanel::showResult(std::shared_ptr<const attn::models::PatchingResult> result,
                               QStringList tokens) {
  result_ = std::move(result);
  tokens_ = std::move(tokens);
  modelName_ = model_->modelPtr() ? QString::fromStdString(model_->modelPtr()->info().name) : QString();
  const QString pair = QStringLiteral("“%1” − “%2”").arg(target_->text(), foil_->text());
  diffs_->setText(tr("logit(target) − logit(foil) at the last position (%1): clean %2, corrupt %3.")
                      .arg(pair)
                      .arg(result_->cleanDiff, 0, 'f', 3)
                      .arg(result_->corruptDiff, 0, 'f', 3));
  setStatus(
      tr("Each cell: the share of that difference the patch brings back (1: all, 0: none). "
         "Click a head to show it."));
  export_->setEnabled(true);
  drawMaps();
}

void PatchingPanel::drawMaps() {
  const auto* r = result_.get();
  QStringList layers;
  const int nLayers =
      r ? static_cast<int>(std::max({r->residual.rows(), r->heads.rows(), r->mlp.rows()})) : 0;
  for (int l = 0; l < nLayers; ++l) layers << tr("layer %1").arg(l + 1);
  QStringList heads;
  for (int h = 0; r && h < r->heads.cols(); ++h) heads << QStringLiteral("H%1").arg(h + 1);
  const auto draw = [this, &layers](HeatmapWidget* map, const attn::Mat& m, const QStringList& cols,
                                    const QString& what, int tab) {
    tabs_->setTabEnabled(tab, m.size() > 0 || !result_);
    const double b = symmetricBound(m);
    map->setMatrix(m, m.size() > 0 ? layers : QStringList(), m.size() > 0 ? cols : QStringList(),
                   m.size() > 0 ? tr("%1 patched — %2").arg(what, modelName_) : QString(), -b, b);
  };
  static const attn::Mat none;
  draw(residualMap_, r ? r->residual : none, tokens_, tr("Residual stream"), 0);
  draw(headsMap_, r ? r->heads : none, heads, tr("Head outputs"), 1);
  draw(mlpMap_, r ? r->mlp : none, tokens_, tr("MLP outputs"), 2);
  if (r && !tabs_->isTabEnabled(tabs_->currentIndex()))
    for (int t = 0; t < tabs_->count(); ++t)
      if (tabs_->isTabEnabled(t)) {
        tabs_->setCurrentIndex(t);
        break;
      }
}

QString PatchingPanel::cellDetails(Site site, int row, int column) const {
  if (!result_) return {};
  const attn::Mat& m = site == Site::Residual ? result_->residual
                       : site == Site::Heads  ? result_->heads
                                              : result_->mlp;
  if (row < 0 || column < 0 || row >= m.rows() || column >= m.cols()) return {};
  const QString value = QString::number(m(row, column), 'f', 4);
  if (site == Site::Heads)
    return tr("Layer %1, head %2: recovers %3 of the logit difference\n(click to show this head)")
        .arg(row + 1)
        .arg(column + 1)
        .arg(value);
  const QString token = column < tokens_.size() ? tokens_[column] : QString();
  return tr("%1, layer %2, position %3 %4: recovers %5 of the logit difference")
      .arg(site == Site::Residual ? tr("Residual stream") : tr("MLP output"))
      .arg(row + 1)
      .arg(column)
      .arg(token, value);
}

bool PatchingPanel::exportFigure(Site site, const QString& path, const FigureOptions& options,
                                 QString* error) {
  HeatmapWidget* m = map(site);
  if (!result_ || m->matrix().size() == 0) {
    if (error) *error = tr("Nothing to export yet: run the patching first.");
    return false;
  }
  const auto st = writeFigure(path, options, livePlotPainter(*m));
  if (!st && error) *error = QString::fromStdString(st.error().message);
  return st.ok();
}

void PatchingPanel::showExportDialog() {
  FigureExportDialog dialog({tr("Residual stream"), tr("Heads"), tr("MLP")}, tabs_->currentIndex(), this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  if (!exportFigure(static_cast<Site>(dialog.view()), dialog.path(), dialog.options(), &error))
    QMessageBox::warning(this, tr("Export figure"), error);
}

}  // namespace attn::ui
