// GoogleTest main for suites that need a QApplication (run offscreen).
#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  // Keep QSettings (preferences, recent files) away from the user's own.
  QStandardPaths::setTestModeEnabled(true);
  QApplication::setOrganizationName("AttnScopeTests");
  QApplication::setApplicationName("AttnScopeTests");
  QSettings().clear();  // every run starts from default preferences
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
