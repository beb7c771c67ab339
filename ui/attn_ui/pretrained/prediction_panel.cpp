#include "attn_ui/pretrained/prediction_panel.h"

#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>
#include <algorithm>

#include "attn_ui/explorer/explorer_model.h"

namespace attn::ui {
namespace {
constexpr int kRowHeight = 26;
constexpr int kTokenWidth = 110;  // the token column; the bar takes the rest
constexpr int kPercentWidth = 56;
}  // namespace

QString visibleToken(const std::string& text) {
  QString t = QString::fromStdString(text);
  t.replace(QLatin1Char('\n'), QStringLiteral("↵")).replace(QLatin1Char('\t'), QStringLiteral("⇥"));
  return QStringLiteral("“%1”").arg(t);
}

// The bars, laid out under the heading so that each paints only its own area.
class PredictionPanel::Bars : public QWidget {
 public:
  explicit Bars(const std::vector<attn::models::TopToken>& entries, QWidget* parent)
      : QWidget(parent), entries_(entries) {}
  void refresh() {
    setFixedHeight(static_cast<int>(entries_.size()) * kRowHeight + 4);
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  const std::vector<attn::models::TopToken>& entries_;
};

PredictionPanel::PredictionPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent), model_(model), heading_(new QLabel(this)), bars_(new Bars(entries_, this)),
      effect_(new QLabel(this)) {
  setObjectName(QStringLiteral("PredictionPanel"));
  heading_->setWordWrap(true);
  heading_->setTextFormat(Qt::PlainText);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 6, 8, 6);
  layout->addWidget(heading_);
  layout->addWidget(bars_);
  effect_->setWordWrap(true);
  effect_->setTextFormat(Qt::PlainText);
  effect_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  effect_->hide();
  layout->addWidget(effect_);
  layout->addStretch(1);
  setToolTip(
      tr("The model's five most probable next tokens after the pinned query position "
         "(click a heatmap row to pin it; the last token when none is pinned). Masked-LM models "
         "(BERT): the five most probable tokens at a [MASK] of the text."));
  connect(model_, &ExplorerModel::resultChanged, this, &PredictionPanel::refresh);
  connect(model_, &ExplorerModel::pinnedRowChanged, this, &PredictionPanel::refresh);
  connect(model_, &ExplorerModel::modelChanged, this, &PredictionPanel::refresh);
  refresh();
}

void PredictionPanel::refresh() {
  entries_.clear();
  position_ = -1;
  const auto m = model_->modelPtr();
  const auto run = model_->modelRun();
  if (m && m->info().causal && run && !run->nextTokens.empty()) {
    const int n = static_cast<int>(run->nextTokens.size());
    const int pinned = model_->pinnedRow();
    position_ = pinned >= 0 && pinned < n ? pinned : n - 1;
    entries_ = run->nextTokens[static_cast<size_t>(position_)];
    // A streamed run predicts after its last token only: another pinned position costs one
    // row through the LM head (milliseconds), computed when it is asked for.
    if (entries_.empty())
      if (auto top = m->nextTokensAt(*run, position_, static_cast<int>(run->nextTokens.back().size())))
        entries_ = std::move(top).value();
  } else if (m && m->info().vision && run && !run->topLabels.empty()) {
    position_ = 0;  // an image classifier: one prediction for the whole image
    entries_ = run->topLabels;
  } else if (m && !m->info().causal && run && !run->maskPredictions.empty() &&
             run->maskPredictions.size() == run->maskPositions.size()) {
    // Masked-LM models: what the head predicts at a mask token, the pinned row's when it is one.
    size_t k = 0;
    for (size_t i = 0; i < run->maskPositions.size(); ++i)
      if (run->maskPositions[i] == model_->pinnedRow()) k = i;
    position_ = run->maskPositions[k];
    entries_ = run->maskPredictions[k];
  }
  std::sort(entries_.begin(), entries_.end(),
            [](const attn::models::TopToken& a, const attn::models::TopToken& b) { return a.prob > b.prob; });
  heading_->setText(heading());
  bars_->refresh();
}

