#include "attn_ui/lens/lens_panel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>

#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/model_run_view.h"
#include "attn_ui/pretrained/prediction_panel.h"
#include "attn_ui/window/hidden_panel_gate.h"

namespace attn::ui {
namespace {

// Cells narrower or lower than this carry no token text (it would be unreadable).
constexpr int kMinTextCellWidth = 34;
constexpr int kMinTextCellHeight = 16;
constexpr int kMaxTextCells = 1200;  // QCPItemText per cell: keep redraws cheap

int lensLayer(const attn::models::LogitLens& lens, int mapRow) { return lens.rows - 1 - mapRow; }

}  // namespace

LensPanel::LensPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      colourBox_(new QComboBox(this)),
      status_(new QLabel(this)),
      map_(new HeatmapWidget(this)),
      job_(std::make_unique<NewestJob>(this)) {
  setObjectName(QStringLiteral("LensPanel"));
  cancel_ = new QToolButton(this);
  auto* cancel = cancel_;
  cancel->setText(tr("Cancel"));
  cancel->setToolTip(tr("Stop reading the layers through the unembedding"));
  cancel->hide();
  colourBox_->addItem(tr("Top token's probability"), int(Colour::TopProbability));
  colourBox_->addItem(tr("Final prediction's probability"), int(Colour::FinalProbability));
  colourBox_->setToolTip(
      tr("Colour each cell by the probability of that layer's most probable token, or by the probability "
         "the layer already gives the token the model finally predicts at that position."));
  status_->setWordWrap(true);
  status_->setTextFormat(Qt::PlainText);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Colour"), this));
  top->addWidget(colourBox_);
  top->addWidget(status_, 1);
  top->addWidget(cancel);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addLayout(top);
  layout->addWidget(map_, 1);
  map_->setColorScaleLabel(tr("probability"));
  map_->yAxis->setLabel(tr("layer"));
  map_->xAxis->setLabel(tr("position (the token read there)"));
  setToolTip(
      tr("The logit lens: what each layer would predict if the network stopped there — its residual stream "
         "through the model's final norm and unembedding (nostalgebraist 2020). Bottom row: the embeddings; "
         "top row: the last layer, the model's own prediction."));
  gate_ = new HiddenPanelGate(this, [this] { launch(); });
  poll_ = new QTimer(this);
  auto* poll = poll_;
  poll->setInterval(100);
  connect(poll, &QTimer::timeout, this, [this, cancel, poll] {
    const auto& c = job_->current();
    cancel->setVisible(c != nullptr);
    if (!c) return poll->stop();
    const auto [stage, fraction] = c->progress();
    status_->setText(tr("%1… %2%").arg(stage).arg(qRound(100 * fraction)));
  });
  connect(cancel, &QToolButton::clicked, this, [this, cancel] {
    job_->cancel();
    cancel->hide();
    base_.reset();  // the next change of text, layer or head computes it again
    clear(tr("Cancelled."));
  });
  connect(colourBox_, &QComboBox::currentIndexChanged, this,
          [this] { setColour(static_cast<Colour>(colourBox_->currentData().toInt())); });
  connect(model_, &ExplorerModel::resultChanged, this, &LensPanel::request);
  connect(model_, &ExplorerModel::modelChanged, this, [this] {
    job_->cancel();
    base_.reset();
    clear(QString());
    request();
  });
  connect(map_, &HeatmapWidget::cellHovered, this, [this](int row, int col, const QPoint& at) {
    QToolTip::showText(at, cellDetails(row, col), map_);
  });
  connect(map_, &HeatmapWidget::hoverLeft, this, [] { QToolTip::hideText(); });
  request();
}

LensPanel::~LensPanel() { job_->cancel(); }

void LensPanel::setColour(Colour colour) {
  if (colour == colour_) return;
  colour_ = colour;
  const int index = colourBox_->findData(int(colour));
  if (colourBox_->currentIndex() != index) colourBox_->setCurrentIndex(index);
  redraw();
}

const QString& LensPanel::status() const { return statusText_; }
bool LensPanel::busy() const { return job_->busy(); }

void LensPanel::waitForIdle() {
  while (job_->busy() || gate_->pending()) {
    if (gate_->pending()) return;  // nothing runs until the panel is shown
    if (const auto& c = job_->current()) c->wait();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
}

void LensPanel::request() {
  if (!model_->hasModel()) {
    job_->cancel();
    base_.reset();
    clear(tr("Open a model (File > Open Model…) to see what each of its layers would predict."));
    return;
  }
  const auto own = model_->ownModelRun();
  if (!own || own == base_) return;  // no text yet, or the lens of this text is shown or on its way
  gate_->request();
}

void LensPanel::launch() {
  auto model = model_->modelPtr();
  auto base = model_->ownModelRun();
  if (!model || !base || base == base_) return;
  base_ = base;
  struct Out {
    std::shared_ptr<const attn::models::LogitLens> lens;
    QString error;
  };
  auto out = std::make_shared<Out>();
  job_->start(
      [model, base, out](JobControl& control) {
        attn::models::RunOptions opt;
        opt.logitLens = true;
        opt.keepAttention = false;
        opt.keepQkv = false;
        opt.topK = 0;
        opt.maskTopK = 0;
        auto run = model->run(base->encoding, opt,
                              [&control](double f, std::string_view s) { return control.report(f, s); });
        if (!run)
          out->error = QString::fromStdString(run.error().message);
        else
          out->lens = run->lens;
      },
      [this, out, base] {
        if (!out->lens) {  // kept as base_: the same text is not retried at every click
          clear(out->error);
          return;
        }
        show(out->lens, base->encoding);
      },
      tr("Reading each layer through the unembedding"));
  poll_->start();
}

void LensPanel::clear(const QString& why) {
  lens_.reset();
  texts_.clear();
  statusText_ = why;
  status_->setText(why);
  removeTexts();
  map_->setMatrix(attn::Mat(), {}, {}, QString());
}

void LensPanel::show(std::shared_ptr<const attn::models::LogitLens> lens, attn::models::Encoding encoding) {
  lens_ = std::move(lens);
  encoding_ = std::move(encoding);
  const bool causal = model_->modelPtr() && model_->modelPtr()->info().causal;
  statusText_ = causal
                    ? tr("Each cell: the token that layer predicts next after the position below it.")
                    : tr("Each cell: the token the masked-LM head reads at that position from that layer.");
  status_->setText(statusText_);
  redraw();
}

QString LensPanel::tokenText(int id) const {
  const auto m = model_->modelPtr();
  return m ? visibleToken(m->tokenizer().displayText(id)) : QString::number(id);
}

void LensPanel::removeTexts() {
  for (auto* item : items_) map_->removeItem(item);
  items_.clear();
}

void LensPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (lens_) redraw();  // whether the cells have room for their tokens changed
}

void LensPanel::redraw() {
  removeTexts();
  texts_.clear();
  if (!lens_) return;
  const auto& lens = *lens_;
  attn::Mat values(lens.rows, lens.positions);
  for (int r = 0; r < lens.rows; ++r)
    for (int i = 0; i < lens.positions; ++i) {
      const int layer = lensLayer(lens, r);
      values(r, i) = colour_ == Colour::TopProbability ? lens.topProb(layer, i, 0) : lens.prob(layer, i);
    }
  QStringList rows, cols;
  for (int r = 0; r < lens.rows; ++r) {
    const int layer = lensLayer(lens, r);
    rows << (layer == 0 ? tr("embeddings") : tr("layer %1").arg(layer));
  }
  if (const auto m = model_->modelPtr())
    cols = modelTokenLabels(m->tokenizer(), encoding_);  // the text read there ("␣is"), not "Ġis"
  else
    for (const auto& t : encoding_.tokens) cols << visibleToken(t);
  const QString title = colour_ == Colour::TopProbability
                            ? tr("Logit lens: each layer's top token")
                            : tr("Logit lens: the final prediction's probability");
  map_->setMatrix(values, rows, cols, title, 0.0, 1.0);
  texts_.reserve(static_cast<size_t>(lens.rows * lens.positions));
  for (int r = 0; r < lens.rows; ++r)
    for (int i = 0; i < lens.positions; ++i)
      texts_.push_back(tokenText(lens.topId(lensLayer(lens, r), i, 0)));
  const QRect plot = map_->axisRect()->rect();
  const bool roomy = lens.rows * lens.positions <= kMaxTextCells &&
                     plot.width() / std::max(1, lens.positions) >= kMinTextCellWidth &&
                     plot.height() / std::max(1, lens.rows) >= kMinTextCellHeight;
  if (!roomy) return map_->replot(QCustomPlot::rpQueuedReplot);
  QFont font = map_->font();
  font.setPointSizeF(std::max(6.0, font.pointSizeF() - 2));
  for (int r = 0; r < lens.rows; ++r)
    for (int i = 0; i < lens.positions; ++i) {
      const QString& t = texts_[static_cast<size_t>(r * lens.positions + i)];
      auto* item = new QCPItemText(map_);
      items_.push_back(item);
      item->position->setType(QCPItemPosition::ptPlotCoords);
      item->position->setCoords(i, r);
      item->setText(t.size() > 9 ? t.left(8) + QStringLiteral("…") : t);
      item->setFont(font);
      item->setColor(values(r, i) > 0.55f ? Qt::black : Qt::white);
      item->setClipToAxisRect(true);
    }
  map_->replot(QCustomPlot::rpQueuedReplot);
}

QString LensPanel::cellText(int row, int column) const {
  if (!lens_ || row < 0 || column < 0 || row >= lens_->rows || column >= lens_->positions) return {};
  return texts_[static_cast<size_t>(row * lens_->positions + column)];
}

QString LensPanel::cellDetails(int row, int column) const {
  if (!lens_ || row < 0 || column < 0 || row >= lens_->rows || column >= lens_->positions) return {};
  const auto& lens = *lens_;
  const int layer = lensLayer(lens, row);
  const QString at = column < static_cast<int>(encoding_.ids.size())
                         ? tokenText(encoding_.ids[static_cast<size_t>(column)])
                         : QString();
  QStringList lines;
  lines << (layer == 0 ? tr("Embeddings, position %1 %2").arg(column).arg(at)
                       : tr("Layer %1, position %2 %3").arg(layer).arg(column).arg(at));
  for (int j = 0; j < lens.k; ++j)
    lines << tr("%1. %2  %3%")
                 .arg(j + 1)
                 .arg(tokenText(lens.topId(layer, column, j)))
                 .arg(100.0 * lens.topProb(layer, column, j), 0, 'f', 1);
  lines << tr("Final prediction %1: rank %2, %3%")
               .arg(tokenText(lens.finalIds[static_cast<size_t>(column)]))
               .arg(lens.rank(layer, column) + 1)
               .arg(100.0 * lens.prob(layer, column), 0, 'f', 1);
  return lines.join(QLatin1Char('\n'));
}

}  // namespace attn::ui
