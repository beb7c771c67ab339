// GGUF files and Ollama models in the window, offscreen: a .gguf fixture (written by
// tests/scripts/gen_gguf_models.py) opens from the menu path, by drag-and-drop and from Recent
// Models; the info box says what the weights are as `attnscope-cli info` does; a recent entry
// that is gone is dropped with a message; a fake Ollama store in a temporary folder is listed
// (with a broken manifest named), a picked model opens, an empty store says where it looked.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QDropEvent>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeWidget>
#include <QUrl>
#include <functional>

#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/pretrained/model_info_box.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/pretrained/ollama_models_dialog.h"
#include "attn_ui/window/file_open_controller.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/window/session_controller.h"

namespace attn::ui {
namespace {

QString ggufFixture(const QString& name) { return QStringLiteral(ATTN_FIXTURE_DIR "/gguf/models/") + name; }

void settleGguf(MainWindow& w) {
  w.modelOpener()->waitForIdle();
  w.fileOpener()->waitForIdle();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
}

QStringList infoFacts(MainWindow& w) {
  auto* box = w.findChild<ModelInfoBox*>();
  return box ? box->facts() : QStringList();
}

// What `attnscope-cli info` prints after "weights: " for the same file.
QString coreWeights(const QString& path) {
  auto m = attn::models::Model::open(path.toStdString());
  EXPECT_TRUE(m.ok()) << m.error().message;
  return m ? QString::fromStdString((*m)->info().quantization) : QString();
}

QAction* recentEntry(MainWindow& w, const QString& path) {
  for (QAction* a : w.modelOpener()->recentMenu()->actions())
    if (a->data().toString() == path) return a;
  return nullptr;
}

// A fake Ollama store in a temporary folder, set as $OLLAMA_MODELS for the test's lifetime.
class FakeOllamaStore {
 public:
  FakeOllamaStore() { qputenv("OLLAMA_MODELS", dir.path().toUtf8()); }
  ~FakeOllamaStore() { qunsetenv("OLLAMA_MODELS"); }
  QString manifests() const { return dir.filePath("manifests/registry.ollama.ai/library"); }
  QString blob(char digit) const { return dir.filePath("blobs/sha256-" + QString(64, QLatin1Char(digit))); }
  void addModel(const QString& model, const QString& tag, const QString& gguf, char digit) {
    ASSERT_TRUE(QDir().mkpath(dir.filePath("blobs")));
    ASSERT_TRUE(QFile::copy(gguf, blob(digit)));
    writeManifest(
        model, tag,
        QStringLiteral(R"({"schemaVersion": 2, "layers": [)"
                       R"({"mediaType": "application/vnd.ollama.image.license", "digest": "sha256:%1"},)"
                       R"({"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:%2"}]})")
            .arg(QString(64, QLatin1Char('f')), QString(64, QLatin1Char(digit))));
  }
  void writeManifest(const QString& model, const QString& tag, const QString& json) {
    ASSERT_TRUE(QDir().mkpath(manifests() + "/" + model));
    QFile f(manifests() + "/" + model + "/" + tag);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(json.toUtf8());
  }
  QTemporaryDir dir;
};

// Runs `inDialog` on the Ollama dialog that File > Open Ollama Model… shows, then closes it
// with `accept`.
void withOllamaDialog(MainWindow& w, const std::function<void(OllamaModelsDialog&)>& inDialog, bool accept) {
  bool seen = false;
  QTimer::singleShot(0, [&] {
    auto* d = qobject_cast<OllamaModelsDialog*>(QApplication::activeModalWidget());
    if (!d) return;
    seen = true;
    inDialog(*d);
    accept ? d->accept() : d->reject();
  });
  w.modelOpener()->openOllamaAction()->trigger();
  EXPECT_TRUE(seen) << "no Ollama dialog was shown";
  settleGguf(w);
}

TEST(GgufOpen, AQuantizedFileOpensAndTheInfoBoxSaysWhatTheWeightsAre) {
  const QString file = ggufFixture("llama256-Q4_K_M.gguf");
  MainWindow w;
  settleGguf(w);
  EXPECT_TRUE(ModelOpenController::canOpen(file));
  ASSERT_TRUE(w.openFile(file));
  EXPECT_TRUE(w.modelOpener()->busy());  // on a worker, with progress and Cancel like a folder
  EXPECT_FALSE(w.modelOpener()->progressBar()->isHidden());
  settleGguf(w);
  ASSERT_TRUE(w.model()->hasModel()) << w.model()->lastError().toStdString();
  ASSERT_TRUE(w.model()->modelRun());
  EXPECT_TRUE(w.modelOpener()->progressBar()->isHidden());
  const QString weights = coreWeights(file);
  ASSERT_TRUE(weights.startsWith("Q4_K_M, ")) << weights.toStdString();
  ASSERT_TRUE(weights.endsWith(" bits/weight")) << weights.toStdString();
  EXPECT_TRUE(infoFacts(w).contains("Weights: " + weights)) << infoFacts(w).join(" | ").toStdString();
  EXPECT_EQ(w.heatmap()->matrix(), w.model()->modelRun()->layers[0].heads[0].weights);
  EXPECT_EQ(ModelOpenController::recentModels().value(0), QFileInfo(file).absoluteFilePath());
  // A session reopens the file, not the folder it lies in.
  EXPECT_EQ(QString::fromStdString(w.sessions()->capture().input.model), QFileInfo(file).absoluteFilePath());

  // A safetensors folder says its dtype on disk.
  ASSERT_TRUE(w.openFile(QStringLiteral(ATTN_FIXTURE_DIR "/models/gpt2")));
  settleGguf(w);
  ASSERT_TRUE(w.model()->hasModel());
  const QString dtype = QString::fromStdString(w.model()->modelPtr()->info().dtype);
  EXPECT_TRUE(dtype == "F32" || dtype == "F16" || dtype == "BF16") << dtype.toStdString();
  EXPECT_TRUE(infoFacts(w).contains("Weights: " + dtype)) << infoFacts(w).join(" | ").toStdString();
}

TEST(GgufOpen, TheModelCardShowsEveryLineInANarrowDock) {
  MainWindow w;
  w.resize(1366, 740);
  w.show();
  settleGguf(w);
  ASSERT_TRUE(w.openFile(ggufFixture("llama256-Q4_K_M.gguf")));
  settleGguf(w);
  auto* box = w.findChild<ModelInfoBox*>();
  ASSERT_NE(box, nullptr);
  QWidget* dock = box;
  while (dock && !qobject_cast<QDockWidget*>(dock)) dock = dock->parentWidget();
  ASSERT_NE(dock, nullptr);
  for (int width : {240, 420}) {
    w.resizeDocks({qobject_cast<QDockWidget*>(dock)}, {width}, Qt::Horizontal);
    for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
    QLabel* summary = box->findChild<QLabel*>();
    ASSERT_NE(summary, nullptr);
    ASSERT_TRUE(summary->isVisible());
    // Every wrapped line of the card is inside the label (the weights line, then tokens and layer, last).
    EXPECT_GE(summary->height(), summary->heightForWidth(summary->width()))
        << "dock " << width << ": label " << summary->width() << " x " << summary->height();
  }
}

TEST(GgufOpen, DroppingAGgufFileOpensIt) {
  MainWindow w;
  settleGguf(w);
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(ggufFixture("qwen2-Q8_0.gguf"))});
  QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &enter);
  EXPECT_TRUE(enter.isAccepted());
  QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(&w, &drop);
  settleGguf(w);
  ASSERT_TRUE(w.model()->hasModel()) << w.model()->lastError().toStdString();
  EXPECT_EQ(w.model()->modelPtr()->info().modelType, "qwen2");
  EXPECT_TRUE(infoFacts(w).contains("Weights: " + coreWeights(ggufFixture("qwen2-Q8_0.gguf"))));
  // Neither a .gguf name on a folder nor another file type is taken for a model file.
  QTemporaryDir tmp;
  ASSERT_TRUE(QDir().mkpath(tmp.filePath("folder.gguf")));
  EXPECT_FALSE(ModelOpenController::canOpen(tmp.filePath("folder.gguf")));
  EXPECT_FALSE(ModelOpenController::canOpen(QStringLiteral(ATTN_FIXTURE_DIR "/gguf/models/none.gguf")));
}

