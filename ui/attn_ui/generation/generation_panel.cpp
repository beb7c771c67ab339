#include "attn_ui/generation/generation_panel.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QSlider>
#include <QSplitter>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "attn/models/model.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/common/core_text.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/model_run_view.h"
#include "attn_ui/export/figure_export_dialog.h"
#include "attn_ui/generation/generation_options.h"
#include "attn_ui/generation/step_attention.h"
#include "attn_ui/generation/token_chips.h"
#include "attn_ui/theme/plot_theme.h"

namespace attn::ui {
namespace {

/// Why this model cannot write here ("" when it can).
QString generationRefusal(const attn::models::Model* m, const QString& seq2seqName) {
  if (!m) {
    if (!seq2seqName.isEmpty())
      return GenerationPanel::tr(
                 "%1 is an encoder–decoder model: it writes in the Translation dock. "
                 "Open a causal model (GPT-2, the Llama family, GGUF) to generate here.")
          .arg(seq2seqName);
    return GenerationPanel::tr(
        "Open a causal language model (GPT-2, the Llama family, GGUF) with File > Open Model Folder… to "
        "generate text and see the attention of every token it writes.");
  }
  const auto& info = m->info();
  if (info.causal) return {};
  const QString kind =
      info.vision ? GenerationPanel::tr("a vision model")
                  : GenerationPanel::tr("a bidirectional encoder (%1)")
                        .arg(QString::fromStdString(std::string(attn::models::familyName(info.family))));
  return GenerationPanel::tr(
             "%1 is %2, model_type %3: it writes no text. Generation needs a causal "
             "language model (GPT-2, the Llama family, GGUF).")
      .arg(QString::fromStdString(info.name), kind, QString::fromStdString(info.modelType));
}

/// The checkpoint's generation settings; readGenerationConfig checks token ids against the
/// vocabulary only, so the model's vocabulary size is all of the config it needs.
attn::Result<attn::models::GenerationSettings> checkpointSettings(const attn::models::Model& m) {
  attn::models::ModelConfig sizes;
  sizes.vocabSize = m.info().vocabSize;
  return attn::models::causalGenerationSettings(m.info(), sizes);
}

}  // namespace

GenerationPanel::GenerationPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      pages_(new QStackedWidget(this)),
      refusal_(new QLabel(this)),
      prompt_(new QLineEdit(this)),
      options_(new GenerationOptions(this)),
      go_(new QPushButton(tr("&Generate"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      showMain_(new QPushButton(tr("Show in the Main Views"), this)),
      export_(new QPushButton(tr("Export Figure…"), this)),
      progress_(new QProgressBar(this)),
      chips_(new TokenChips(this)),
      chipScroll_(new QScrollArea(this)),
      slider_(new QSlider(Qt::Horizontal, this)),
      stepLabel_(new QLabel(this)),
      layerBox_(new QComboBox(this)),
      headBox_(new QComboBox(this)),
      chart_(new QCustomPlot(this)),
      top_(new QListWidget(this)),
      settings_(new QLabel(this)),
      status_(new QLabel(this)),
      poll_(new QTimer(this)),
      job_(std::make_unique<NewestJob>(this)) {
  setObjectName(QStringLiteral("GenerationPanel"));
  refusal_->setWordWrap(true);
  refusal_->setTextFormat(Qt::PlainText);
  refusal_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  refusal_->setMargin(8);
  pages_->addWidget(refusal_);
  pages_->addWidget(buildControls());
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(pages_);

  auto* shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), this);
  shortcut->setContext(Qt::WidgetWithChildrenShortcut);
  connect(shortcut, &QShortcut::activated, this, &GenerationPanel::generate);
  connect(go_, &QPushButton::clicked, this, &GenerationPanel::generate);
  connect(prompt_, &QLineEdit::returnPressed, this, &GenerationPanel::generate);
  connect(prompt_, &QLineEdit::textEdited, this, [this] { promptEdited_ = true; });
  connect(cancel_, &QPushButton::clicked, this, &GenerationPanel::cancel);
  connect(showMain_, &QPushButton::clicked, this, &GenerationPanel::showInMainViews);
  connect(export_, &QPushButton::clicked, this, &GenerationPanel::showExportDialog);
  connect(chips_, &TokenChips::tokenClicked, this, &GenerationPanel::setStep);
  connect(slider_, &QSlider::valueChanged, this, &GenerationPanel::setStep);
  connect(layerBox_, &QComboBox::currentIndexChanged, this, &GenerationPanel::redraw);
  connect(headBox_, &QComboBox::currentIndexChanged, this, &GenerationPanel::redraw);
  poll_->setInterval(100);
  connect(poll_, &QTimer::timeout, this, [this] {
    const auto& c = job_->current();
    if (!c) return poll_->stop();
    const auto [stage, fraction] = c->progress();
    progress_->setValue(qRound(100 * fraction));
    status_->setText(tr("%1… %2%").arg(stage).arg(qRound(100 * fraction)));
  });
  connect(model_, &ExplorerModel::modelChanged, this, &GenerationPanel::followModel);
  connect(model_, &ExplorerModel::inputChanged, this, &GenerationPanel::followText);
  followModel();
}

GenerationPanel::~GenerationPanel() { job_->cancel(); }

QWidget* GenerationPanel::buildControls() {
  auto* page = new QWidget(this);
  prompt_->setPlaceholderText(tr("The prompt the model continues"));
  prompt_->setToolTip(tr("The text the model continues: the input text unless you type another here."));
  go_->setToolTip(tr("Write after the prompt (Ctrl+Return or Enter in the prompt)"));
  cancel_->setToolTip(tr("Stop writing (Esc); the previous result stays"));
  cancel_->setEnabled(false);
  progress_->setRange(0, 100);
  progress_->setMaximumWidth(160);
  progress_->setFormat(tr("%p%"));
  progress_->hide();
  auto* promptRow = new QHBoxLayout;
  promptRow->addWidget(new QLabel(tr("Prompt"), page));
  promptRow->addWidget(prompt_, 1);
  promptRow->addWidget(options_);
  promptRow->addWidget(go_);
  promptRow->addWidget(cancel_);
  promptRow->addWidget(progress_);

  chips_->setToolTip(
      tr("The prompt (grey) and the written tokens (orange): click a written token to see "
         "the attention with which it was written."));
  chipScroll_->setWidget(chips_);
  chipScroll_->setWidgetResizable(true);
  chipScroll_->setFrameShape(QFrame::NoFrame);
  chipScroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  fitChips();

  // The chart gives way first: with the rows around it the dock still fits a 768-pixel screen.
  chart_->setMinimumHeight(90);
  chart_->yAxis->setLabel(tr("weight"));
  chart_->yAxis->setRange(0, 1);
  followPalette(chart_);
  top_->setMaximumWidth(260);
  top_->setToolTip(tr("The earlier tokens the chosen one was written with the most attention to"));
  auto* split = new QSplitter(Qt::Horizontal, page);
  split->addWidget(chart_);
  split->addWidget(top_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 0);

  for (QLabel* l : {settings_, status_}) {
    l->setTextFormat(Qt::PlainText);
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  }
  settings_->setToolTip(
      tr("The settings the core used, from the checkpoint's generation config and the choices above"));
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addLayout(promptRow);
  layout->addWidget(chipScroll_);
  layout->addLayout(buildStepRow());
  layout->addWidget(split, 1);
  layout->addWidget(settings_);
  layout->addWidget(status_);
  return page;
}

QLayout* GenerationPanel::buildStepRow() {
  slider_->setToolTip(tr("The written token whose attention is shown (also: click a token above)"));
  slider_->setEnabled(false);
  stepLabel_->setTextFormat(Qt::PlainText);
  stepLabel_->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("Step 000 / 000")));
  layerBox_->setToolTip(tr("Layer of the model"));
  headBox_->setToolTip(tr("One head, or the mean of the layer's heads"));
  headBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  showMain_->setToolTip(
      tr("Run the prompt and the written tokens (their ids, not the text re-tokenized) through the model "
         "in the main views: heatmap, heads, metrics and the rest show the final sequence."));
  export_->setToolTip(tr("Save the bar chart as PNG, SVG or PDF."));
  showMain_->setEnabled(false);
  export_->setEnabled(false);
  auto* row = new QHBoxLayout;
  row->addWidget(stepLabel_);
  row->addWidget(slider_, 1);
  row->addWidget(new QLabel(tr("Layer"), this));
  row->addWidget(layerBox_);
  row->addWidget(new QLabel(tr("Head"), this));
  row->addWidget(headBox_);
  row->addWidget(showMain_);
  row->addWidget(export_);
  return row;
}

