#include "attn_ui/generation/generation_dock.h"

#include <QAction>
#include <QDockWidget>
#include <QLineEdit>
#include <algorithm>
#include <memory>

#include "attn/models/seq2seq/seq2seq_model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/generation/generation_panel.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {

void installGenerationDock(MainWindow& window) {
  auto* panel = new GenerationPanel(window.model());
  auto* dock = window.addPanel(QObject::tr("Generate"), panel, Qt::BottomDockWidgetArea);
  dock->hide();  // writes only when asked: opened from View > Panels
  dock->toggleViewAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
  dock->toggleViewAction()->setToolTip(
      QObject::tr("Let the loaded causal model write after a prompt and see the attention of every token it "
                  "writes (Ctrl+Shift+G)"));
  // Opened from the keyboard: the prompt takes the keys, so Enter or Ctrl+Return writes at once.
  QObject::connect(dock->toggleViewAction(), &QAction::triggered, panel,
                   [&window, panel, dock, sized = std::make_shared<bool>(false)](bool on) {
                     if (!on) return;
                     dock->raise();
                     // Room for the chips and the chart the first time: about half the window, more of a
                     // small one.
                     if (!*sized) {
                       *sized = true;
                       const int h = window.height();
                       window.resizeDocks({dock}, {std::max(h * 9 / 20, std::min(430, h * 3 / 5))},
                                          Qt::Vertical);
                     }
                     if (panel->refusal().isEmpty()) panel->promptEdit()->setFocus(Qt::ShortcutFocusReason);
                   });
  QObject::connect(window.modelOpener(), &ModelOpenController::seq2seqOpened, panel,
                   [panel](const std::shared_ptr<const attn::models::Seq2SeqModel>& m) {
                     if (m) panel->noteEncoderDecoder(QString::fromStdString(m->info().name));
                   });
  QObject::connect(panel, &GenerationPanel::message, window.model(), &ExplorerModel::reportError);
}

}  // namespace attn::ui
