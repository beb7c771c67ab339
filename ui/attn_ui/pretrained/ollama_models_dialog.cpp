#include "attn_ui/pretrained/ollama_models_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "attn/models/gguf/ollama_store.h"

namespace attn::ui {
namespace {
enum OllamaColumn { kOllamaName, kOllamaTag, kOllamaSize };
}

OllamaModelsDialog::OllamaModelsDialog(QWidget* parent)
    : QDialog(parent),
      where_(new QLabel(this)),
      list_(new QTreeWidget(this)),
      problems_(new QLabel(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this)) {
  setWindowTitle(tr("Open Ollama Model"));
  where_->setWordWrap(true);
  where_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  problems_->setWordWrap(true);
  problems_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  problems_->setStyleSheet(QStringLiteral("color: palette(placeholder-text);"));
  list_->setHeaderLabels({tr("Model"), tr("Tag"), tr("Size")});
  list_->setRootIsDecorated(false);
  list_->setUniformRowHeights(true);
  list_->setAllColumnsShowFocus(true);
  list_->header()->setStretchLastSection(false);
  list_->header()->setSectionResizeMode(kOllamaName, QHeaderView::Stretch);
  list_->header()->setSectionResizeMode(kOllamaTag, QHeaderView::ResizeToContents);
  list_->header()->setSectionResizeMode(kOllamaSize, QHeaderView::ResizeToContents);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(where_);
  layout->addWidget(list_, 1);
  layout->addWidget(problems_);
  layout->addWidget(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(list_, &QTreeWidget::itemSelectionChanged, this, &OllamaModelsDialog::updateOk);
  connect(list_, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
    if (item && !item->data(kOllamaName, Qt::UserRole).toString().isEmpty()) accept();
  });
  resize(560, 360);
  fill();
}

void OllamaModelsDialog::fill() {
  // A store is a handful of small manifests: read here, at most 500 of them.
  const attn::models::gguf::OllamaStoreListing store = attn::models::gguf::listOllamaModels();
  const QString manifests = QDir::toNativeSeparators(QString::fromStdString(store.manifests));
  QStringList broken;
  for (const auto& m : store.models) {
    auto* item = new QTreeWidgetItem(list_);
    item->setText(kOllamaName, QString::fromStdString(m.name));
    item->setText(kOllamaTag, QString::fromStdString(m.tag));
    item->setToolTip(kOllamaName, QString::fromStdString(m.spec));
    if (m.error.empty()) {
      item->setData(kOllamaName, Qt::UserRole, QString::fromStdString(m.spec));
      item->setText(kOllamaSize, QLocale().formattedDataSize(m.bytes));
      item->setTextAlignment(kOllamaSize, Qt::AlignRight | Qt::AlignVCenter);
    } else {
      item->setText(kOllamaSize, tr("broken"));
      item->setFlags(item->flags() & ~(Qt::ItemIsSelectable | Qt::ItemIsEnabled));
      item->setToolTip(kOllamaSize, QString::fromStdString(m.error));
      broken << QString::fromStdString(m.error);
    }
  }
  if (!store.found)
    where_->setText(tr("No Ollama store at %1. Ollama keeps its models in ~/.ollama/models unless "
                       "$OLLAMA_MODELS names another folder; set it and reopen this dialog.")
                        .arg(manifests));
  else if (store.models.empty())
    where_->setText(
        tr("No models in %1. Pull one with ollama pull NAME, or set $OLLAMA_MODELS to another store.")
            .arg(manifests));
  else
    where_->setText(tr("Models in %1:").arg(manifests));
  QString text;
  if (!broken.isEmpty())
    text = tr("%n manifest(s) could not be read:", nullptr, static_cast<int>(broken.size())) +
           QLatin1Char('\n') + broken.join(QLatin1Char('\n'));
  if (store.truncated) {
    if (!text.isEmpty()) text += QLatin1Char('\n');
    text += tr("Only the first %1 manifests are listed.").arg(store.models.size());
  }
  problems_->setText(text);
  problems_->setVisible(!text.isEmpty());
  list_->setVisible(!store.models.empty());
  for (const auto& m : store.models)  // the first that opens is picked, so Enter opens it
    if (m.error.empty() && select(QString::fromStdString(m.spec))) break;
  updateOk();
}

void OllamaModelsDialog::updateOk() {
  buttons_->button(QDialogButtonBox::Open)->setEnabled(!selectedSpec().isEmpty());
}

QString OllamaModelsDialog::selectedSpec() const {
  const QList<QTreeWidgetItem*> picked = list_->selectedItems();
  return picked.isEmpty() ? QString() : picked.front()->data(kOllamaName, Qt::UserRole).toString();
}

bool OllamaModelsDialog::select(const QString& spec) {
  for (int i = 0; i < list_->topLevelItemCount(); ++i) {
    QTreeWidgetItem* item = list_->topLevelItem(i);
    if (item->data(kOllamaName, Qt::UserRole).toString() == spec) {
      list_->setCurrentItem(item);
      item->setSelected(true);
      return true;
    }
  }
  return false;
}

QString OllamaModelsDialog::problems() const { return problems_->text(); }

}  // namespace attn::ui
