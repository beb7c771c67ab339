#include "attn_ui/translation/translation_panel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "attn/models/seq2seq/seq2seq_model.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/generation/generation_options.h"
#include "attn_ui/translation/alignment_links_view.h"
#include "attn_ui/translation/translation_interventions.h"
#include "attn_ui/translation/translation_views.h"

namespace attn::ui {
namespace {

QStringList toLabels(const std::vector<std::string>& tokens) {
  QStringList out;
  for (const auto& t : tokens) out << QString::fromStdString(t);
  return out;
}

const std::vector<attn::AttentionResult>& kindLayers(const attn::models::Seq2SeqRun& run,
                                                     TranslationPanel::Kind kind) {
  switch (kind) {
    case TranslationPanel::Kind::Encoder:
      return run.attention.encoder;
    case TranslationPanel::Kind::Decoder:
      return run.attention.decoder;
    case TranslationPanel::Kind::Cross:
      break;
  }
  return run.attention.cross;
}

/// One head's weights, or the mean of the layer's heads (head < 0).
attn::Mat layerMap(const attn::AttentionResult& layer, int head) {
  if (layer.heads.empty()) return {};
  if (head >= 0 && head < layer.numHeads()) return layer.heads[static_cast<size_t>(head)].weights;
  attn::Mat sum = layer.heads[0].weights;
  for (size_t h = 1; h < layer.heads.size(); ++h) sum += layer.heads[h].weights;
  return sum / static_cast<float>(layer.heads.size());
}

QString exampleFor(const attn::models::Seq2SeqInfo& info) {
  if (info.modelType == "t5" || info.modelType == "mt5")
    return QStringLiteral("translate English to German: The house is wonderful.");
  return QStringLiteral("The cat sat on the mat.");
}

}  // namespace

TranslationPanel::TranslationPanel(QWidget* parent)
    : QWidget(parent),
      modelLabel_(new QLabel(this)),
      source_(new QLineEdit(this)),
      target_(new QLineEdit(this)),
      decoding_(new GenerationOptions(this)),
      go_(new QPushButton(tr("&Translate"), this)),
      cancel_(new QToolButton(this)),
      progress_(new QProgressBar(this)),
      output_(new QLabel(this)),
      settings_(new QLabel(this)),
      kindBox_(new QComboBox(this)),
      layerBox_(new QComboBox(this)),
      headBox_(new QComboBox(this)),
      mainViews_(new QPushButton(tr("Show in &Main Views"), this)),
      heatmap_(new HeatmapWidget(this)),
      links_(new AlignmentLinksView(this)),
      reference_(new QLineEdit(this)),
      score_(new QLabel(this)),
      status_(new QLabel(this)),
      interventions_(new TranslationInterventions(this)),
      poll_(new QTimer(this)),
      job_(std::make_unique<NewestJob>(this)) {
  setObjectName(QStringLiteral("TranslationPanel"));
  // Side by side: the dock sits below the heatmap, wide and short.
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(heatmap_);
  split->addWidget(links_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({1, 1});  // half each, whatever the two size hints say
  // The map gives way first: with the rows above it the dock still fits a 768-pixel screen.
  heatmap_->setMinimumHeight(links_->minimumSizeHint().height());
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addLayout(buildInputRows());
  // The translation and the settings that wrote it share a line: the dock stays as short as
  // it was without the settings (a 1366 × 768 screen has no height to spare).
  auto* outputRow = new QHBoxLayout;
  outputRow->addWidget(output_, 1);
  outputRow->addWidget(settings_, 1);
  layout->addLayout(outputRow);
  layout->addLayout(buildViewRow());
  layout->addWidget(interventions_);
  layout->addWidget(split, 1);
  layout->addWidget(status_);

  reference_->setPlaceholderText(tr("e.g. 1-1 2-3 3?2 (source-target token positions; ? = possible)"));
  reference_->setToolTip(tr(
      "A reference word alignment in the Pharaoh format: source-target pairs of 0-based token positions "
      "as the map numbers them (special tokens included; target 0 is the first token written); i?j or i-j-P "
      "marks a possible link. Scored against the argmax links by the alignment error rate "
      "(Och & Ney 2003)."));
  score_->setTextFormat(Qt::PlainText);
  status_->setTextFormat(Qt::PlainText);
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  output_->setTextFormat(Qt::PlainText);
  output_->setWordWrap(true);
  output_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  output_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  // One line, elided to its half of the row; the whole of it in the tooltip.
  settings_->setTextFormat(Qt::PlainText);
  settings_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  settings_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  settings_->installEventFilter(this);
  modelLabel_->setTextFormat(Qt::PlainText);
  modelLabel_->hide();  // its text leads the status line
  links_->setToolTip(
      tr("Source tokens on top, target tokens below: a line for every weight of at least 0.1, "
         "darker for more; bold: each target token's largest weight; dashed green: the "
         "reference alignment."));

  poll_->setInterval(100);
  connect(poll_, &QTimer::timeout, this, [this] {
    const auto& c = job_->current();
    if (!c) return poll_->stop();
    const auto [stage, fraction] = c->progress();
    progress_->setValue(qRound(100 * fraction));
    status_->setText(tr("%1… %2%").arg(stage).arg(qRound(100 * fraction)));
  });
  connect(go_, &QPushButton::clicked, this, &TranslationPanel::translate);
  connect(source_, &QLineEdit::returnPressed, this, &TranslationPanel::translate);
  connect(target_, &QLineEdit::returnPressed, this, &TranslationPanel::translate);
  // A forced target is read, not written: the decoding controls do not apply to it.
  connect(target_, &QLineEdit::textChanged, this,
          [this](const QString& t) { decoding_->setEnabled(model_ && t.trimmed().isEmpty()); });
  connect(cancel_, &QToolButton::clicked, this, &TranslationPanel::cancel);
  connect(kindBox_, &QComboBox::currentIndexChanged, this, [this] { fillLayers(); });
  connect(layerBox_, &QComboBox::currentIndexChanged, this, &TranslationPanel::redraw);
  connect(headBox_, &QComboBox::currentIndexChanged, this, &TranslationPanel::redraw);
  connect(reference_, &QLineEdit::textChanged, this, &TranslationPanel::scoreReference);
  connect(mainViews_, &QPushButton::clicked, this, &TranslationPanel::showKindInMainViews);
  connect(interventions_, &TranslationInterventions::rerunRequested, this, &TranslationPanel::translate);
  heatmap_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(heatmap_, &QWidget::customContextMenuRequested, this, &TranslationPanel::showHeadMenu);
  setModel(nullptr);
}

TranslationPanel::~TranslationPanel() = default;

bool TranslationPanel::event(QEvent* e) {
  // Esc while translating stops it. The window's own Esc (unpin the row) would take the key
  // first as a shortcut, so claim it before shortcuts are matched, only while busy.
  if (e->type() == QEvent::ShortcutOverride && static_cast<QKeyEvent*>(e)->key() == Qt::Key_Escape &&
      busy()) {
    e->accept();
    return true;
  }
  return QWidget::event(e);
}

void TranslationPanel::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Escape && busy()) return cancel();
  QWidget::keyPressEvent(e);
}

