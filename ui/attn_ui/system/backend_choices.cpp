#include "attn_ui/system/backend_choices.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QStandardItemModel>

#include "attn/backend.h"
#include "attn_ui/common/core_text.h"

namespace attn::ui {
namespace {

QString tr(const char* s) { return QCoreApplication::translate("BackendChoices", s); }

}  // namespace

bool fillBackendChoices(QComboBox* box) {
  box->clear();
  bool cudaFound = false;
  for (const attn::BackendInfo& b : attn::backendsFound()) {
    const QString name = qs(attn::backendName(b.kind));
    if (b.kind == attn::BackendKind::Cpu) {
      box->addItem(tr("CPU"), name);
      continue;
    }
    if (b.available) {
      box->addItem(QString::fromStdString(b.label), name);
      cudaFound = true;
      continue;
    }
    box->addItem(tr("CUDA (unavailable)"), name);
    const int row = box->count() - 1;
    box->setItemData(row, tr("Not available: %1").arg(QString::fromStdString(b.reason)), Qt::ToolTipRole);
    if (auto* model = qobject_cast<QStandardItemModel*>(box->model()))
      if (QStandardItem* item = model->item(row)) item->setEnabled(false);
  }
  box->addItem(tr("Auto (%1)").arg(cudaFound ? QStringLiteral("CUDA") : QStringLiteral("CPU")),
               qs(attn::backendName(attn::BackendKind::Auto)));
  return cudaFound;
}

}  // namespace attn::ui
