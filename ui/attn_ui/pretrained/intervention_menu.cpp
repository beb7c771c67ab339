#include "attn_ui/pretrained/intervention_menu.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>

#include "attn_ui/pretrained/interventions_controller.h"

namespace attn::ui {

using attn::models::HeadIntervention;
using attn::models::InterventionKind;

QMenu* interventionMenu(InterventionsController* controller, int layer, int head, QWidget* parent) {
  auto* menu = new QMenu(parent);
  menu->setToolTipsVisible(true);
  menu->addSection(InterventionsController::tr("Layer %1, head %2").arg(layer + 1).arg(head + 1));
  auto plain = [controller, layer, head](InterventionKind kind) {
    HeadIntervention iv;
    iv.kind = kind;
    iv.layer = layer;
    iv.head = head;
    controller->add(iv);
  };
  menu->addAction(InterventionsController::tr("&Ablate"), controller, [plain] { plain(InterventionKind::Ablate); })
      ->setToolTip(InterventionsController::tr("Zero this head's output (as Hugging Face's head_mask = 0)."));
  menu->addAction(InterventionsController::tr("&Uniform"), controller, [plain] { plain(InterventionKind::Uniform); })
      ->setToolTip(InterventionsController::tr("Replace this head's weights by uniform attention over its allowed keys."));
  menu->addAction(InterventionsController::tr("&Temperature…"), controller, [=] {
    InterventionDialog(controller, InterventionKind::Temperature, layer, head, parent).exec();
  });
  menu->addAction(InterventionsController::tr("&Mask…"), controller, [=] {
    InterventionDialog(controller, InterventionKind::Mask, layer, head, parent).exec();
  });
  const auto& active = controller->active();
  bool first = true;
  for (int i = 0; i < static_cast<int>(active.size()); ++i) {
    if (active[static_cast<size_t>(i)].layer != layer || active[static_cast<size_t>(i)].head != head) continue;
    if (first) menu->addSeparator();
    first = false;
    menu->addAction(InterventionsController::tr("Remove “%1”").arg(interventionKindText(active[static_cast<size_t>(i)])),
                    controller, [controller, i] { controller->remove(i); });
  }
  return menu;
}

InterventionDialog::InterventionDialog(InterventionsController* controller, InterventionKind kind, int layer, int head,
                                       QWidget* parent)
    : QDialog(parent), controller_(controller), error_(new QLabel(this)) {
  iv_.kind = kind;
  iv_.layer = layer;
  iv_.head = head;
  auto* form = new QFormLayout(this);
  if (kind == InterventionKind::Temperature) {
    setWindowTitle(tr("Temperature for layer %1, head %2").arg(layer + 1).arg(head + 1));
    temperature_ = new QDoubleSpinBox(this);
    temperature_->setRange(0.01, 100.0);
    temperature_->setDecimals(2);
    temperature_->setSingleStep(0.1);
    temperature_->setValue(2.0);
    temperature_->setToolTip(tr("The head's logits (after 1/√d) are divided by this: above 1 flattens its attention, "
                                "below 1 sharpens it."));
    form->addRow(tr("&Temperature:"), temperature_);
  } else {
    setWindowTitle(tr("Mask for layer %1, head %2").arg(layer + 1).arg(head + 1));
    mask_ = new QLineEdit(this);
    mask_->setPlaceholderText(tr("e.g. window:2, causal, global:0+window:1"));
    mask_->setToolTip(tr("A term of the mask grammar, combined with the model's own mask: the head may attend only "
                         "where both allow."));
    form->addRow(tr("&Mask:"), mask_);
  }
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  error_->hide();
  form->addRow(error_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &InterventionDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);
}

QString InterventionDialog::errorText() const { return error_->text(); }

void InterventionDialog::accept() {
  HeadIntervention iv = iv_;
  if (temperature_) iv.temperature = static_cast<float>(temperature_->value());
  if (mask_) iv.mask = mask_->text().trimmed().toStdString();
  QString error;
  if (!controller_->add(iv, &error)) {
    error_->setText(error);
    error_->show();
    return;
  }
  QDialog::accept();
}

}  // namespace attn::ui
