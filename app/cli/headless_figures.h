#pragma once
// The one way the figure commands (export, geometry, graph) start Qt: the
// offscreen platform whatever the display, and Qt's chatter (XDG_RUNTIME_DIR,
// fonts) kept off a command line whose errors are one line. Built into
// attnscope-cli-figures only (ATTNSCOPE_HAVE_UI).
#ifdef ATTNSCOPE_HAVE_UI
#include <QSize>
#include <functional>
#include <string>

#include "attn/status.h"

namespace attn::cli {

/// Runs `draw` (it writes the figure and returns the command's exit status) with
/// a QApplication on the offscreen platform; Qt's critical and fatal messages go
/// to stderr as "qt: ...", the rest is dropped.
int drawHeadless(char** argv, const std::function<int()>& draw);

/// --size "WxH" in pixels, each side 16 to 20000; the error shows `example`.
Result<QSize> parseFigureSize(const std::string& text, const char* example);

}  // namespace attn::cli
#endif
