#include "attn_ui/patching/patching_docks.h"

#include <QDockWidget>

#include "attn_ui/attribution/contribution_view.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/gradients/gradient_panel.h"
#include "attn_ui/patching/patching_panel.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {

void installPatchingDocks(MainWindow& window, ContributionView* maps) {
  auto* patching = window.addPanel(QObject::tr("Activation patching"), new PatchingPanel(window.model()),
                                   Qt::BottomDockWidgetArea);
  auto* gradients = new GradientPanel(window.model());
  auto* gradientDock = window.addPanel(QObject::tr("Gradients"), gradients, Qt::BottomDockWidgetArea);
  window.tabifyDockWidget(patching, gradientDock);
  patching->hide();  // each runs only when asked: opened from View > Panels
  gradientDock->hide();
  QObject::connect(gradients, &GradientPanel::attentionGradientReady, maps,
                   &ContributionView::offerAttentionGradient);
  QObject::connect(maps, &ContributionView::signedMapsChanged, window.heatmapPanel(),
                   &HeatmapPanel::setSignedMaps);
}

}  // namespace attn::ui