TEST(GgufOpen, RecentModelsListsFilesAndDropsOneThatIsGone) {
  QTemporaryDir tmp;
  const QString copy = tmp.filePath("moving.gguf");
  ASSERT_TRUE(QFile::copy(ggufFixture("gpt2-Q4_0.gguf"), copy));
  MainWindow w;
  settleGguf(w);
  ASSERT_TRUE(w.openFile(copy));
  settleGguf(w);
  ASSERT_TRUE(w.openFile(ggufFixture("llama-Q8_0.gguf")));
  settleGguf(w);
  const QString llama = QFileInfo(ggufFixture("llama-Q8_0.gguf")).absoluteFilePath();
  EXPECT_EQ(ModelOpenController::recentModels().mid(0, 2),
            QStringList({llama, QFileInfo(copy).absoluteFilePath()}));

  // Picking the older entry from the menu opens it again.
  QAction* gpt2 = recentEntry(w, QFileInfo(copy).absoluteFilePath());
  ASSERT_NE(gpt2, nullptr);
  EXPECT_TRUE(gpt2->text().endsWith("moving.gguf")) << gpt2->text().toStdString();
  gpt2->trigger();
  settleGguf(w);
  ASSERT_TRUE(w.model()->hasModel());
  EXPECT_EQ(w.model()->modelPtr()->info().modelType, "gpt2");
  EXPECT_EQ(ModelOpenController::recentModels().value(0), QFileInfo(copy).absoluteFilePath());

  // The file is gone: a message names it, the entry leaves the list, the open model stays.
  ASSERT_TRUE(w.openFile(ggufFixture("llama-Q8_0.gguf")));
  settleGguf(w);
  const auto model = w.model()->modelPtr();
  ASSERT_TRUE(QFile::remove(copy));
  QString message;
  QObject::connect(w.modelOpener(), &ModelOpenController::failed, [&](const QString& m) { message = m; });
  recentEntry(w, QFileInfo(copy).absoluteFilePath())->trigger();
  settleGguf(w);
  EXPECT_TRUE(message.contains("moving.gguf") && message.contains("removed from Recent Models"))
      << message.toStdString();
  EXPECT_FALSE(ModelOpenController::recentModels().contains(QFileInfo(copy).absoluteFilePath()));
  EXPECT_EQ(recentEntry(w, QFileInfo(copy).absoluteFilePath()), nullptr);
  EXPECT_EQ(w.model()->modelPtr(), model);
  EXPECT_FALSE(w.heatmapPanel()->errorBanner()->isHidden());
}

