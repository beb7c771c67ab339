#pragma once
// Work that only a visible panel needs, deferred while nobody can see it
// (the closed Compare dock re-ran every change of the explorer a
// second time, and the closed geometry and tiling docks recomputed on the GUI
// thread, while the user dragged the temperature slider). A panel counts as
// unseen when its window is on screen and the panel is not (a closed dock, a
// tab behind another); with no window on screen (tests, start-up) the work
// runs at once, as before.
#include <QObject>
#include <functional>

class QWidget;

namespace attn::ui {

class HiddenPanelGate : public QObject {
 public:
  /// `work` runs for `panel`; the gate is a child of the panel.
  HiddenPanelGate(QWidget* panel, std::function<void()> work);

  /// Runs the work now, or when the panel is next shown if it is unseen.
  void request();
  /// True while a request waits for the panel to be shown.
  bool pending() const { return pending_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* panel_;
  std::function<void()> work_;
  bool pending_ = false;
};

}  // namespace attn::ui
