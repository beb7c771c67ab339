#include <QApplication>
#include <QCommandLineParser>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

#include "attn_ui/main_window.h"
#include "attn_ui/process_tuning.h"

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
  parser.process(app);

  // Language preference (View > Language): "system" follows the locale.
  const QString lang = QSettings().value("ui/language", "system").toString();
  const QLocale locale = lang == "system" ? QLocale::system() : QLocale(lang);
  QTranslator appTr, qtTr;
  if (appTr.load(locale, "attnscope", "_", ":/i18n")) QApplication::installTranslator(&appTr);
  if (qtTr.load(locale, "qtbase", "_", QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    QApplication::installTranslator(&qtTr);

  attn::ui::MainWindow window;
  window.show();
  if (!parser.positionalArguments().isEmpty()) window.openFile(parser.positionalArguments().first());
  return QApplication::exec();
}