QLayout* TranslationPanel::buildInputRows() {
  source_->setPlaceholderText(tr("The sentence to translate"));
  target_->setPlaceholderText(tr("Empty: the model writes the translation. Or type one to force it."));
  target_->setToolTip(
      tr("Forced decoding: the decoder reads this target instead of generating one, "
         "so you can see the attention of a translation you choose."));
  // The token budget may follow the checkpoint (0: its max_length), as translate's default does.
  QSpinBox* maxNew = decoding_->maxNewBox();
  maxNew->setRange(0, 512);
  maxNew->setSpecialValueText(tr("as configured"));
  maxNew->setValue(0);
  maxNew->setToolTip(tr("Most tokens to write ('as configured': the checkpoint's max_length)."));
  decoding_->seedBox()->setToolTip(
      tr("The same seed, source sentence and settings write the same translation"));
  go_->setToolTip(tr("Translate the source sentence (Enter in either field)"));
  cancel_->setText(tr("Cancel"));
  cancel_->setToolTip(tr("Stop the translation (Esc); the previous one stays"));
  cancel_->hide();
  progress_->setRange(0, 100);
  progress_->setMaximumWidth(140);
  progress_->hide();
  // The decoding controls stand beside both sentences, so beam sampling's second line of
  // fields takes the target's line instead of a line of its own.
  auto* grid = new QGridLayout;
  grid->addWidget(new QLabel(tr("Source"), this), 0, 0);
  grid->addWidget(source_, 0, 1);
  grid->addWidget(new QLabel(tr("Target"), this), 1, 0);
  grid->addWidget(target_, 1, 1);
  grid->addWidget(decoding_, 0, 2, 2, 1, Qt::AlignTop);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(go_);
  buttons->addWidget(cancel_);
  buttons->addWidget(progress_);
  grid->addLayout(buttons, 0, 3);
  grid->setColumnStretch(1, 1);
  return grid;
}

