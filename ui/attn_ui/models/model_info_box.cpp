#include "attn_ui/models/model_info_box.h"

#include <QDir>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>

#include "attn/models/model.h"
#include "attn_ui/explorer_model.h"
#include "attn_ui/models/model_text.h"

namespace attn::ui {

ModelInfoBox::ModelInfoBox(ExplorerModel* model, QWidget* parent)
    : QGroupBox(tr("Model"), parent),
      model_(model),
      name_(new QLabel(this)),
      family_(new QLabel(this)),
      shape_(new QLabel(this)),
      parameters_(new QLabel(this)),
      dtype_(new QLabel(this)),
      tokenizer_(new QLabel(this)),
      folder_(new QLabel(this)),
      close_(new QPushButton(tr("Close Model"), this)) {
  QFont bold = name_->font();
  bold.setBold(true);
  name_->setFont(bold);
  for (QLabel* l : {name_, family_, shape_, parameters_, dtype_, tokenizer_, folder_})
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  folder_->setWordWrap(true);
  close_->setToolTip(tr("Close the model and attend over the text with the configured mechanism again."));
  auto* form = new QFormLayout(this);
  form->setContentsMargins(6, 4, 6, 4);
  form->addRow(tr("Name"), name_);
  form->addRow(tr("Family"), family_);
  form->addRow(tr("Attention"), shape_);
  form->addRow(tr("Parameters"), parameters_);
  form->addRow(tr("Weights"), dtype_);
  form->addRow(tr("Tokenizer"), tokenizer_);
  form->addRow(tr("Folder"), folder_);
  form->addRow(QString(), close_);
  connect(close_, &QPushButton::clicked, model_, &ExplorerModel::clearModel);
  connect(model_, &ExplorerModel::modelChanged, this, &ModelInfoBox::refresh);
  refresh();
}

void ModelInfoBox::refresh() {
  const auto m = model_->modelPtr();
  setVisible(m != nullptr);
  if (!m) return;
  const attn::models::ModelInfo& info = m->info();
  name_->setText(QString::fromStdString(info.name));
  family_->setText(modelFamilyText(info));
  shape_->setText(modelShapeText(info) + (info.causal ? tr(", causal") : tr(", bidirectional")));
  parameters_->setText(parameterCountText(info.parameters));
  parameters_->setToolTip(QLocale().toString(static_cast<qlonglong>(info.parameters)));
  dtype_->setText(QString::fromStdString(info.dtype));
  tokenizer_->setText(QString::fromStdString(info.tokenizerKind));
  const QString dir = QDir::toNativeSeparators(QString::fromStdString(info.dir));
  folder_->setText(fontMetrics().elidedText(dir, Qt::ElideMiddle, 260));
  folder_->setToolTip(dir);
}

QStringList ModelInfoBox::facts() const {
  if (!model_->hasModel()) return {};
  return {tr("Name: %1").arg(name_->text()),           tr("Family: %1").arg(family_->text()),
          tr("Attention: %1").arg(shape_->text()),     tr("Parameters: %1").arg(parameters_->text()),
          tr("Weights: %1").arg(dtype_->text()),       tr("Tokenizer: %1").arg(tokenizer_->text())};
}

}  // namespace attn::ui
