// Exporting over an existing file asks first: File > Export figure
// asks before replacing, keeps the old file when the answer is no, and does
// not ask for a new file.
#include <gtest/gtest.h>

#include <QFile>
#include <QTemporaryDir>

#include "attn_ui/export/figure_export_dialog.h"

namespace attn::ui {
namespace {

struct AnswerOverwrite {
  explicit AnswerOverwrite(bool answer) : saved(FigureExportDialog::confirmOverwrite) {
    FigureExportDialog::confirmOverwrite = [this, answer](QWidget*, const QString& path) {
      asked << path;
      return answer;
    };
  }
  ~AnswerOverwrite() { FigureExportDialog::confirmOverwrite = saved; }
  std::function<bool(QWidget*, const QString&)> saved;
  QStringList asked;
};

TEST(ExportOverwrite, FigureDialogAsksBeforeReplacingAndNoKeepsItOpen) {
  QTemporaryDir dir;
  const QString existing = dir.filePath("attention.png");
  QFile f(existing);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write("old picture");
  f.close();

  {
    AnswerOverwrite no(false);
    FigureExportDialog dialog({"Heatmap"}, 0);
    dialog.setPath(existing);
    dialog.accept();
    EXPECT_EQ(no.asked, QStringList{existing});
    EXPECT_NE(dialog.result(), QDialog::Accepted);  // nothing is drawn; the user picks another name
  }
  {
    AnswerOverwrite yes(true);
    FigureExportDialog dialog({"Heatmap"}, 0);
    dialog.setPath(existing);
    dialog.accept();
    EXPECT_EQ(yes.asked, QStringList{existing});
    EXPECT_EQ(dialog.result(), QDialog::Accepted);
  }
  {
    AnswerOverwrite never(false);
    FigureExportDialog dialog({"Heatmap"}, 0);
    dialog.setPath(dir.filePath("new.svg"));
    dialog.accept();
    EXPECT_TRUE(never.asked.isEmpty());
    EXPECT_EQ(dialog.result(), QDialog::Accepted);
  }
}

}  // namespace
}  // namespace attn::ui
