#include "attn_ui/pretrained/model_info_box.h"

#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QResizeEvent>
#include <algorithm>

#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/pretrained/model_text.h"

namespace attn::ui {

ModelInfoBox::ModelInfoBox(ExplorerModel* model, QWidget* parent)
    : QGroupBox(tr("Model"), parent),
      model_(model),
      summary_(new QLabel(this)),
      close_(new QPushButton(tr("Close Model"), this)) {
  summary_->setTextFormat(Qt::RichText);
  summary_->setWordWrap(true);
  summary_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  close_->setToolTip(tr("Close the model and attend over the text with the configured mechanism again."));
  // A card: the text below gets the spare height. Its size hint follows the width (sizeHint below),
  // so a narrow dock does not cut the wrapped lines off.
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(6, 2, 6, 4);
  row->addWidget(summary_, 1);
  row->addWidget(close_, 0, Qt::AlignTop);
  connect(close_, &QPushButton::clicked, model_, &ExplorerModel::clearModel);
  connect(model_, &ExplorerModel::modelChanged, this, &ModelInfoBox::refresh);
  connect(model_, &ExplorerModel::resultChanged, this, &ModelInfoBox::refresh);
  connect(model_, &ExplorerModel::currentLayerChanged, this, &ModelInfoBox::refresh);
  refresh();
}

// A word-wrapped label's own hint assumes a comfortable width; the card's height is what its
// lines take at the width it has.
QSize ModelInfoBox::sizeHint() const {
  QSize hint = QGroupBox::sizeHint();
  if (width() > 0 && hasHeightForWidth()) hint.setHeight(std::max(hint.height(), heightForWidth(width())));
  return hint;
}

void ModelInfoBox::resizeEvent(QResizeEvent* event) {
  QGroupBox::resizeEvent(event);
  if (event->oldSize().width() != event->size().width()) updateGeometry();
}

// "F16 weights" for a safetensors folder; a GGUF file's "Q4_K_M, 4.8 bits/weight" says it already.
QString ModelInfoBox::weightsLine(const attn::models::ModelInfo& info) {
  return info.quantization.empty() ? tr("%1 weights").arg(modelWeightsText(info)) : modelWeightsText(info);
}

void ModelInfoBox::refresh() {
  const auto m = model_->modelPtr();
  setVisible(m != nullptr);
  if (!m) return;
  const attn::models::ModelInfo& info = m->info();
  const QStringList f = facts();
  // name · family · causal / shape · parameters / dtype · tokenizer / tokens · layer
  QString html =
      QStringLiteral("<b>%1</b> · %2 · %3<br>%4 · %5<br>%6 · %7")
          .arg(QString::fromStdString(info.name).toHtmlEscaped(), modelFamilyText(info).toHtmlEscaped(),
               info.causal ? tr("causal") : tr("bidirectional"), modelShapeText(info).toHtmlEscaped(),
               tr("%1 parameters").arg(parameterCountText(info.parameters)),
               weightsLine(info).toHtmlEscaped(),
               tr("%1 tokenizer").arg(QString::fromStdString(info.tokenizerKind).toHtmlEscaped()));
  if (const auto run = model_->modelRun())
    html += QStringLiteral("<br>") + tr("%1 tokens · layer %2 of %3")
                                         .arg(run->encoding.size())
                                         .arg(model_->currentLayer() + 1)
                                         .arg(model_->numLayers());
  summary_->setText(html);
  const QString dir = QDir::toNativeSeparators(QString::fromStdString(info.dir));
  const QString where = info.quantization.empty() ? tr("Folder: %1").arg(dir)
                                                  : tr("File: %1").arg(QString::fromStdString(info.source));
  summary_->setToolTip(f.join(QLatin1Char('\n')) + QLatin1Char('\n') + where + QLatin1Char('\n') +
                       tr("Parameters: %1").arg(QLocale().toString(static_cast<qlonglong>(info.parameters))));
}

QStringList ModelInfoBox::facts() const {
  const auto m = model_->modelPtr();
  if (!m) return {};
  const attn::models::ModelInfo& info = m->info();
  return {tr("Name: %1").arg(QString::fromStdString(info.name)),
          tr("Family: %1").arg(modelFamilyText(info)),
          tr("Attention: %1").arg(modelShapeText(info)),
          tr("Parameters: %1").arg(parameterCountText(info.parameters)),
          tr("Weights: %1").arg(modelWeightsText(info)),
          tr("Tokenizer: %1").arg(QString::fromStdString(info.tokenizerKind))};
}

}  // namespace attn::ui