bool GenerationPanel::event(QEvent* e) {
  // Esc while writing stops it; claimed before the window's own Esc shortcut, only while busy.
  if (e->type() == QEvent::ShortcutOverride && static_cast<QKeyEvent*>(e)->key() == Qt::Key_Escape &&
      busy()) {
    e->accept();
    return true;
  }
  return QWidget::event(e);
}

void GenerationPanel::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Escape && busy()) return cancel();
  QWidget::keyPressEvent(e);
}

void GenerationPanel::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  fitChips();
}

// As tall as the chips' lines, up to four of them; a longer text scrolls.
void GenerationPanel::fitChips() {
  const int line = fontMetrics().height() + 8;
  const int want = chips_->heightForWidth(std::max(100, chipScroll_->viewport()->width()));
  chipScroll_->setFixedHeight(std::clamp(want, line, 4 * line));
}

void GenerationPanel::noteEncoderDecoder(const QString& name) {
  seq2seqName_ = name;
  // Only the reason changes: a causal model still loaded in the explorer still writes here.
  if (pages_->currentIndex() == 0)
    refusal_->setText(generationRefusal(model_->modelPtr().get(), seq2seqName_));
}

void GenerationPanel::followModel() {
  const auto m = model_->modelPtr();
  const QString why = generationRefusal(m.get(), seq2seqName_);
  refusal_->setText(why);
  job_->cancel();
  cancel_->setEnabled(false);
  progress_->hide();
  result_.reset();
  resultPrompt_.reset();
  labels_.clear();
  pages_->setCurrentIndex(why.isEmpty() ? 1 : 0);
  chips_->setTokens({}, 0);
  fitChips();
  settings_->clear();
  fillLayers();
  if (!why.isEmpty()) return;
  auto g = checkpointSettings(*m);
  if (g) options_->setDefaults(*g);
  setStatus(g ? tr("%1: %2 layers × %3 heads. Generate (Ctrl+Return) writes after the prompt.")
                    .arg(QString::fromStdString(m->info().name))
                    .arg(m->info().layers)
                    .arg(m->info().heads)
              : uiMessage(g.error().message),
            !g);
  promptEdited_ = false;
  followText();
}

