#pragma once
// How the window's docks share the screen, and how that follows what is open.
//
// A pretrained model fixes every control of the Configuration dock (its
// mechanism, sizes, mask and positions are the model's), so while a model is
// open that dock steps aside: the Input dock's model card says what the model
// is, and the heatmap and the right-hand docks get the room. Closing the model
// (or opening a file in its place) brings the dock back. View > Hide
// Configuration While a Model Is Open turns this off; showing the dock from
// View > Panels keeps it for that model.
//
// Default sizes (a saved layout replaces them): each side gets the width its
// panels need to show their controls unclipped, the heatmap the rest. The
// right column keeps the head grid and the metrics on top and tabs the other
// docks below them (predictions, step-through, experiments), so a 768-pixel
// screen still shows each one's controls.
#include <QList>
#include <QObject>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;
class QSettings;

namespace attn::ui {

class ExplorerModel;

class DockLayout : public QObject {
  Q_OBJECT
 public:
  DockLayout(QMainWindow* window, ExplorerModel* model, QDockWidget* configDock, QMenu* viewMenu);

  /// Sizes the shown docks for the window's current size: the left and right
  /// columns as wide as their panels need to show their controls.
  void applyDefaultSizes();

  /// `panel` in a frameless vertical scroll area named like it (the dock's saved
  /// name stays the panel's), for panels taller than a laptop screen.
  static QWidget* scrollable(QWidget* panel);

  /// The layout is saved with the Configuration dock as the user left it, not
  /// as a model hid it (settings key window/configStepsAside).
  void save(QSettings& settings) const;
  void restore(QSettings& settings);

  /// View > Hide Configuration While a Model Is Open (checked by default).
  QAction* hideWithModelAction() const { return hideWithModel_; }
  /// The Configuration dock is hidden because a model is open.
  bool steppedAside() const { return steppedAside_; }

 private:
  void followModel();
  QList<QDockWidget*> shownDocks(Qt::DockWidgetArea area) const;
  void stackRightColumn();
  void fitLeftColumn();
  void raiseForMode();

  QMainWindow* window_;
  ExplorerModel* model_;
  QDockWidget* configDock_;
  QAction* hideWithModel_;
  bool steppedAside_ = false;
  QDockWidget* predictions_ = nullptr;  // the right column's tab group: predictions with a model,
  QDockWidget* steps_ = nullptr;        // the step-through without one
};

}  // namespace attn::ui
