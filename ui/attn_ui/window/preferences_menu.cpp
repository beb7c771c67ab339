#include "attn_ui/window/preferences_menu.h"

#include <QActionGroup>
#include <QInputDialog>
#include <QMenu>
#include <QSettings>
#include <QStatusBar>

#include "attn_ui/theme/app_theme.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {

int PreferencesMenu::savedTokenLimit() { return QSettings().value("compute/maxTokens", 4096).toInt(); }

PreferencesMenu::PreferencesMenu(MainWindow* window) : QObject(window), window_(window) {
  window_->model()->setMaxMaterializedTokens(savedTokenLimit());
  QMenu* view = window_->viewMenu();
  view->addSeparator();
  view->addAction(tr("Sequence &Limit…"), this, [this] {
    bool ok = false;
    const int n = QInputDialog::getInt(
        window_, tr("Sequence Limit"),
        tr("Longest sequence drawn as a full N x N matrix (memory grows as N² per head):"),
        window_->model()->maxMaterializedTokens(), 16, 65536, 256, &ok);
    if (!ok) return;
    QSettings().setValue("compute/maxTokens", n);
    window_->model()->setMaxMaterializedTokens(n);
    window_->model()->recompute();
  });

  applyTheme(savedTheme());
  QMenu* theme = view->addMenu(tr("&Theme"));
  auto* themes = new QActionGroup(this);
  const std::pair<QString, QString> themeItems[] = {
      {"system", tr("Follow the system")}, {"light", tr("Light")}, {"dark", tr("Dark")}};
  for (const auto& [code, name] : themeItems) {
    QAction* a = theme->addAction(name);
    a->setCheckable(true);
    a->setChecked(code == savedTheme());
    a->setObjectName(QStringLiteral("theme_") + code);
    themes->addAction(a);
    connect(a, &QAction::triggered, this, [code = code] {
      QSettings().setValue("ui/theme", code);
      applyTheme(code);
    });
  }

  QMenu* lang = view->addMenu(tr("&Language"));
  auto* group = new QActionGroup(this);
  const QString current = QSettings().value("ui/language", "system").toString();
  const std::pair<QString, QString> langs[] = {
      {"system", tr("System default")}, {"en", QStringLiteral("English")}, {"zh_CN", QStringLiteral("简体中文")}};
  for (const auto& [code, name] : langs) {
    QAction* a = lang->addAction(name);
    a->setCheckable(true);
    a->setChecked(code == current);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, code = code] {
      QSettings().setValue("ui/language", code);
      window_->statusBar()->showMessage(tr("The language changes the next time AttnScope starts."), 8000);
    });
  }
}

}  // namespace attn::ui