void GenerationPanel::followText() {
  if (showingInMain_ || promptEdited_ || model_->hasLoadedInput()) return;
  if (prompt_->text() != model_->text()) prompt_->setText(model_->text());
}

void GenerationPanel::setStatus(const QString& text, bool error) {
  status_->setText(text);
  status_->setStyleSheet(error ? QStringLiteral("QLabel { color: #b3261e; }") : QString());
}

QString GenerationPanel::status() const { return status_->text(); }
QString GenerationPanel::settingsText() const { return settings_->text(); }
QString GenerationPanel::refusal() const {
  return pages_->currentIndex() == 0 ? refusal_->text() : QString();
}
bool GenerationPanel::busy() const { return job_->busy(); }

void GenerationPanel::waitForIdle() {
  while (job_->busy()) {
    if (const auto& c = job_->current()) c->wait();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
}

void GenerationPanel::generate() {
  const auto model = model_->modelPtr();
  if (!model || !refusal().isEmpty()) return;
  const std::string promptText = prompt_->text().toStdString();
  if (prompt_->text().isEmpty()) return setStatus(tr("Type a prompt first."), true);
  const auto options = options_->options();
  struct Out {
    std::shared_ptr<const attn::models::CausalGeneration> result;
    std::shared_ptr<const attn::models::Encoding> prompt;
    QString error;
    double ms = 0;
  };
  auto out = std::make_shared<Out>();
  job_->start(
      [model, promptText, options, out](JobControl& c) {
        QElapsedTimer timer;
        timer.start();
        try {
          auto enc = model->encode(promptText, std::nullopt, "Prompt");
          if (!enc) {
            out->error = uiMessage(enc.error().message);
            return;
          }
          auto g =
              model->generate(*enc, options, [&c](double f, std::string_view s) { return c.report(f, s); });
          if (!g) {
            out->error = uiMessage(g.error().message);
            return;
          }
          out->prompt = std::make_shared<const attn::models::Encoding>(std::move(enc).value());
          out->result = std::make_shared<const attn::models::CausalGeneration>(std::move(g).value());
        } catch (const std::bad_alloc&) {
          out->error = tr("Not enough memory for this generation: write fewer tokens.");
        }
        out->ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
      },
      [this, out, promptText] {
        cancel_->setEnabled(false);
        progress_->hide();
        if (!out->result) {  // the previous result stays on screen
          setStatus(out->error, true);
          emit message(out->error);
          return;
        }
        resultPromptText_ = QString::fromStdString(promptText);
        deliver(out->result, out->prompt, out->ms);
      },
      tr("Writing"));
  cancel_->setEnabled(true);
  progress_->setValue(0);
  progress_->show();
  setStatus(tr("Writing…"));
  poll_->start();
}

void GenerationPanel::cancel() {
  if (!job_->busy()) return;
  job_->cancel();
  cancel_->setEnabled(false);
  progress_->hide();
  setStatus(result_ ? tr("Cancelled; the previous result stays.") : tr("Cancelled."));
}

void GenerationPanel::deliver(std::shared_ptr<const attn::models::CausalGeneration> result,
                              std::shared_ptr<const attn::models::Encoding> prompt, double ms) {
  result_ = std::move(result);
  resultPrompt_ = std::move(prompt);
  const auto& g = *result_;
  const auto model = model_->modelPtr();
  labels_ =
      model ? modelTokenLabels(model->tokenizer(), generatedEncoding(g, *resultPrompt_)) : QStringList{};
  const int n = static_cast<int>(g.ids.size()), written = n - g.promptLength;
  chips_->setTokens(labels_, g.promptLength);
  fitChips();
  settings_->setText(tr("Settings: %1").arg(QString::fromStdString(g.settings)));
  setStatus(written > 0 ? tr("%1 prompt + %2 written tokens in %3 ms: “%4”")
                              .arg(g.promptLength)
                              .arg(written)
                              .arg(ms, 0, 'f', 0)
                              .arg(QString::fromStdString(g.outputText))
                        : tr("The model wrote nothing (an end token first, or no room left)."));
  showMain_->setEnabled(written > 0);
  {
    const QSignalBlocker block(slider_);
    slider_->setRange(g.promptLength, std::max(g.promptLength, n - 1));
    slider_->setEnabled(written > 1);
  }
  step_ = -1;
  fillLayers();
  setStep(written > 0 ? g.promptLength : -1);
}

void GenerationPanel::fillLayers() {
  const int keepLayer = layerBox_->currentIndex(), keepHead = headBox_->currentIndex();
  const QSignalBlocker b1(layerBox_), b2(headBox_);
  layerBox_->clear();
  headBox_->clear();
  if (result_ && !result_->maps.empty()) {
    for (size_t l = 0; l < result_->maps.size(); ++l) layerBox_->addItem(QString::number(l));
    headBox_->addItem(tr("Mean of heads"), -1);
    for (size_t h = 0; h < result_->maps.front().size(); ++h) headBox_->addItem(QString::number(h), int(h));
    layerBox_->setCurrentIndex(keepLayer >= 0 && keepLayer < layerBox_->count() ? keepLayer
                                                                                : layerBox_->count() - 1);
    headBox_->setCurrentIndex(keepHead >= 0 && keepHead < headBox_->count() ? keepHead : 0);
  }
  redraw();
}

void GenerationPanel::setStep(int position) {
  if (!result_ || position < result_->promptLength || position >= static_cast<int>(result_->ids.size()))
    position = -1;
  step_ = position;
  chips_->setSelected(position);
  if (position >= 0) {
    const QSignalBlocker block(slider_);
    slider_->setValue(position);
  }
  redraw();
}

void GenerationPanel::setLayer(int layer) { layerBox_->setCurrentIndex(layer); }
void GenerationPanel::setHead(int head) { headBox_->setCurrentIndex(headBox_->findData(head)); }
int GenerationPanel::layer() const { return layerBox_->currentIndex(); }
int GenerationPanel::head() const {
  return headBox_->currentIndex() < 0 ? -1 : headBox_->currentData().toInt();
}

void GenerationPanel::redraw() {
  shown_ = result_ && step_ >= 0 ? writtenTokenAttention(*result_, layer(), head(), step_) : attn::Vec();
  const int written = result_ ? static_cast<int>(result_->ids.size()) - result_->promptLength : 0;
  stepLabel_->setText(step_ >= 0 ? tr("Step %1 / %2").arg(step_ - result_->promptLength + 1).arg(written)
                                 : tr("Step –"));
  top_->clear();
  for (const RankedKey& k : topKeys(shown_, 8))
    top_->addItem(tr("%1  %2  (position %3)")
                      .arg(static_cast<double>(k.weight), 0, 'f', 3)
                      .arg(k.key < labels_.size() ? labels_[k.key] : QString())
                      .arg(k.key));
  export_->setEnabled(shown_.size() > 0);
  drawBars();
}

void GenerationPanel::drawBars() {
  chart_->clearPlottables();
  const int n = static_cast<int>(shown_.size());
  if (n == 0) {
    chart_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    chart_->xAxis->setLabel(QString());
    chart_->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  const int prompt = result_->promptLength;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < n; ++i) ticker->addTick(i, i < labels_.size() ? labels_[i] : QString::number(i));
  chart_->xAxis->setTicker(ticker);
  chart_->xAxis->setTickLabelRotation(n > 10 ? 60 : 0);
  chart_->xAxis->setSubTicks(false);
  chart_->xAxis->setRange(-0.6, n - 0.4);
  const QString what = head() < 0 ? tr("mean of the heads") : tr("head %1").arg(head());
  chart_->xAxis->setLabel(tr("Writing “%1” (token %2): layer %3, %4, over the %5 tokens before it")
                              .arg(step_ < labels_.size() ? labels_[step_] : QString())
                              .arg(step_)
                              .arg(layer())
                              .arg(what)
                              .arg(n));
  // Two series so the prompt and the written tokens keep the chips' colours.
  auto* promptBars = new QCPBars(chart_->xAxis, chart_->yAxis);
  auto* writtenBars = new QCPBars(chart_->xAxis, chart_->yAxis);
  promptBars->setBrush(QColor(0x4a, 0x78, 0xb0));
  writtenBars->setBrush(QColor(0xe6, 0x7e, 0x22));
  double hi = 0;
  for (auto* b : {promptBars, writtenBars}) {
    b->setPen(Qt::NoPen);
    b->setWidth(0.75);
  }
  for (int i = 0; i < n; ++i) {
    (i < prompt ? promptBars : writtenBars)->addData(i, static_cast<double>(shown_(i)));
    hi = std::max(hi, static_cast<double>(shown_(i)));
  }
  chart_->yAxis->setRange(0, std::min(1.0, std::max(0.05, hi * 1.1)));
  chart_->replot(QCustomPlot::rpQueuedReplot);
}

void GenerationPanel::showInMainViews() {
  const auto model = model_->modelPtr();
  if (!result_ || !resultPrompt_ || !model) return;
  const QString text = resultPromptText_ + QString::fromStdString(result_->outputText);
  auto encoding = std::make_shared<const attn::models::Encoding>(generatedEncoding(*result_, *resultPrompt_));
  showingInMain_ = true;
  model_->setModelEncoding(std::move(encoding), text);
  showingInMain_ = false;
  setStatus(
      tr("The main views show the %1 tokens of the prompt and the written text.").arg(result_->ids.size()));
}

bool GenerationPanel::exportFigure(const QString& path, const FigureOptions& options, QString* error) {
  if (shown_.size() == 0) {
    if (error) *error = tr("Nothing to export yet: generate, then choose a written token.");
    return false;
  }
  const auto st = writeFigure(path, options, livePlotPainter(*chart_));
  if (!st && error) *error = QString::fromStdString(st.error().message);
  return st.ok();
}

void GenerationPanel::showExportDialog() {
  FigureExportDialog dialog({tr("Attention of the written token")}, 0, this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  if (!exportFigure(dialog.path(), dialog.options(), &error))
    QMessageBox::warning(this, tr("Export figure"), error);
}

}  // namespace attn::ui
