#include <QApplication>
#include <QCommandLineParser>
#include <QDateTime>
#include <QFileInfo>
#include <QIcon>
#include <QStatusBar>
#include <cstdio>

#include "attn_ui/pretrained/bundled_models_menu.h"
#include "attn_ui/system/recovery_prompt.h"
#include "attn_ui/system/timing_probe.h"
#include "attn_ui/vision/image_open_action.h"
#include "attn_ui/window/autosave.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/window/process_tuning.h"
#include "attn_ui/window/session_controller.h"
#include "attn_ui/window/translations.h"

int main(int argc, char** argv) {
  attn::ui::keepLargeAllocationsInHeap();
  // High-DPI: Qt 6 scales by the screen's factor; keep fractional factors exact
  // so heatmap cells stay crisp on 125% / 150% displays.
  QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
  QApplication app(argc, argv);
  QApplication::setApplicationName("AttnScope");
  QApplication::setOrganizationName("AttnScope");
  QApplication::setApplicationVersion(ATTNSCOPE_VERSION);
  // The installed desktop entry and icon (cmake/Install.cmake) share this id.
  QGuiApplication::setDesktopFileName(QStringLiteral("org.attnscope.AttnScope"));
  QIcon icon;
  for (int size : {32, 64, 128, 256}) icon.addFile(QStringLiteral(":/icons/attnscope-%1.png").arg(size));
  QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("org.attnscope.AttnScope"), icon));

  QCommandLineParser parser;
  parser.setApplicationDescription("Desktop attention visualizer");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("file",
                               "A file to open: tensors (.npz .npy .safetensors .csv), text (.txt), a session "
                               "(.json), or a Hugging Face model folder (or its cache directory models--org--name).",
                               "[file or model folder]");
  QCommandLineOption langOption("lang", "User interface language: en or zh_CN (remembered).", "language");
  parser.addOption(langOption);
  QCommandLineOption restoreOpt("restore-autosave",
                                "After a crash: ask (default), yes or no to restoring the autosaved session.",
                                "ask|yes|no", "ask");
  parser.addOption(restoreOpt);
  QCommandLineOption explorerOpt("explorer",
                                 "Start on the random-projection explorer instead of the bundled model "
                                 "(austen-gpt2).");
  parser.addOption(explorerOpt);
  QCommandLineOption imageOpt(
      "image",
      "With a vision model folder (ViT, DeiT): the picture it looks at (PNG, JPEG, BMP, "
      "PPM, .npy/.npz), as File > Open Image… does.",
      "image");
  parser.addOption(imageOpt);
  parser.process(app);

  // Language: --lang (saved), else the preference (View > Language), else the
  // system locale; see attn_ui/window/translations.h.
  if (parser.isSet(langOption)) {
    if (!attn::ui::uiLanguages().contains(parser.value(langOption))) {
      qCritical("attnscope: --lang: unknown language '%s' (en or zh_CN)", qPrintable(parser.value(langOption)));
      return 1;
    }
    attn::ui::saveUiLanguage(parser.value(langOption));
  }
  const QString restoreMode = parser.value(restoreOpt);
  if (restoreMode != QLatin1String("ask") && restoreMode != QLatin1String("yes") &&
      restoreMode != QLatin1String("no")) {
    qCritical("attnscope: --restore-autosave: unknown answer '%s' (ask, yes or no)", qPrintable(restoreMode));
    return 1;
  }
  attn::ui::installUiTranslators(app, attn::ui::resolveUiLanguage(parser.value(langOption)));

  attn::ui::MainWindow window;
  window.show();
  attn::ui::installTimingProbe(window);  // ATTNSCOPE_TIMING=1 only: times count from here
  if (parser.isSet(imageOpt))            // kept by the view-model until the vision model has opened
    if (auto* images = window.findChild<attn::ui::ImageOpenAction*>()) images->open(parser.value(imageOpt));
  if (!parser.positionalArguments().isEmpty()) window.openFile(parser.positionalArguments().first());

  // An autosave left behind means the last run did not exit cleanly.
  using attn::ui::Autosave;
  const QString autosaveFile = Autosave::defaultFile();
  bool restored = false;
  if (auto saved = Autosave::recoverable(autosaveFile); saved.ok()) {
    bool restore = restoreMode == QLatin1String("yes");
    if (restoreMode == QLatin1String("ask"))
      restore = attn::ui::RecoveryPrompt::ask(&window, QFileInfo(autosaveFile).lastModified());
    if (restore) {
      window.sessions()->apply(*saved);
      restored = true;
      std::fprintf(stderr, "AttnScope: restored the autosaved session from %s\n", qPrintable(autosaveFile));
    }
  }
  // Nothing asked for: learned attention first (a trained model on a sentence
  // chosen for its heads); the explorer is one click away (Examples menu).
  if (!restored && parser.positionalArguments().isEmpty() && !parser.isSet(explorerOpt))
    window.bundledModels()->openDefault();
  Autosave autosave([&window] { return window.sessions()->capture(); }, autosaveFile,
                    Autosave::defaultIntervalMs());
  QObject::connect(&autosave, &Autosave::saveFailed, &window, [&window](const QString& message) {
    window.statusBar()->showMessage(attn::ui::RecoveryPrompt::saveFailed(message), 10000);
  });
  autosave.start();
  const int rc = QApplication::exec();
  autosave.finish();  // a clean exit leaves nothing to restore
  return rc;
}
