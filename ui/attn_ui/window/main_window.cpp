#include "attn_ui/window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>

#include "attn_ui/explorer/config_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/head_grid.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/pretrained/bundled_models_menu.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/system/about_dialog.h"
#include "attn_ui/window/dock_layout.h"
#include "attn_ui/window/examples.h"
#include "attn_ui/window/file_open_controller.h"
#include "attn_ui/window/preferences_menu.h"
#include "attn_ui/window/screen_fit.h"
#include "attn_ui/window/session_controller.h"
#include "attn_ui/window/status_summary.h"

namespace attn::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      model_(new ExplorerModel(this)),
      heatmapPanel_(new HeatmapPanel(model_, this)),
      inputPanel_(new InputPanel(model_, this)),
      configPanel_(new ConfigPanel(model_, this)) {
  setWindowTitle(tr("AttnScope"));
  // Tabifying docks while they are added lays the window out with every panel stacked, and
  // that minimum would grow it past the screen; the finished layout needs far less. It sets
  // the window's minimum from the end of the constructor on.
  layout()->setSizeConstraint(QLayout::SetNoConstraint);
  resize(defaultWindowSize(screenOf(this)->availableGeometry()));
  setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
  setCentralWidget(heatmapPanel_);
  buildMenus();
  sessions_ = new SessionController(this);
  files_ = new FileOpenController(this);  // File > Open… and Recent Files, above the session entries
  models_ = new ModelOpenController(this);  // File > Open Model… and Recent Models, after them
  bundled_ = new BundledModelsMenu(this);   // File > Open Bundled Model, and the Examples menu
  new PreferencesMenu(this);
  setAcceptDrops(true);
  addPanel(tr("Input"), inputPanel_, Qt::LeftDockWidgetArea);
  // Taller than a 768-pixel screen with every mask row: it scrolls.
  QDockWidget* configDock =
      addPanel(tr("Configuration"), DockLayout::scrollable(configPanel_), Qt::LeftDockWidgetArea);
  auto* grid = new HeadGrid(model_, this);
  grid->setColormap(heatmapPanel_->colormapSelector()->currentData().toString());
  connect(heatmapPanel_, &HeatmapPanel::colormapChanged, grid, &HeadGrid::setColormap);
  addPanel(tr("Heads"), grid, Qt::RightDockWidgetArea);
  status_ = new StatusSummary(model_, this);
  statusBar()->addWidget(status_, 1);

  installExtraPanels(*this);
  docks_ = new DockLayout(this, model_, configDock, viewMenu());
  docks_->applyDefaultSizes();
  restoreLayout();
  layout()->setSizeConstraint(QLayout::SetDefaultConstraint);
  configPanel_->applyToModel();
  inputPanel_->setQueryText(exampleSentence());
}

MainWindow::~MainWindow() = default;

HeatmapWidget* MainWindow::heatmap() const { return heatmapPanel_->heatmap(); }

QDockWidget* MainWindow::addPanel(const QString& title, QWidget* panel, Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  const QString name = panel->objectName().isEmpty()
                           ? QString::fromLatin1(panel->metaObject()->className())
                           : panel->objectName();
  dock->setObjectName(name + QStringLiteral("Dock"));
  dock->setWidget(panel);
  addDockWidget(area, dock);
  panelsMenu_->addAction(dock->toggleViewAction());
  return dock;
}

QMenu* MainWindow::menu(const QString& title) {
  for (QAction* a : menuBar()->actions())
    if (a->menu() && a->text() == title) return a->menu();
  auto* m = new QMenu(title, this);
  if (helpMenu_)
    menuBar()->insertMenu(helpMenu_->menuAction(), m);
  else
    menuBar()->addMenu(m);
  return m;
}

void MainWindow::buildMenus() {
  QMenu* file = fileMenu();
  QMenu* view = viewMenu();
  helpMenu_ = menuBar()->addMenu(tr("&Help"));

  file->addSeparator();  // File > Export Figure / Data come from ClassroomActions (panel_registry.cpp)
  auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  quit->setMenuRole(QAction::QuitRole);

  panelsMenu_ = view->addMenu(tr("&Panels"));
  view->addSeparator();
  for (QAction* a : heatmapPanel_->viewActions()) view->addAction(a);

  helpMenu_->addAction(tr("&About AttnScope"), this, [this] { AboutDialog(this).exec(); });
}

void MainWindow::restoreLayout() {
  QSettings s;
  restoreGeometry(s.value("window/geometry").toByteArray());
  restoreState(s.value("window/state").toByteArray());
  docks_->restore(s);
}

bool MainWindow::openFile(const QString& path) {
  // A folder, .gguf file or ollama: name; Model::open says what is wrong with any other.
  if (ModelOpenController::isModelPath(path)) {
    models_->open(path);
    return ModelOpenController::canOpen(path);
  }
  files_->open(path);
  return FileOpenController::canOpen(path);
}

static bool opensDropped(const QUrl& url) {
  return url.isLocalFile() &&
         (FileOpenController::canOpen(url.toLocalFile()) || ModelOpenController::canOpen(url.toLocalFile()));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (opensDropped(url)) return event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())  // the first file or model folder it can open
    if (opensDropped(url)) {
      openFile(url.toLocalFile());
      return event->acceptProposedAction();
    }
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  // Once, when the frame is known: the default size or a geometry saved on another screen.
  if (!fittedToScreen_) {
    fittedToScreen_ = true;
    fitToScreen(this);
  }
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings s;
  s.setValue("window/geometry", saveGeometry());
  s.setValue("window/state", saveState());
  docks_->save(s);
  QMainWindow::closeEvent(event);
}

}  // namespace attn::ui
