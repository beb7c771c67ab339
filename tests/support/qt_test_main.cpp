// GoogleTest main for suites that need a QApplication (run offscreen).
#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  // Keep QSettings (preferences, recent files) away from the user's own.
  QStandardPaths::setTestModeEnabled(true);
  QApplication::setOrganizationName("AttnScopeTests");
  QApplication::setApplicationName("AttnScopeTests");
  // ctest runs tests as parallel processes: each gets its own settings file,
  // so one test's recent files or preferences never leak into another's.
  QTemporaryDir settingsDir;
  if (settingsDir.isValid()) {
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
  }
  QSettings().clear();  // every run starts from default preferences
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
