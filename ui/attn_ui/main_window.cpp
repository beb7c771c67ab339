#include "attn_ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include "attn_ui/config_panel.h"
#include "attn_ui/examples.h"
#include "attn_ui/explorer_model.h"
#include "attn_ui/file_open_controller.h"
#include "attn_ui/head_grid.h"
#include "attn_ui/heatmap_panel.h"
#include "attn_ui/input_panel.h"
#include "attn_ui/preferences_menu.h"
#include "attn_ui/session_controller.h"
#include "attn_ui/status_summary.h"

namespace attn::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      model_(new ExplorerModel(this)),
      heatmapPanel_(new HeatmapPanel(model_, this)),
      inputPanel_(new InputPanel(model_, this)),
      configPanel_(new ConfigPanel(model_, this)) {
  setWindowTitle(tr("AttnScope"));
  resize(1280, 820);
  setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
  setCentralWidget(heatmapPanel_);
  buildMenus();
  sessions_ = new SessionController(this);
  files_ = new FileOpenController(this);  // File > Open… and Recent Files, above the session entries
  new PreferencesMenu(this);
  setAcceptDrops(true);
  addPanel(tr("Input"), inputPanel_, Qt::LeftDockWidgetArea);
  addPanel(tr("Configuration"), configPanel_, Qt::LeftDockWidgetArea);
  auto* grid = new HeadGrid(model_, this);
  grid->setColormap(heatmapPanel_->colormapSelector()->currentData().toString());
  connect(heatmapPanel_, &HeatmapPanel::colormapChanged, grid, &HeadGrid::setColormap);
  addPanel(tr("Heads"), grid, Qt::RightDockWidgetArea);
  status_ = new StatusSummary(model_, this);
  statusBar()->addWidget(status_, 1);

  installExtraPanels(*this);
  restoreLayout();
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

  helpMenu_->addAction(tr("&About AttnScope"), this, [this] {
    QMessageBox::about(this, tr("About AttnScope"),
                       tr("AttnScope %1 — an attention visualizer.")
                           .arg(QApplication::applicationVersion()));
  });
}

void MainWindow::restoreLayout() {
  QSettings s;
  restoreGeometry(s.value("window/geometry").toByteArray());
  restoreState(s.value("window/state").toByteArray());
}

bool MainWindow::openFile(const QString& path) {
  files_->open(path);
  return FileOpenController::canOpen(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile() && FileOpenController::canOpen(url.toLocalFile())) return event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())  // the first file it can open
    if (url.isLocalFile() && FileOpenController::canOpen(url.toLocalFile())) {
      openFile(url.toLocalFile());
      return event->acceptProposedAction();
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings s;
  s.setValue("window/geometry", saveGeometry());
  s.setValue("window/state", saveState());
  QMainWindow::closeEvent(event);
}

}  // namespace attn::ui
