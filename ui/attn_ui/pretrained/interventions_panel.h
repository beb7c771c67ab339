#pragma once
// The Interventions dock: what is active on which head (one line each, the
// newest last), Remove for the selected ones, Undo / Redo / Clear, and what
// the interventions changed overall (the first changed layer, the final hidden
// states, and for causal models the next-token KL and mean loss; for encoders
// the [CLS] representation), from attn::models::compareRuns.
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace attn::models {
struct RunComparison;
}

namespace attn::ui {

class InterventionsController;

class InterventionsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InterventionsPanel(InterventionsController* controller, QWidget* parent = nullptr);

  QListWidget* list() const { return list_; }
  QPushButton* removeButton() const { return remove_; }
  /// The summary under the list.
  QString summaryText() const;
  QSize sizeHint() const override { return {280, 260}; }

 private:
  void refreshList();
  void refreshSummary();
  void removeSelected();

  InterventionsController* controller_;
  QListWidget* list_;
  QPushButton* remove_;
  QLabel* summary_;
};

/// The overall effect in a few lines (plain text); empty without a comparison.
QString interventionSummaryText(const attn::models::RunComparison& c);

}  // namespace attn::ui