QLayout* TranslationPanel::buildViewRow() {
  kindBox_->addItem(tr("Cross-attention"), int(Kind::Cross));
  kindBox_->addItem(tr("Encoder self-attention"), int(Kind::Encoder));
  kindBox_->addItem(tr("Decoder self-attention"), int(Kind::Decoder));
  kindBox_->setToolTip(
      tr("Cross-attention: each target token's weights over the source tokens. Encoder: "
         "the source over itself. Decoder: the target over its earlier tokens."));
  layerBox_->setToolTip(tr("Layer of the encoder or decoder stack"));
  headBox_->setToolTip(tr("One head, or the mean of the layer's heads"));
  headBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  kindBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Show"), this));
  row->addWidget(kindBox_);
  row->addWidget(new QLabel(tr("Layer"), this));
  row->addWidget(layerBox_);
  row->addWidget(new QLabel(tr("Head"), this));
  row->addWidget(headBox_);
  mainViews_->setToolTip(
      tr("Show this kind of attention, every layer and head, in the main window's heatmap, head grid, "
         "metrics, compare, export and step-through"));
  row->addWidget(mainViews_);
  row->addSpacing(12);
  row->addWidget(new QLabel(tr("Reference alignment"), this));
  row->addWidget(reference_, 1);
  row->addWidget(score_);
  return row;
}

void TranslationPanel::setModel(std::shared_ptr<const attn::models::Seq2SeqModel> model) {
  job_->cancel();
  model_ = std::move(model);
  run_.reset();
  baseline_.reset();
  if (model_) {
    const auto& i = model_->info();
    interventions_->setShape(i.encoderLayers, i.encoderHeads, i.decoderLayers, i.decoderHeads);
  } else {
    interventions_->setShape(0, 0, 0, 0);
  }
  for (QWidget* w : std::initializer_list<QWidget*>{source_, target_, go_, decoding_})
    w->setEnabled(model_ != nullptr);
  settingsFull_.clear();
  settings_->clear();
  if (!model_) {
    modelLabel_->setText(
        tr("Open an encoder–decoder model (Marian, BART, mBART, T5) with File > Open "
           "Model Folder… to translate with it and see its attention."));
    status_->setText(modelLabel_->text());
    output_->clear();
    fillLayers();
    return;
  }
  const auto& info = model_->info();
  modelLabel_->setText(tr("%1 (%2): encoder %3 × %4 heads, decoder %5 × %6 heads")
                           .arg(QString::fromStdString(info.name), QString::fromStdString(info.modelType))
                           .arg(info.encoderLayers)
                           .arg(info.encoderHeads)
                           .arg(info.decoderLayers)
                           .arg(info.decoderHeads));
  if (source_->text().trimmed().isEmpty()) source_->setText(exampleFor(info));
  decoding_->setDefaults(info.generation);
  decoding_->setEnabled(target_->text().trimmed().isEmpty());
  fillLayers();
  translate();
}

