// Experiments in the window, offscreen, on the small reference
// fixtures: a head intervention applied through the controller shows exactly
// the maps core's intervened forward pass computes (the layers before it
// unchanged), undo gives back the original maps bit for bit, a mask
// that does not parse changes nothing and says why, the head grid marks the
// intervened tile, the Predictions panel and the effect view show
// compareRuns' change, and the importance panel shows what headImportance
// computes.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QFileInfo>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QTemporaryDir>

#include "attn/models/experiments/head_experiments.h"
#include "attn/models/model.h"
#include "attn/engine/precomputed.h"
#include "attn_ui/classroom/compare_view.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/head_grid.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/pretrained/experiments_actions.h"
#include "attn_ui/pretrained/importance_controller.h"
#include "attn_ui/pretrained/importance_panel.h"
#include "attn_ui/pretrained/intervention_effect_panel.h"
#include "attn_ui/pretrained/intervention_menu.h"
#include "attn_ui/pretrained/interventions_controller.h"
#include "attn_ui/pretrained/interventions_panel.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/pretrained/prediction_panel.h"
#include "attn_ui/pretrained/pruning_curve_plot.h"
#include "attn_ui/window/translations.h"

namespace attn::ui {
namespace {

using attn::models::HeadIntervention;
using attn::models::InterventionKind;

QString fixture(const QString& name) { return QStringLiteral(ATTN_FIXTURE_DIR "/models/") + name; }

const char* const kExperimentsText = "The animal didn't cross the street because it was too tired";

std::shared_ptr<const attn::models::Model> openFixture(const QString& name) {
  auto m = attn::models::Model::open(fixture(name).toStdString());
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : nullptr;
}

HeadIntervention make(InterventionKind kind, int layer, int head, float t = 1.0f, std::string mask = {}) {
  HeadIntervention iv;
  iv.kind = kind;
  iv.layer = layer;
  iv.head = head;
  iv.temperature = t;
  iv.mask = std::move(mask);
  return iv;
}

// Core's own run of the explorer's text with `list` (the options the window uses do not
// change the weights; full logits for the comparison).
attn::models::ModelRun coreRun(const attn::models::Model& m, const attn::models::Encoding& enc,
                               const std::vector<HeadIntervention>& list) {
  attn::models::RunOptions o;
  o.interventions = list;
  o.keepFullLogits = m.info().causal;
  auto r = m.run(enc, o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : attn::models::ModelRun{};
}

std::vector<std::vector<attn::Mat>> shownMaps(const ExplorerModel& e) {
  const auto layered = e.layeredAttention();
  return layered ? layered->layers : std::vector<std::vector<attn::Mat>>{};
}

struct Fixture {
  ExplorerModel explorer;
  InterventionsController controller{&explorer};
  std::shared_ptr<const attn::models::Model> model;
  explicit Fixture(const QString& name) {
    explorer.setCoalesceMs(0);
    model = openFixture(name);
    explorer.setText(QString::fromUtf8(kExperimentsText));
    explorer.setModel(model);
    explorer.waitForIdle();
    QCoreApplication::processEvents();
  }
  void settle() {
    controller.waitForIdle();
    explorer.waitForIdle();
    QCoreApplication::processEvents();
  }
};

TEST(Experiments, AnAblationShowsCoresIntervenedMapsFromItsLayerOn) {
  Fixture f("gpt2");
  ASSERT_TRUE(f.model && f.explorer.modelRun());
  const auto original = shownMaps(f.explorer);
  const auto enc = f.explorer.modelRun()->encoding;
  ASSERT_TRUE(f.controller.add(make(InterventionKind::Ablate, 0, 1)));
  f.settle();
  ASSERT_TRUE(f.controller.intervenedRun());
  EXPECT_TRUE(f.explorer.showsIntervenedRun());
  const auto expected = coreRun(*f.model, enc, {make(InterventionKind::Ablate, 0, 1)});
  const auto shown = shownMaps(f.explorer);
  ASSERT_EQ(shown.size(), expected.layers.size());
  for (size_t l = 0; l < shown.size(); ++l)
    for (size_t h = 0; h < shown[l].size(); ++h) EXPECT_EQ(shown[l][h], expected.layers[l].heads[h].weights) << l << "," << h;
  // As Hugging Face's head_mask: the ablated head's weights are zero, its neighbours in the
  // layer keep theirs, and the next layer sees other inputs.
  EXPECT_TRUE((shown[0][1].array() == 0.0f).all());
  EXPECT_FALSE((original[0][1].array() == 0.0f).all());
  EXPECT_EQ(shown[0][0], original[0][0]);
  EXPECT_NE(shown[1][0], original[1][0]);
  // The heatmap's result is the intervened run's layer too.
  f.explorer.setCurrentLayerHead(1, 2);
  QCoreApplication::processEvents();
  EXPECT_EQ(f.explorer.currentWeights(), expected.layers[1].heads[2].weights);
  // The comparison is core's compareRuns of the two runs.
  const auto before = coreRun(*f.model, enc, {});
  auto c = attn::models::compareRuns(*f.model, before, expected);
  ASSERT_TRUE(c.ok());
  ASSERT_NE(f.controller.comparison(), nullptr);
  EXPECT_NEAR(f.controller.comparison()->kl, c->kl, 1e-9);
  EXPECT_GT(c->kl, 0.0);
  EXPECT_NEAR(f.controller.comparison()->lossAfter, c->lossAfter, 1e-9);
  EXPECT_EQ(f.controller.comparison()->firstChangedLayer, 0);
}

TEST(Experiments, UndoRestoresTheOriginalMapsExactlyAndRedoReapplies) {
  Fixture f("gpt2");
  ASSERT_TRUE(f.explorer.modelRun());
  const auto original = shownMaps(f.explorer);
  const auto enc = f.explorer.modelRun()->encoding;
  ASSERT_TRUE(f.controller.add(make(InterventionKind::Temperature, 0, 0, 3.0f)));
  ASSERT_TRUE(f.controller.add(make(InterventionKind::Uniform, 1, 2)));
  f.settle();
  const std::vector<HeadIntervention> both = {make(InterventionKind::Temperature, 0, 0, 3.0f),
                                              make(InterventionKind::Uniform, 1, 2)};
  const auto expected = coreRun(*f.model, enc, both);
  EXPECT_EQ(shownMaps(f.explorer)[0][0], expected.layers[0].heads[0].weights);
  EXPECT_NE(shownMaps(f.explorer)[0][0], original[0][0]);
  f.controller.undo();  // the uniform head goes
  f.settle();
  ASSERT_EQ(f.controller.active().size(), 1u);
  EXPECT_EQ(shownMaps(f.explorer)[1][2], coreRun(*f.model, enc, {both[0]}).layers[1].heads[2].weights);
  f.controller.undo();
  f.settle();
  EXPECT_TRUE(f.controller.active().empty());
  EXPECT_FALSE(f.explorer.showsIntervenedRun());
  EXPECT_EQ(shownMaps(f.explorer), original);
  EXPECT_FALSE(f.controller.canUndo());
  f.controller.redo();
  f.controller.redo();
  f.settle();
  EXPECT_EQ(shownMaps(f.explorer)[1][2], expected.layers[1].heads[2].weights);
  // Removing an entry is a step too.
  f.controller.remove(0);
  f.settle();
  ASSERT_EQ(f.controller.active().size(), 1u);
  EXPECT_EQ(f.controller.active()[0].kind, InterventionKind::Uniform);
  f.controller.undo();
  f.settle();
  EXPECT_EQ(f.controller.active().size(), 2u);
}

TEST(Experiments, AMaskThatDoesNotParseChangesNothingAndSaysWhy) {
  Fixture f("bert");
  ASSERT_TRUE(f.explorer.modelRun());
  const auto original = shownMaps(f.explorer);
  QStringList messages;
  QObject::connect(&f.controller, &InterventionsController::message, [&](const QString& m) { messages << m; });
  EXPECT_FALSE(f.controller.add(make(InterventionKind::Mask, 0, 0, 1.0f, "window:abc")));
  ASSERT_EQ(messages.size(), 1);
  EXPECT_TRUE(messages[0].contains("window:abc")) << messages[0].toStdString();
  EXPECT_FALSE(f.controller.add(make(InterventionKind::Ablate, 7, 0)));  // no layer 8
  EXPECT_TRUE(messages.last().contains("layer 8")) << messages.last().toStdString();
  EXPECT_TRUE(f.controller.active().empty());
  EXPECT_FALSE(f.controller.busy());
  EXPECT_FALSE(f.controller.canUndo());
  // The dialog keeps the message under the field and stays open; nothing is added.
  InterventionDialog dialog(&f.controller, InterventionKind::Mask, 0, 1);
  dialog.mask()->setText("bogus:3");
  dialog.accept();
  EXPECT_FALSE(dialog.errorText().isEmpty());
  EXPECT_EQ(dialog.result(), QDialog::Rejected);
  EXPECT_TRUE(f.controller.active().empty());
  EXPECT_EQ(shownMaps(f.explorer), original);
  // A good term applies: BERT made causal on one head.
  dialog.mask()->setText("causal");
  dialog.accept();
  EXPECT_EQ(dialog.result(), QDialog::Accepted);
  f.settle();
  const auto w = shownMaps(f.explorer)[0][1];
  for (int i = 0; i < w.rows(); ++i)
    for (int j = i + 1; j < w.cols(); ++j) EXPECT_EQ(w(i, j), 0.0f);
  EXPECT_NE(f.controller.comparison(), nullptr);
}

TEST(Experiments, TheWindowMarksTheTileListsTheEntryAndShowsTheEffect) {
  MainWindow w;
  auto* xp = w.findChild<ExperimentsActions*>();
  ASSERT_NE(xp, nullptr);
  w.model()->setCoalesceMs(0);
  ASSERT_TRUE(w.openFile(fixture("gpt2")));
  w.modelOpener()->waitForIdle();
  w.inputPanel()->queryEdit()->setPlainText(QString::fromUtf8(kExperimentsText));
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  ASSERT_TRUE(w.model()->modelRun());
  auto* grid = w.findChild<HeadGrid*>();
  ASSERT_NE(grid, nullptr);
  ASSERT_TRUE(grid->showsLayers());
  ASSERT_TRUE(xp->interventions()->add(make(InterventionKind::Ablate, 1, 3)));
  xp->interventions()->waitForIdle();
  QCoreApplication::processEvents();
  EXPECT_EQ(grid->tileMarks().keys(), QList<int>{1 * 4 + 3});
  EXPECT_TRUE(grid->tileMarks().value(7).contains("ablated"));
  EXPECT_EQ(xp->interventionsPanel()->list()->count(), 1);
  EXPECT_TRUE(xp->interventionsPanel()->list()->item(0)->text().contains("L2 H4"));
  const auto* c = xp->interventions()->comparison();
  ASSERT_NE(c, nullptr);
  auto* prediction = w.findChild<PredictionPanel*>();
  EXPECT_EQ(prediction->effect(), predictionEffectText(*c));
  EXPECT_TRUE(prediction->effect().contains(QString::fromStdString(c->topAfter[0].token)));
  // The effect view: A original, B intervened, for the head shown.
  w.model()->setCurrentLayerHead(1, 3);
  QCoreApplication::processEvents();
  EXPECT_EQ(xp->effectPanel()->view()->plotA()->matrix(), xp->interventions()->originalRun()->layers[1].heads[3].weights);
  EXPECT_EQ(xp->effectPanel()->view()->plotB()->matrix(), xp->interventions()->intervenedRun()->layers[1].heads[3].weights);
  // Ctrl+Z's action undoes; the mark goes.
  xp->interventions()->undoAction()->trigger();
  xp->interventions()->waitForIdle();
  QCoreApplication::processEvents();
  EXPECT_TRUE(grid->tileMarks().isEmpty());
  EXPECT_TRUE(prediction->effect().isEmpty());
  EXPECT_EQ(xp->interventions()->undoAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Z));
}

TEST(Experiments, TheImportancePanelShowsWhatCoreComputes) {
  Fixture f("gpt2");
  ASSERT_TRUE(f.explorer.modelRun());
  ImportanceController importance(&f.explorer);
  ImportancePanel panel(&f.explorer, &importance);
  ASSERT_TRUE(importance.compute());
  EXPECT_TRUE(importance.busy());
  importance.waitForIdle();
  QCoreApplication::processEvents();
  auto expected = attn::models::headImportance(*f.model, f.explorer.modelRun()->encoding);
  ASSERT_TRUE(expected.ok());
  ASSERT_NE(importance.result(), nullptr);
  const attn::Mat& shown = panel.heatmap()->matrix();
  ASSERT_EQ(shown.rows(), 2);
  ASSERT_EQ(shown.cols(), 4);
  EXPECT_TRUE(shown.isApprox(expected->importance, 1e-6f));
  EXPECT_TRUE(panel.cellText(1, 2).contains(QString::number(static_cast<double>(expected->importance(1, 2)), 'g', 4)));
  const auto points = panel.curve()->points();
  ASSERT_EQ(points.size(), static_cast<qsizetype>(expected->curve.size()));
  for (qsizetype i = 0; i < points.size(); ++i) {
    EXPECT_DOUBLE_EQ(points[i].x(), expected->curve[static_cast<size_t>(i)].fraction);
    EXPECT_NEAR(points[i].y(), expected->curve[static_cast<size_t>(i)].value, 1e-6);
  }
  // CSV as the CLI writes it, and the figure through the figure export.
  QTemporaryDir dir;
  const QString csv = dir.filePath("importance.csv"), curve = dir.filePath("curve.csv"), png = dir.filePath("map.png");
  ASSERT_TRUE(panel.exportCsv(ImportancePanel::ImportanceMap, csv).ok());
  ASSERT_TRUE(panel.exportCsv(ImportancePanel::PruningCurve, curve).ok());
  QFile f1(csv);
  ASSERT_TRUE(f1.open(QIODevice::ReadOnly));
  const QStringList lines = QString::fromUtf8(f1.readAll()).split('\n', Qt::SkipEmptyParts);
  ASSERT_EQ(lines.size(), 1 + 8);
  EXPECT_EQ(lines[0], "layer,head,importance");
  EXPECT_NEAR(lines[2].section(',', 2).toDouble(), expected->importance(0, 1), 1e-6);
  FigureOptions o;
  o.size = {400, 300};
  ASSERT_TRUE(panel.exportFigure(ImportancePanel::ImportanceMap, png, o).ok());
  ASSERT_TRUE(panel.exportFigure(ImportancePanel::PruningCurve, dir.filePath("curve.svg"), o).ok());
  EXPECT_GT(QFileInfo(png).size(), 0);
  // A new text makes the shown map stale; cancel leaves it as it was.
  f.explorer.setText("A different sentence entirely");
  f.explorer.waitForIdle();
  QCoreApplication::processEvents();
  EXPECT_TRUE(importance.stale());
  ASSERT_TRUE(importance.compute());
  importance.cancel();
  QCoreApplication::processEvents();
  EXPECT_FALSE(importance.busy());
  EXPECT_TRUE(panel.heatmap()->matrix().isApprox(expected->importance, 1e-6f));
}

TEST(Experiments, TheNewStringsHaveChineseTranslations) {
  auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
  ASSERT_NE(app, nullptr);
  ASSERT_TRUE(installUiTranslators(*app, "zh_CN"));
  EXPECT_EQ(InterventionsController::tr("&Ablate"), QString("消融(&A)"));
  EXPECT_EQ(ImportanceController::tr("Compute Head &Importance"), QString("计算头重要性(&I)"));
  EXPECT_EQ(PruningCurvePlot::tr("fraction of heads removed"), QString("移除的头所占比例"));
  EXPECT_EQ(interventionText(make(InterventionKind::Temperature, 2, 1, 0.5f)), QString("L3 H2：温度 0.5"));
  ASSERT_TRUE(installUiTranslators(*app, "en"));
  EXPECT_EQ(interventionText(make(InterventionKind::Temperature, 2, 1, 0.5f)), QString("L3 H2: temperature 0.5"));
}

}  // namespace
}  // namespace attn::ui
