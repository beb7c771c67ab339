#include <QApplication>
#include <QCommandLineParser>

#include "attn_ui/main_window.h"
#include "attn_ui/process_tuning.h"
#include "attn_ui/translations.h"

int main(int argc, char** argv) {
  attn::ui::keepLargeAllocationsInHeap();
  // High-DPI: Qt 6 scales by the screen's factor; keep fractional factors exact
  // so heatmap cells stay crisp on 125% / 150% displays.
  QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
  QApplication app(argc, argv);
  QApplication::setApplicationName("AttnScope");
  QApplication::setOrganizationName("AttnScope");
  QApplication::setApplicationVersion(ATTNSCOPE_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription("Desktop attention visualizer");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("file", "A session (.json) to open.", "[file]");
  QCommandLineOption langOption("lang", "User interface language: en or zh_CN (remembered).", "language");
  parser.addOption(langOption);
  parser.process(app);

  // Language: --lang (saved), else the preference (View > Language), else the
  // system locale; see attn_ui/translations.h.
  if (parser.isSet(langOption)) {
    if (!attn::ui::uiLanguages().contains(parser.value(langOption))) {
      qCritical("attnscope: --lang: unknown language '%s' (en or zh_CN)", qPrintable(parser.value(langOption)));
      return 1;
    }
    attn::ui::saveUiLanguage(parser.value(langOption));
  }
  attn::ui::installUiTranslators(app, attn::ui::resolveUiLanguage(parser.value(langOption)));

  attn::ui::MainWindow window;
  window.show();
  if (!parser.positionalArguments().isEmpty()) window.openFile(parser.positionalArguments().first());
  return QApplication::exec();
}