TEST(GgufOpen, ADamagedGgufFileNamesItselfAndKeepsTheView) {
  QTemporaryDir tmp;
  const QString cut = tmp.filePath("cut.gguf");
  {
    QFile in(ggufFixture("llama-F32.gguf"));
    ASSERT_TRUE(in.open(QIODevice::ReadOnly));
    QFile out(cut);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(in.read(in.size() / 3));
  }
  MainWindow w;
  settleGguf(w);
  const auto before = w.model()->resultPtr();
  ASSERT_TRUE(w.openFile(cut));
  settleGguf(w);
  EXPECT_FALSE(w.model()->hasModel());
  EXPECT_EQ(w.model()->resultPtr(), before);
  EXPECT_TRUE(w.model()->lastError().contains("cut.gguf")) << w.model()->lastError().toStdString();
  EXPECT_FALSE(ModelOpenController::recentModels().contains(QFileInfo(cut).absoluteFilePath()));
}

TEST(GgufOpen, TheOllamaDialogListsTheStoreAndOpensThePickedModel) {
  FakeOllamaStore store;
  ASSERT_TRUE(store.dir.isValid());
  store.addModel("tiny", "q8", ggufFixture("qwen2-Q8_0.gguf"), 'a');
  store.writeManifest(
      "tiny", "broken",
      R"({"layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:zz"}]})");
  MainWindow w;
  settleGguf(w);
  withOllamaDialog(
      w,
      [&](OllamaModelsDialog& d) {
        EXPECT_TRUE(d.storeLabel()->text().contains(QDir::toNativeSeparators(store.dir.path())))
            << d.storeLabel()->text().toStdString();
        ASSERT_EQ(d.list()->topLevelItemCount(), 2);
        QTreeWidgetItem* broken = d.list()->topLevelItem(0);  // "broken" sorts before "q8"
        EXPECT_EQ(broken->text(1), "broken");
        EXPECT_FALSE(broken->flags() & Qt::ItemIsSelectable);
        EXPECT_TRUE(d.problems().contains(store.manifests() + "/tiny/broken")) << d.problems().toStdString();
        QTreeWidgetItem* good = d.list()->topLevelItem(1);
        EXPECT_EQ(good->text(0), "tiny");
        EXPECT_EQ(good->text(1), "q8");
        EXPECT_EQ(good->text(2), QLocale().formattedDataSize(QFileInfo(store.blob('a')).size()));
        EXPECT_FALSE(d.select("ollama:tiny:broken"));
        EXPECT_TRUE(d.select("ollama:tiny:q8"));
        EXPECT_EQ(d.selectedSpec(), "ollama:tiny:q8");
      },
      true);
  ASSERT_TRUE(w.model()->hasModel()) << w.model()->lastError().toStdString();
  EXPECT_EQ(w.model()->modelPtr()->info().name, "tiny:q8");
  EXPECT_TRUE(infoFacts(w).contains("Weights: " + coreWeights(store.blob('a'))));
  EXPECT_EQ(ModelOpenController::recentModels().value(0), "ollama:tiny:q8");
  QAction* entry = recentEntry(w, "ollama:tiny:q8");
  ASSERT_NE(entry, nullptr);
  EXPECT_TRUE(entry->text().endsWith("ollama:tiny:q8")) << entry->text().toStdString();
  EXPECT_EQ(QString::fromStdString(w.sessions()->capture().input.model), "ollama:tiny:q8");

  // `ollama rm`: the recent entry says what is missing and leaves the list.
  ASSERT_TRUE(QFile::remove(store.blob('a')));
  QString message;
  QObject::connect(w.modelOpener(), &ModelOpenController::failed, [&](const QString& m) { message = m; });
  entry->trigger();
  settleGguf(w);
  EXPECT_TRUE(message.contains("blob") && message.contains("removed from Recent Models"))
      << message.toStdString();
  EXPECT_FALSE(ModelOpenController::recentModels().contains("ollama:tiny:q8"));
  EXPECT_EQ(w.model()->modelPtr()->info().name, "tiny:q8");  // the open model stays
}

TEST(GgufOpen, AnEmptyOrAbsentOllamaStoreSaysWhereItLooked) {
  FakeOllamaStore store;
  MainWindow w;
  settleGguf(w);
  const auto check = [&](const char* says) {
    withOllamaDialog(
        w,
        [&](OllamaModelsDialog& d) {
          EXPECT_TRUE(d.storeLabel()->text().contains(QDir::toNativeSeparators(store.dir.path())))
              << d.storeLabel()->text().toStdString();
          EXPECT_TRUE(d.storeLabel()->text().contains(says)) << d.storeLabel()->text().toStdString();
          EXPECT_EQ(d.list()->topLevelItemCount(), 0);
          EXPECT_TRUE(d.selectedSpec().isEmpty());
          auto* box = d.findChild<QDialogButtonBox*>();
          ASSERT_NE(box, nullptr);
          EXPECT_FALSE(box->button(QDialogButtonBox::Open)->isEnabled());
        },
        false);
  };
  check("No Ollama store");
  ASSERT_TRUE(QDir().mkpath(store.manifests()));
  check("No models");
  EXPECT_FALSE(w.model()->hasModel());
}

}  // namespace
}  // namespace attn::ui