void PredictionPanel::setEffect(const QString& text) {
  effect_->setText(text);
  effect_->setVisible(!text.isEmpty());
}

QString PredictionPanel::effect() const { return effect_->text(); }

QString PredictionPanel::heading() const {
  const auto m = model_->modelPtr();
  if (!m) return tr("Open a model (File > Open Model…) to see what it predicts after each token.");
  const QString name = QString::fromStdString(m->info().name);
  const auto run = model_->modelRun();
  if (m->info().vision)
    return run && !run->topLabels.empty()
               ? tr("%1's classifier on the image: its 5 most probable labels").arg(name)
               : tr("%1 has no classifier head: it predicts no label for the image").arg(name);
  const QString mask = QString::fromStdString(m->info().maskToken);
  if (!m->info().causal && (mask.isEmpty() || !run || position_ < 0))
    return mask.isEmpty()
               ? tr("Next-token predictions are for causal models (GPT-2, Llama); %1 is bidirectional "
                    "and sees the whole text at once.")
                     .arg(name)
               : tr("Next-token predictions are for causal models (GPT-2, Llama); %1 is bidirectional: "
                    "type %2 in place of a word to see what it predicts there.")
                     .arg(name, mask);
  if (!run || position_ < 0) return tr("%1 is running…").arg(name);
  if (!m->info().causal)
    return run->maskPositions.size() > 1
               ? tr("At %1 (position %2), %3 predicts (pin another %1 row to see its predictions):")
                     .arg(mask)
                     .arg(position_)
                     .arg(name)
               : tr("At %1 (position %2), %3 predicts:").arg(mask).arg(position_).arg(name);
  const QString token = QStringLiteral("“%1”").arg(model_->queryLabels().value(position_));
  return model_->pinnedRow() >= 0
             ? tr("After %1 (position %2, pinned), %3 predicts:").arg(token).arg(position_).arg(name)
             : tr("After the last token %1 (position %2), %3 predicts (click a heatmap row to pin another):")
                   .arg(token).arg(position_).arg(name);
}

void PredictionPanel::Bars::paintEvent(QPaintEvent*) {
  if (entries_.empty()) return;
  QPainter p(this);
  const QRect area = rect().adjusted(0, 2, 0, -2);
  const int barLeft = area.left() + kTokenWidth + 6;
  const int barWidth = std::max(10, area.width() - kTokenWidth - kPercentWidth - 12);
  const QColor bar = palette().highlight().color();
  for (size_t i = 0; i < entries_.size(); ++i) {
    const int y = area.top() + static_cast<int>(i) * kRowHeight;
    const QRect tokenBox(area.left(), y, kTokenWidth, kRowHeight - 4);
    p.setPen(palette().text().color());
    p.drawText(tokenBox, Qt::AlignRight | Qt::AlignVCenter,
               p.fontMetrics().elidedText(visibleToken(entries_[i].token), Qt::ElideMiddle, kTokenWidth));
    const QRect track(barLeft, y + 4, barWidth, kRowHeight - 12);
    p.fillRect(track, palette().alternateBase());
    // Bars on an absolute 0..1 scale, so a confident and an unsure prediction look different.
    const double prob = std::clamp(static_cast<double>(entries_[i].prob), 0.0, 1.0);
    p.fillRect(QRect(track.left(), track.top(), static_cast<int>(prob * track.width()), track.height()), bar);
    p.drawText(QRect(track.right() + 6, y, kPercentWidth, kRowHeight - 4), Qt::AlignLeft | Qt::AlignVCenter,
               tr("%1 %").arg(100.0 * prob, 0, 'f', prob < 0.001 ? 3 : 1));
  }
}

}  // namespace attn::ui
