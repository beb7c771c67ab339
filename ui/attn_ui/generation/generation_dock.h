#pragma once
// The Generate dock in the main window: View > Panels > Generate (Ctrl+Shift+G).
namespace attn::ui {

class MainWindow;
void installGenerationDock(MainWindow& window);

}  // namespace attn::ui
