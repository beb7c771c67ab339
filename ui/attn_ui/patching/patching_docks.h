#pragma once
// The Activation patching and Gradients docks (bottom, tabbed together, opened from View >
// Panels), and the gradients' attention x gradient maps offered to the heatmap's Maps selector.
namespace attn::ui {

class ContributionView;
class MainWindow;

void installPatchingDocks(MainWindow& window, ContributionView* maps);

}  // namespace attn::ui
