#include "attn_ui/pretrained/bundled_models_menu.h"

#include <QAction>
#include <QMenu>
#include <QStatusBar>
#include <QTimer>

#include "attn/models/bundled_models.h"
#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/window/examples.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

QString menuTextOfSentence(const std::string& sentence) {
  QString s = QString::fromStdString(sentence).simplified();
  // Elided in the middle: a menu entry ending in "…" promises a dialog.
  if (s.size() > 64) s = s.left(44) + QStringLiteral(" … ") + s.right(17);
  return s.replace(QLatin1Char('&'), QStringLiteral("&&"));
}

}  // namespace

BundledModelsMenu::BundledModelsMenu(MainWindow* window)
    : QObject(window),
      window_(window),
      openMenu_(new QMenu(tr("Open &Bundled Model"), window)),
      examples_(window->menu(tr("E&xamples"))) {
  buildOpenMenu();
  buildExamplesMenu();
  // openPath_ names the model on screen only while it is: another folder opened,
  // or the model closed, forgets it.
  connect(window_->modelOpener(), &ModelOpenController::opened, this, [this](const QString& path) {
    if (path != openPath_) openPath_.clear();
  });
  connect(window_->modelOpener(), &ModelOpenController::failed, this, [this] { openPath_.clear(); });
  connect(window_->modelOpener(), &ModelOpenController::cancelled, this, [this] { openPath_.clear(); });
  connect(window_->model(), &ExplorerModel::modelChanged, this, [this] {
    if (!window_->model()->hasModel()) openPath_.clear();
  });
}

QString BundledModelsMenu::description(const QString& name) {
  if (name == QLatin1String("austen-gpt2"))
    return tr("GPT-2 trained on Jane Austen's novels: attention learned from English prose");
  if (name == QLatin1String("austen-bert"))
    return tr(
        "BERT trained on Jane Austen's novels: bidirectional attention, heads on the previous and the next "
        "token, predictions at each [MASK]");
  if (name == QLatin1String("induction-2l"))
    return tr("Two attention-only layers trained on word sequences that repeat: type a phrase twice");
  if (name == QLatin1String("tang-poems-gpt2"))
    return tr(
        "Character-level GPT-2 trained on Tang and Song poems: heads that pair the two lines of a couplet");
  return {};
}

void BundledModelsMenu::buildOpenMenu() {
  for (const auto& m : models::bundledModels()) {
    const QString name = QString::fromStdString(m.name);
    QAction* a = openMenu_->addAction(name, this, [this, name] { open(name); });
    a->setData(name);  // a name, as Recent Models' entries are paths: never translated
    a->setToolTip(description(name));
    a->setStatusTip(description(name));
    a->setEnabled(models::bundledModelPath(m.name).has_value());
  }
  openMenu_->setToolTipsVisible(true);
  // After Open Model… and Recent Models.
  QMenu* file = window_->fileMenu();
  const QList<QAction*> actions = file->actions();
  const qsizetype at = actions.indexOf(window_->modelOpener()->recentMenu()->menuAction());
  file->insertMenu(actions.value(at + 1), openMenu_);
}

void BundledModelsMenu::buildExamplesMenu() {
  examples_->setToolTipsVisible(true);
  for (const auto& m : models::bundledModels()) {
    const QString name = QString::fromStdString(m.name);
    examples_->addSection(name)->setData(name);
    const bool installed = models::bundledModelPath(m.name).has_value();
    for (const std::string& sentence : m.examples) {
      const QString text = QString::fromStdString(sentence);
      QAction* a =
          examples_->addAction(menuTextOfSentence(sentence), this, [this, name, text] { open(name, text); });
      a->setToolTip(description(name));
      a->setData(text);  // the model's own language, not the interface's
      a->setEnabled(installed);
    }
  }
  examples_->addSection(tr("Random-projection explorer"));
  for (const Example& e : bundledExamples()) {
    QAction* a = examples_->addAction(e.title, this, [this, text = e.text] {
      window_->model()->clearModel();  // back to the mechanisms with seeded projections
      window_->inputPanel()->setQueryText(text);
    });
    a->setData(e.text);
    a->setToolTip(
        tr("Close the model and explore the mechanisms with seeded random projections on this text."));
  }
}

bool BundledModelsMenu::open(const QString& name, const QString& sentence) {
  const auto* entry = models::findBundledModel(name.toStdString());
  const auto path = entry ? models::bundledModelPath(entry->name) : std::nullopt;
  if (!path) {
    window_->model()->reportError(tr("The bundled model %1 is not installed (looked in %2).")
                                      .arg(name, QString::fromStdString(models::bundledModelDirsText())));
    return false;
  }
  const QString text = sentence.isEmpty() && !entry->examples.empty()
                           ? QString::fromStdString(entry->examples.front())
                           : sentence;
  if (!text.isEmpty()) window_->inputPanel()->setQueryText(text);
  const QString folder = QString::fromStdString(*path);
  if (folder != openPath_ || !window_->model()->hasModel()) {
    openPath_ = folder;
    showCardHeadOnFirstRun(folder, entry->layer, entry->head);
    window_->modelOpener()->open(folder);
  }
  return true;
}

// A freshly opened bundled model shows the head its card describes, once its first
// run arrives (the text mode's result, or the previous model's, while it loads does
// not count). A later bundled open replaces the wait.
void BundledModelsMenu::showCardHeadOnFirstRun(const QString& folder, int layer, int head) {
  ExplorerModel* m = window_->model();
  QObject::disconnect(pendingHead_);
  const std::string dir = folder.toStdString();
  pendingHead_ = connect(m, &ExplorerModel::resultChanged, this, [this, m, layer, head, dir] {
    if (!m->modelRun() || !m->hasModel() || m->modelPtr()->info().dir != dir) return;
    QObject::disconnect(pendingHead_);
    // Once every view has taken the new result, as a click on a head tile would.
    QTimer::singleShot(0, m, [m, layer, head] { m->setCurrentLayerHead(layer, head); });
  });
}

bool BundledModelsMenu::openDefault() {
  const QString name = QString::fromStdString(models::defaultBundledModel().name);
  if (!models::bundledModelPath(name.toStdString())) {
    window_->statusBar()->showMessage(
        tr("The bundled model %1 is not installed: showing the random-projection explorer.").arg(name),
        10000);
    return false;
  }
  return open(name);
}

}  // namespace attn::ui
