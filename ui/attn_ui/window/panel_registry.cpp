// One line per contributed panel; see MainWindow::addPanel.
#include <QDockWidget>

#include "attn_ui/attribution/contribution_view.h"
#include "attn_ui/classroom/classroom_actions.h"
#include "attn_ui/classroom/tiling_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/row_column_panel.h"
#include "attn_ui/generation/generation_dock.h"
#include "attn_ui/lens/lens_panel.h"
#include "attn_ui/metrics/metrics_panel.h"
#include "attn_ui/patching/patching_docks.h"
#include "attn_ui/pretrained/experiments_actions.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/pretrained/model_run_progress.h"
#include "attn_ui/pretrained/prediction_panel.h"
#include "attn_ui/routes/routes_panel.h"
#include "attn_ui/spatial/graph_panel.h"
#include "attn_ui/spatial/image_panel.h"
#include "attn_ui/spatial/qk_geometry_panel.h"
#include "attn_ui/training/training_window.h"
#include "attn_ui/translation/translation_panel.h"
#include "attn_ui/variants/variants_panel.h"
#include "attn_ui/vision/image_open_action.h"
#include "attn_ui/vision/vision_panel.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/window/status_summary.h"

namespace attn::ui {

void installExtraPanels(MainWindow& window) {
  auto* metrics = new MetricsPanel(window.model());
  window.addPanel(QObject::tr("Metrics"), metrics, Qt::RightDockWidgetArea);
  QObject::connect(metrics, &MetricsPanel::analysisChanged, window.statusSummary(), [metrics, &window] {
    const auto* a = metrics->analysis();
    window.statusSummary()->setExtraWarnings(a ? collapseWarnings(*a) : QStringList{});
  });
  window.addPanel(QObject::tr("Predictions"), new PredictionPanel(window.model()), Qt::RightDockWidgetArea);
  // A tab beside the predictions; a heatmap click brings it forward.
  auto* rowColumn = new RowColumnPanel(window.model(), window.heatmap());
  auto* rowColumnDock = window.addPanel(QObject::tr("Row and column"), rowColumn, Qt::RightDockWidgetArea);
  QObject::connect(rowColumn, &RowColumnPanel::cellPicked, rowColumnDock, &QDockWidget::raise);
  window.addPanel(QObject::tr("Logit lens"), new LensPanel(window.model()), Qt::BottomDockWidgetArea)
      ->hide();  // reads every layer through the unembedding: computed only while open
  window
      .addPanel(QObject::tr("Contribution graph"), new RoutesPanel(window.model()), Qt::BottomDockWidgetArea)
      ->hide();  // information flow routes: run on demand
  window.addPanel(QObject::tr("Tiling and approximation"), new TilingPanel(window.model()), Qt::BottomDockWidgetArea)
      ->hide();  // a teaching view: opened from the View menu
  window.addPanel(QObject::tr("Image attention"), new ImagePanel(window.model()), Qt::RightDockWidgetArea)
      ->hide();  // opened from View > Panels
  auto* vision = window.addPanel(QObject::tr("Vision attention"), new VisionPanel(window.model()),
                                 Qt::RightDockWidgetArea);
  vision->hide();                        // shown when a vision model opens
  new ImageOpenAction(&window, vision);  // File > Open Image…
  auto* translation = new TranslationPanel;
  auto* translationDock = window.addPanel(QObject::tr("Translation"), translation, Qt::BottomDockWidgetArea);
  translationDock->hide();  // shown when an encoder-decoder model opens
  QObject::connect(
      window.modelOpener(), &ModelOpenController::seq2seqOpened, translation,
      [&window, translation, translationDock](std::shared_ptr<const attn::models::Seq2SeqModel> m) {
        translation->setModel(std::move(m));
        const bool first = translationDock->isHidden();
        translationDock->show();
        translationDock->raise();
        // Room for the map and the links: over half the window the first time.
        if (first) window.resizeDocks({translationDock}, {window.height() * 11 / 20}, Qt::Vertical);
      });
  QObject::connect(translation, &TranslationPanel::message, window.model(), &ExplorerModel::reportError);
  QObject::connect(translation, &TranslationPanel::showInMainViews, window.model(),
                   [&window](std::shared_ptr<const attn::LoadedInput> weights) {
                     window.model()->setLoadedFile(std::move(weights));  // the explorer's model gives way
                   });
  installGenerationDock(window);  // a causal model writes; the attention of each token it writes
  window.addPanel(QObject::tr("Graph attention"), new GraphPanel, Qt::RightDockWidgetArea)->hide();
  window.addPanel(QObject::tr("Query–key geometry"), new QkGeometryPanel(window.model()), Qt::RightDockWidgetArea)
      ->hide();
  window.addPanel(QObject::tr("Attention variants"), new VariantsPanel(window.model()), Qt::BottomDockWidgetArea)
      ->hide();  // Transformer-XL, adaptive span, dynamic conv, multi-hop, precision
  new ClassroomActions(window);  // step-through, token lines, compare, toy input; export; presentation
  new ExperimentsActions(window);    // interventions, head importance
  auto* contributions = new ContributionView(window.model(), &window);  // weights, attention norms or ALTI
  window.heatmapPanel()->addToolBarWidget(contributions->selector());
  QObject::connect(contributions, &ContributionView::message, window.model(), &ExplorerModel::reportError);
  QObject::connect(contributions, &ContributionView::mapsNameChanged, window.heatmapPanel(),
                   &HeatmapPanel::setMapsName);
  installPatchingDocks(window, contributions);  // activation patching, gradients (attention x gradient maps)
  QObject::connect(contributions, &ContributionView::signedMapsChanged, metrics,
                   &MetricsPanel::setSignedMaps);
  new TrainingWindowAction(window);  // View > Training…
  new ModelRunProgress(&window, window.model());  // a long model run's layer, bar and Cancel
}

}  // namespace attn::ui
