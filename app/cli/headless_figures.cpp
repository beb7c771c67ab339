#include "headless_figures.h"

#ifdef ATTNSCOPE_HAVE_UI
#include <fmt/format.h>

#include <QApplication>
#include <cstdio>

namespace attn::cli {

int drawHeadless(char** argv, const std::function<int()>& draw) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& msg) {
    if (type == QtCriticalMsg || type == QtFatalMsg) fmt::print(stderr, "qt: {}\n", msg.toStdString());
  });
  int qargc = 1;
  QApplication app(qargc, argv);
  return draw();
}

Result<QSize> parseFigureSize(const std::string& text, const char* example) {
  unsigned w = 0, h = 0;
  if (std::sscanf(text.c_str(), "%ux%u", &w, &h) != 2 || w < 16 || h < 16 || w > 20000 || h > 20000)
    return Error{fmt::format("--size: expected WxH in pixels, e.g. {} (got '{}')", example, text)};
  return QSize(static_cast<int>(w), static_cast<int>(h));
}

}  // namespace attn::cli
#endif
