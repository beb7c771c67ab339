#include <QApplication>
#include <QCommandLineParser>

#include "attn_ui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("AttnScope");
  QApplication::setOrganizationName("AttnScope");
  QApplication::setApplicationVersion(ATTNSCOPE_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription("Desktop attention visualizer");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.process(app);

  attn::ui::MainWindow window;
  window.show();
  return QApplication::exec();
}
