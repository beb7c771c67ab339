#pragma once
// Opt-in timing lines for measuring the explorer in a real window (the explorer's
// GUI targets; tests/bench/gui_timing.sh drives the window and reads them).
// Off unless the environment has ATTNSCOPE_TIMING=1: then installTimingProbe
// returns at once and nothing is connected or filtered. On, it prints to
// stderr, times in ms since installTimingProbe (call it just before the file
// is opened, so they count from the request):
// (each line is "timing EVENT T ms" and then KEY VALUE pairs)
//   timing result T ms gen G n N engine E the model published a result (N query rows, its
//                                         engine job took E ms); printed after every panel's
//                                         slot ran (the probe connects last)
//   timing heatmap-paint T ms gen G       a paint event of the heatmap (its plot is rendered by then)
//   timing file-loaded T ms               the first loaded file became the model's input
//   timing heatmap-first-draw T ms n N    the first paint of a loaded file's result
//   timing metrics-filled T ms n N        the Metrics dock drew its first analysis of that result
//   timing slider 0 ms x X y Y w W h H     the temperature slider in screen pixels (with the first draw)
//   timing slider-moved T ms value V      the temperature slider moved

namespace attn::ui {

class MainWindow;

/// True when ATTNSCOPE_TIMING=1 (read once).
bool timingRequested();
/// Attaches the probe to the window's model, heatmap, Metrics dock and
/// temperature slider when timingRequested(); otherwise does nothing.
void installTimingProbe(MainWindow& window);

}  // namespace attn::ui