void TranslationPanel::translate() {
  if (!model_) return;
  struct Out {
    std::shared_ptr<const attn::models::Seq2SeqRun> run, baseline;
    QString error;
    double ms = 0.0;
  };
  auto out = std::make_shared<Out>();
  const auto model = model_;
  const std::string sourceText = source_->text().toStdString();
  const std::string targetText = target_->text().trimmed().toStdString();
  const attn::models::GenerateOptions options = generateOptions();
  const auto& control = job_->start(
      [model, sourceText, targetText, options, out](JobControl& c) {
        QElapsedTimer timer;
        timer.start();
        try {
          auto source = model->encode(sourceText, "Source");
          if (!source) {
            out->error = QString::fromStdString(source.error().message);
            return;
          }
          auto run =
              targetText.empty()
                  ? model->generate(*source, options,
                                    [&c](double f, std::string_view stage) { return c.report(f, stage); })
                  : model->forced(*source, targetText, "Target", options.forward);
          if (!run) {
            out->error = QString::fromStdString(run.error().message);
            return;
          }
          out->run = std::make_shared<const attn::models::Seq2SeqRun>(std::move(run).value());
          if (options.forward.interventions.empty() || c.cancelled()) return;
          // The "before": the same translation without the interventions.
          attn::models::GenerateOptions plain = options;
          plain.forward = {};
          auto before = targetText.empty() ? model->generate(*source, plain)
                                           : model->forced(*source, targetText, "Target");
          if (!before) {
            out->run.reset();
            out->error = QString::fromStdString(before.error().message);
            return;
          }
          out->baseline = std::make_shared<const attn::models::Seq2SeqRun>(std::move(before).value());
        } catch (const std::bad_alloc&) {
          out->error = tr("not enough memory for this translation");
        }
        out->ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
      },
      [this, out] {
        cancel_->hide();
        progress_->hide();
        if (!out->run) {  // the previous translation stays on screen
          status_->setText(out->error);
          emit message(out->error);
          return;
        }
        deliver(out->run, out->baseline, out->ms);
      },
      targetText.empty() ? tr("Translating") : tr("Decoding the target"));
  (void)control;
  cancel_->show();
  progress_->setValue(0);
  progress_->show();
  status_->setText(tr("Translating…"));
  poll_->start();
}

void TranslationPanel::cancel() {
  if (!job_->busy()) return;
  job_->cancel();
  cancel_->hide();
  progress_->hide();
  status_->setText(tr("Cancelled; the previous translation stays."));
}

bool TranslationPanel::busy() const { return job_->busy(); }

