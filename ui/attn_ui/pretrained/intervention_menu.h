#pragma once
// The head's intervention menu (right-click on a head tile or the heatmap):
// Ablate, Uniform, Temperature…, Mask…, and Remove for what is already on the
// head. Temperature… and Mask… open a small dialog that checks its value with
// the controller (the core mask grammar) and shows one clear message.
#include <QDialog>

#include "attn/models/experiments/interventions.h"

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QMenu;
class QWidget;

namespace attn::ui {

class InterventionsController;

/// A menu for head (layer, head), 0-based; the caller shows and deletes it.
QMenu* interventionMenu(InterventionsController* controller, int layer, int head, QWidget* parent);

class InterventionDialog : public QDialog {
  Q_OBJECT
 public:
  /// kind is Temperature or Mask.
  InterventionDialog(InterventionsController* controller, attn::models::InterventionKind kind, int layer, int head,
                     QWidget* parent = nullptr);
  QDoubleSpinBox* temperature() const { return temperature_; }
  QLineEdit* mask() const { return mask_; }
  /// The refusal shown under the field (empty when none).
  QString errorText() const;

 public slots:
  /// Adds the intervention; stays open with the message when the controller refuses it.
  void accept() override;

 private:
  InterventionsController* controller_;
  attn::models::HeadIntervention iv_;
  QDoubleSpinBox* temperature_ = nullptr;
  QLineEdit* mask_ = nullptr;
  QLabel* error_;
};

}  // namespace attn::ui
