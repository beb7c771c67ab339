#pragma once
// View > Training… (Ctrl+Shift+T): opens the Training panel in its own
// window (one per main window, kept while the application runs, raised when
// already open). installExtraPanels (panel_registry.cpp) creates one.
#include <QObject>
#include <QPointer>

namespace attn::ui {

class MainWindow;
class TrainingPanel;

class TrainingWindowAction : public QObject {
  Q_OBJECT
 public:
  explicit TrainingWindowAction(MainWindow& window);
  /// The panel's window, or null before it was first opened.
  TrainingPanel* panel() const;

 public slots:
  /// Opens (or raises) the training window.
  void open();

 private:
  MainWindow* window_;
  QPointer<TrainingPanel> panel_;
};

}  // namespace attn::ui