void TranslationPanel::waitForIdle() {
  while (job_->busy()) {
    if (const auto& c = job_->current()) c->wait();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
}

void TranslationPanel::deliver(std::shared_ptr<const attn::models::Seq2SeqRun> run,
                               std::shared_ptr<const attn::models::Seq2SeqRun> baseline, double ms) {
  run_ = std::move(run);
  baseline_ = std::move(baseline);
  const bool forced = run_->outputText.empty() && !target_->text().trimmed().isEmpty();
  output_->setText(forced ? tr("Forced target: %1").arg(target_->text().trimmed())
                          : tr("Translation: %1").arg(QString::fromStdString(run_->outputText)));
  if (baseline_) output_->setText(TranslationInterventions::effectText(*baseline_, *run_, forced));
  const QString settings =
      run_->settings.empty() ? tr("forced decoding") : QString::fromStdString(run_->settings);
  settingsFull_ = tr("Settings: %1").arg(settings);
  settings_->setToolTip(settingsFull_);
  elideSettings();
  status_->setText(modelLabel_->text() + QStringLiteral(" — ") +
                   tr("%1 source and %2 target tokens in %3 ms")
                       .arg(run_->source.size())
                       .arg(static_cast<int>(run_->targetIds.size()))
                       .arg(ms, 0, 'f', 0));
  fillLayers();
}

QString TranslationPanel::outputText() const { return output_->text(); }
QString TranslationPanel::settingsText() const { return settingsFull_; }

void TranslationPanel::elideSettings() {
  settings_->setText(settings_->fontMetrics().elidedText(settingsFull_, Qt::ElideRight, settings_->width()));
}

bool TranslationPanel::eventFilter(QObject* watched, QEvent* e) {
  if (watched == settings_ && e->type() == QEvent::Resize) elideSettings();
  return QWidget::eventFilter(watched, e);
}

attn::models::GenerateOptions TranslationPanel::generateOptions() const {
  // The fields translate's --beam, --max-new-tokens, --length-penalty and sampling options set.
  const attn::models::CausalGenerateOptions c = decoding_->options();
  attn::models::GenerateOptions o;
  o.maxNewTokens = c.maxNewTokens;
  o.beams = c.beams;
  o.lengthPenalty = c.lengthPenalty;
  o.doSample = c.doSample;
  o.topK = c.topK;
  o.topP = c.topP;
  o.temperature = c.temperature;
  o.seed = c.seed;
  o.forward.keepQkv = true;  // "Show in Main Views" hands them on to the step-through
  o.forward.interventions = interventions_->interventions();
  return o;
}

void TranslationPanel::ablateShownHead() {
  if (!run_ || head() < 0) return;
  attn::models::Seq2SeqIntervention iv;
  iv.stack = kind() == Kind::Cross     ? attn::models::Seq2SeqStack::Cross
             : kind() == Kind::Encoder ? attn::models::Seq2SeqStack::Encoder
                                       : attn::models::Seq2SeqStack::Decoder;
  iv.head.layer = layer();
  iv.head.head = head();
  interventions_->add(iv);
  translate();
}

void TranslationPanel::showHeadMenu(const QPoint& at) {
  if (!run_) return;
  QMenu menu(this);
  QAction* ablate = menu.addAction(head() < 0 ? tr("Ablate this head (choose one head, not the mean)")
                                              : tr("Ablate this head (%1 %2.%3) and rerun")
                                                    .arg(kindBox_->currentText())
                                                    .arg(layer() + 1)
                                                    .arg(head() + 1));
  ablate->setEnabled(head() >= 0 && !busy());
  connect(ablate, &QAction::triggered, this, &TranslationPanel::ablateShownHead);
  menu.exec(heatmap_->mapToGlobal(at));
}

void TranslationPanel::showKindInMainViews() {
  if (!run_ || !model_) return;
  auto weights = attentionKindAsInput(
      kindLayers(*run_, kind()), kind() == Kind::Decoder,
      tr("%1 · %2").arg(QString::fromStdString(model_->info().name)).arg(kindBox_->currentText().toLower()),
      run_->attention.scaledScores);
  if (weights) emit showInMainViews(std::move(weights));
}

void TranslationPanel::fillLayers() {
  const int keepLayer = layerBox_->currentIndex(), keepHead = headBox_->currentIndex();
  const QSignalBlocker b1(layerBox_), b2(headBox_);
  layerBox_->clear();
  headBox_->clear();
  if (run_) {
    const auto& layers = kindLayers(*run_, kind());
    // Shown from 1, as the main window and the CLI number them; the index stays 0-based.
    for (size_t i = 0; i < layers.size(); ++i) layerBox_->addItem(QString::number(i + 1));
    headBox_->addItem(tr("Mean of heads"), -1);
    const int heads = layers.empty() ? 0 : layers.front().numHeads();
    for (int h = 0; h < heads; ++h) headBox_->addItem(QString::number(h + 1), h);
    // The last layer by default: its cross-attention is usually the most alignment-like.
    layerBox_->setCurrentIndex(keepLayer >= 0 && keepLayer < layerBox_->count() ? keepLayer
                                                                                : layerBox_->count() - 1);
    headBox_->setCurrentIndex(keepHead >= 0 && keepHead < headBox_->count() ? keepHead : 0);
  }
  redraw();
}

void TranslationPanel::setKind(Kind k) { kindBox_->setCurrentIndex(kindBox_->findData(int(k))); }
void TranslationPanel::setLayer(int layer) { layerBox_->setCurrentIndex(layer); }
void TranslationPanel::setHead(int head) { headBox_->setCurrentIndex(headBox_->findData(head)); }
TranslationPanel::Kind TranslationPanel::kind() const {
  return static_cast<Kind>(kindBox_->currentData().toInt());
}
int TranslationPanel::layer() const { return layerBox_->currentIndex(); }
int TranslationPanel::head() const {
  return headBox_->currentIndex() < 0 ? -1 : headBox_->currentData().toInt();
}
QString TranslationPanel::status() const { return status_->text(); }
QString TranslationPanel::scoreText() const { return score_->text(); }

void TranslationPanel::redraw() {
  shown_ = attn::Mat();
  argmax_.clear();
  mainViews_->setEnabled(run_ != nullptr);
  static const std::vector<attn::AttentionResult> kNone;
  const auto& layers = run_ ? kindLayers(*run_, kind()) : kNone;
  if (layer() < 0 || layer() >= static_cast<int>(layers.size())) {
    heatmap_->setMatrix(attn::Mat(), {}, {}, QString());
    links_->clear();
    scoreReference();
    return;
  }
  const auto& res = layers[static_cast<size_t>(layer())];
  shown_ = layerMap(res, head());
  QStringList rows = toLabels(res.queryTokens);
  const QStringList cols = toLabels(res.keyTokens);
  QString title =
      tr("%1, layer %2, %3")
          .arg(kindBox_->currentText())
          .arg(layer() + 1)
          .arg(head() < 0 ? tr("mean of %1 heads").arg(res.numHeads()) : tr("head %1").arg(head() + 1));
  if (kind() == Kind::Cross && shown_.rows() > 0) {
    // Decoder step t reads token t and writes token t + 1: label each row with the token it
    // writes, as alignment figures pair an output word with the attention that produced it
    // (Bahdanau et al. 2015, Fig. 3). The last row (after the end token) writes nothing.
    shown_ = attn::Mat(shown_.topRows(shown_.rows() - 1));
    rows.removeFirst();
    title += tr(" — rows: the token each step writes");
  }
  argmax_ = attn::alignment::argmaxAlignment(shown_);
  heatmap_->setMatrix(shown_, rows, cols, title, 0.0, 1.0);
  links_->setAlignment(shown_, cols, rows, argmax_);
  scoreReference();
}

void TranslationPanel::scoreReference() {
  const QString text = reference_->text().trimmed();
  links_->setReference({}, {});
  if (text.isEmpty() || shown_.size() == 0)
    return score_->setText(text.isEmpty() ? QString() : tr("no map yet"));
  if (kind() != Kind::Cross) return score_->setText(tr("AER: cross-attention only"));
  auto ref = attn::alignment::parsePharaoh(text.toStdString(), tr("Reference alignment").toStdString(),
                                           static_cast<int>(shown_.cols()), static_cast<int>(shown_.rows()));
  if (!ref) return score_->setText(QString::fromStdString(ref.error().message));
  links_->setReference({ref->sure.begin(), ref->sure.end()}, {ref->possible.begin(), ref->possible.end()});
  auto s = attn::alignment::alignmentErrorRate(argmax_, *ref);
  if (!s) return score_->setText(QString::fromStdString(s.error().message));
  score_->setText(tr("AER %1 (precision %2, recall %3)")
                      .arg(s->aer, 0, 'f', 3)
                      .arg(s->precision, 0, 'f', 3)
                      .arg(s->recall, 0, 'f', 3));
}

}  // namespace attn::ui
