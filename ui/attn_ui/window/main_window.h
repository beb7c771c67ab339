#pragma once
// The explorer window. It only builds panels over the shared view-model and
// wires menus; panels live in their own classes (no god object).
//
// Adding a panel (other features): construct it over model() and call
//   window.addPanel(tr("Metrics"), new MetricsPanel(window.model()), Qt::RightDockWidgetArea);
// from installExtraPanels() in panel_registry.cpp. The dock is listed in the
// View menu and its place is remembered with the window layout. Menu entries go
// in menu("&File") / menu("&Export") / ... (created on first use, before Help).
#include <QMainWindow>
#include <QString>

class QDockWidget;
class QMenu;

namespace attn::ui {

class ConfigPanel;
class DockLayout;
class ExplorerModel;
class FileOpenController;
class HeatmapPanel;
class HeatmapWidget;
class InputPanel;
class ModelOpenController;
class BundledModelsMenu;
class SessionController;
class StatusSummary;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  ExplorerModel* model() const { return model_; }
  HeatmapPanel* heatmapPanel() const { return heatmapPanel_; }
  HeatmapWidget* heatmap() const;
  InputPanel* inputPanel() const { return inputPanel_; }
  ConfigPanel* configPanel() const { return configPanel_; }
  SessionController* sessions() const { return sessions_; }
  FileOpenController* fileOpener() const { return files_; }
  ModelOpenController* modelOpener() const { return models_; }
  BundledModelsMenu* bundledModels() const { return bundled_; }
  StatusSummary* statusSummary() const { return status_; }
  DockLayout* dockLayout() const { return docks_; }

  /// Puts `panel` in a dock titled `title`, lists it in the View menu, and
  /// returns the dock. The dock's object name (for the saved layout) is the
  /// panel's class name unless the panel has an object name.
  QDockWidget* addPanel(const QString& title, QWidget* panel,
                        Qt::DockWidgetArea area = Qt::RightDockWidgetArea);
  /// Opens a dropped or command-line file (tensors, .txt text or a .json
  /// session), model folder, .gguf file or ollama:NAME[:TAG] on a worker; false
  /// when it is not one it opens.
  bool openFile(const QString& path);
  /// The top-level menu with this title, created (before Help) on first use.
  QMenu* menu(const QString& title);
  QMenu* fileMenu() { return menu(tr("&File")); }
  QMenu* viewMenu() { return menu(tr("&View")); }

 protected:
  void closeEvent(class QCloseEvent* event) override;
  void dragEnterEvent(class QDragEnterEvent* event) override;
  void dropEvent(class QDropEvent* event) override;
  void showEvent(class QShowEvent* event) override;

 private:
  void buildMenus();
  void restoreLayout();

  ExplorerModel* model_;
  HeatmapPanel* heatmapPanel_;
  InputPanel* inputPanel_;
  ConfigPanel* configPanel_;
  SessionController* sessions_ = nullptr;
  FileOpenController* files_ = nullptr;
  ModelOpenController* models_ = nullptr;
  BundledModelsMenu* bundled_ = nullptr;
  StatusSummary* status_ = nullptr;
  DockLayout* docks_ = nullptr;
  QMenu* helpMenu_ = nullptr;
  QMenu* panelsMenu_ = nullptr;
  bool fittedToScreen_ = false;
};

/// Adds the panels other features contribute (metrics, step-through, ...).
/// Defined in panel_registry.cpp so that adding a panel touches one line there.
void installExtraPanels(MainWindow& window);

}  // namespace attn::ui
