// The Training panel, offscreen: it drives the core trainer on a
// worker, and what it draws — every head's map, the expected pattern, the
// loss / accuracy / entropy / gradient curves, the scrubbed step — equals
// the snapshots of an independent attn::train::Trainer run with the same
// config (the core promises the same run for the same seed). Pause, Step,
// Reset, demonstrations, the Chinese text and the exports are checked too.
// Set ATTN_UI_SHOTS=DIR to also write PNGs of the panel.
#include "attn_ui/training/training_panel.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSlider>
#include <QTemporaryDir>
#include <cmath>
#include <cstdio>

#include "attn/train/induction_scores.h"
#include "attn/train/train.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/theme/colormaps.h"
#include "attn_ui/training/training_config_form.h"
#include "attn_ui/training/training_curve_chart.h"
#include "attn_ui/training/training_demos.h"
#include "attn_ui/training/training_figures.h"
#include "attn_ui/window/translations.h"

namespace attn::ui {
namespace {

using attn::train::Task;
using attn::train::TrainConfig;
using attn::train::Trainer;

TrainConfig smallCopy() {
  TrainConfig c;
  c.task = Task::Copy;
  c.seqLen = 5;
  c.vocabSize = 6;
  c.heads = 2;
  c.dK = 8;
  c.dModel = 12;
  c.batchSize = 8;
  c.seed = 11;
  return c;
}

// A reference run: the same config as the panel's controller trains (its
// mapEvery included), stepped `steps` times here on the test thread.
Trainer referenceRun(const TrainingPanel& p, int steps) {
  auto t = Trainer::create(p.controller()->run(0).config);
  EXPECT_TRUE(t.ok());
  for (int i = 0; i < steps; ++i) EXPECT_TRUE(t->step().ok());
  return std::move(*t);
}

void expectMatEq(const attn::Mat& a, const attn::Mat& b, const char* what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-6f) << what;
}

void setUp(TrainingPanel& p, const TrainConfig& c, int limit) {
  p.form()->setConfig(c);
  p.form()->setStepLimit(limit);
  ASSERT_TRUE(p.applyForm()) << p.statusLabel()->text().toStdString();
}

TEST(TrainingPanel, ShowsExactlyTheTrainersMapsAndCurves) {
  TrainingPanel p;
  setUp(p, smallCopy(), 6);
  EXPECT_EQ(p.controller()->latestStep(), 0);
  p.train();
  EXPECT_TRUE(p.controller()->isTraining());
  p.controller()->waitForIdle();
  ASSERT_EQ(p.controller()->latestStep(), 6);  // stopped at the step limit
  EXPECT_FALSE(p.controller()->isTraining());
  EXPECT_EQ(p.shownStep(), 6);

  const Trainer ref = referenceRun(p, 6);
  ASSERT_EQ(p.headMapCount(), 2);
  for (int h = 0; h < 2; ++h) expectMatEq(p.headMap(h)->matrix(), ref.latest().maps[0][h], "head map");
  // The expected pattern of copy is the identity (the diagonal), by hand.
  const attn::Mat& e = p.expectedMap()->matrix();
  ASSERT_EQ(e.rows(), 5);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(e(i, j), i == j ? 1.0f : 0.0f);
  // Rows and columns are the fixed example's tokens.
  EXPECT_EQ(p.headMap(0)->title(), QStringLiteral("Head 1 · step 6"));

  const auto& hist = ref.history().steps;
  ASSERT_EQ(hist.size(), 7u);
  const QVector<double> loss = p.lossChart()->seriesValues(0);
  ASSERT_EQ(loss.size(), 7);
  for (int s = 0; s <= 6; ++s) EXPECT_DOUBLE_EQ(loss[s], hist[static_cast<size_t>(s)].loss) << s;
  // Accuracy and gradient norms are drawn for the updates (steps 1..6).
  const QVector<double> acc = p.accuracyChart()->seriesValues(0), grad = p.gradChart()->seriesValues(0);
  ASSERT_EQ(acc.size(), 6);
  ASSERT_EQ(grad.size(), 6);
  for (int s = 1; s <= 6; ++s) {
    EXPECT_DOUBLE_EQ(acc[s - 1], hist[static_cast<size_t>(s)].accuracy);
    EXPECT_DOUBLE_EQ(grad[s - 1], hist[static_cast<size_t>(s)].gradNormQK);
  }
  ASSERT_EQ(p.entropyChart()->seriesCount(), 2);  // one curve per head
  for (int h = 0; h < 2; ++h) {
    const QVector<double> ent = p.entropyChart()->seriesValues(h);
    ASSERT_EQ(ent.size(), 7);
    for (int s = 0; s <= 6; ++s) {
      EXPECT_DOUBLE_EQ(ent[s], hist[static_cast<size_t>(s)].headEntropy[static_cast<size_t>(h)]);
      EXPECT_LE(ent[s], std::log(5.0) + 1e-9);  // never above uniform over 5 keys
    }
  }
  EXPECT_TRUE(p.statusLabel()->text().contains(QStringLiteral("Step 6 of 6"))) << p.statusLabel()->text().toStdString();
}

TEST(TrainingPanel, PauseStepAndResetBehave) {
  TrainingPanel p;
  setUp(p, smallCopy(), 1000000);
  p.trainAction()->trigger();
  ASSERT_TRUE(p.controller()->isTraining());
  EXPECT_FALSE(p.trainAction()->isEnabled());
  EXPECT_TRUE(p.pauseAction()->isEnabled());
  EXPECT_FALSE(p.form()->isEnabled());
  // The GUI thread keeps serving events while the worker trains.
  QElapsedTimer clock;
  clock.start();
  while (p.controller()->latestStep() < 3 && clock.elapsed() < 20000)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  p.pauseAction()->trigger();
  p.controller()->waitForIdle();
  EXPECT_FALSE(p.controller()->isTraining());
  EXPECT_TRUE(p.trainAction()->isEnabled());
  EXPECT_FALSE(p.pauseAction()->isEnabled());
  const int paused = p.controller()->latestStep();
  ASSERT_GE(paused, 3);
  for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
  EXPECT_EQ(p.controller()->latestStep(), paused);  // paused means no more updates

  p.stepAction()->trigger();
  p.controller()->waitForIdle();
  EXPECT_EQ(p.controller()->latestStep(), paused + 1);  // Step: exactly one update
  EXPECT_EQ(p.shownStep(), paused + 1);

  p.resetAction()->trigger();
  EXPECT_EQ(p.controller()->latestStep(), 0);
  EXPECT_EQ(p.shownStep(), 0);
  // The same seed gives the same run again: step 0 and, after three Steps, step 3.
  const Trainer ref = referenceRun(p, 3);
  expectMatEq(p.headMap(1)->matrix(), ref.history().steps[0].maps[0][1], "step 0 after reset");
  for (int i = 0; i < 3; ++i) {
    p.stepOnce();
    p.controller()->waitForIdle();
  }
  EXPECT_EQ(p.controller()->latestStep(), 3);
  expectMatEq(p.headMap(0)->matrix(), ref.latest().maps[0][0], "step 3 after reset");
  EXPECT_EQ(p.lossChart()->seriesValues(0).size(), 4);  // the old run's curve is gone
}

TEST(TrainingPanel, ScrubbingShowsTheRecordedStep) {
  TrainingPanel p;
  TrainConfig c = smallCopy();
  c.mapEvery = 4;  // maps kept at steps 0, 4, 8
  setUp(p, c, 9);
  p.train();
  p.controller()->waitForIdle();
  ASSERT_EQ(p.controller()->latestStep(), 9);
  const Trainer ref = referenceRun(p, 9);

  p.scrubber()->setValue(4);  // as the user dragging the slider
  EXPECT_EQ(p.shownStep(), 4);
  EXPECT_FALSE(p.followBox()->isChecked());
  expectMatEq(p.headMap(0)->matrix(), ref.history().steps[4].maps[0][0], "scrubbed step 4");
  EXPECT_DOUBLE_EQ(p.lossChart()->marker(), 4.0);
  EXPECT_TRUE(p.statusLabel()->text().contains(QStringLiteral("Step 4 of 9"))) << p.statusLabel()->text().toStdString();

  // Step 6 has no kept maps: the nearest kept step before it (4), as the core's snapshotAt.
  p.scrubTo(6);
  EXPECT_EQ(p.shownMapsStep(), 4);
  expectMatEq(p.headMap(1)->matrix(), ref.snapshotAt(6).maps[0][1], "maps shown at step 6");
  EXPECT_EQ(ref.snapshotAt(6).mapsStep, 4);

  // Scrubbing to step 0 shows the untrained model; following jumps back to the newest.
  p.scrubTo(0);
  expectMatEq(p.headMap(0)->matrix(), ref.history().steps[0].maps[0][0], "step 0");
  p.followBox()->setChecked(true);
  EXPECT_EQ(p.shownStep(), 9);
  EXPECT_EQ(p.scrubber()->value(), 9);
  EXPECT_LT(p.lossChart()->marker(), 0);
}

TEST(TrainingPanel, ViewsRefreshWhileTrainingWithoutRepaintingEveryStep) {
  TrainingPanel p;
  TrainConfig c = smallCopy();
  c.batchSize = 2;
  setUp(p, c, 1000000);
  p.train();
  QElapsedTimer clock;
  clock.start();
  // Run until the views have refreshed a few times while the worker trains.
  while (p.controller()->viewUpdates() < 4 && clock.elapsed() < 30000)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  const double seconds = clock.elapsed() / 1000.0;
  p.pause();
  p.controller()->waitForIdle();
  const int steps = p.controller()->latestStep();
  const long long updates = p.controller()->viewUpdates();
  std::printf("[ training view ] %d steps, %lld view updates in %.2f s (%.0f updates/s, %.0f steps/s)\n", steps,
              updates, seconds, updates / seconds, steps / seconds);
  EXPECT_GE(updates, 4);
  EXPECT_LE(updates, steps + 1);  // at most one view update per drained batch of steps
  EXPECT_EQ(p.shownStep(), steps);  // the newest after the last delivery
}

TEST(TrainingPanel, DemonstrationTrainsBothRunsAndPlotsBoth) {
  for (const auto& d : attn::train::demonstrations()) {
    EXPECT_TRUE(hasDemoText(d.id)) << d.id << " has no translatable text in training_demos.cpp";
    EXPECT_GE(d.runs.size(), 2u) << d.id;
  }
  auto demo = *attn::train::findDemonstration("scaling");
  demo.steps = 3;  // keep the test fast: the real demonstration runs longer
  TrainingPanel p;
  ASSERT_TRUE(p.startDemonstration(demo));
  p.controller()->waitForIdle();
  ASSERT_EQ(p.controller()->runCount(), 2);
  EXPECT_EQ(p.controller()->latestStep(), 3);
  EXPECT_EQ(p.lossChart()->seriesCount(), 2);
  EXPECT_EQ(p.lossChart()->seriesName(0), demoRunLabel(demo, 0));
  EXPECT_EQ(p.lossChart()->seriesName(1), demoRunLabel(demo, 1));
  EXPECT_EQ(p.runBox()->count(), 2);
  EXPECT_FALSE(p.demoExplanationLabel()->text().isEmpty());
  // Each run's curve is its own trainer's: check run B (unscaled) against a reference.
  auto ref = Trainer::create(p.controller()->run(1).config);
  ASSERT_TRUE(ref.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ref->step().ok());
  const QVector<double> lossB = p.lossChart()->seriesValues(1);
  ASSERT_EQ(lossB.size(), 4);
  EXPECT_DOUBLE_EQ(lossB[3], ref->history().steps[3].loss);
  p.runBox()->setCurrentIndex(1);
  expectMatEq(p.headMap(0)->matrix(), ref->latest().maps[0][0], "run B's map");
  EXPECT_EQ(p.controller()->run(1).config.mechanism, attn::train::TrainMechanism::Dot);
}

TEST(TrainingPanel, InductionDemoPlotsHeadScoresAndMarksThePhaseChange) {
  auto demo = *attn::train::findDemonstration("induction");
  demo.steps = 600;  // past the phase change (~300-450 steps); the full demonstration runs 2,000
  TrainingPanel p;
  ASSERT_TRUE(p.startDemonstration(demo));
  p.controller()->waitForIdle();
  ASSERT_EQ(p.controller()->latestStep(), 600);
  // The head scores replace the gradient chart: induction (last layer) and previous-token (layer 1) per run.
  EXPECT_TRUE(p.scoreChart()->isVisibleTo(&p));
  EXPECT_FALSE(p.gradChart()->isVisibleTo(&p));
  ASSERT_EQ(p.scoreChart()->seriesCount(), 4);
  const auto& two = p.controller()->run(0);
  std::vector<double> ind;
  for (const auto& s : two.steps) ind.push_back(s.inductionScore.at(1));  // layer 2, head 1
  const QVector<double> drawn = p.scoreChart()->seriesValues(0);
  ASSERT_EQ(drawn.size(), static_cast<int>(ind.size()));
  for (int i = 0; i < drawn.size(); i += 50) EXPECT_DOUBLE_EQ(drawn[i], ind[static_cast<size_t>(i)]);
  EXPECT_LT(ind[100], 0.3);
  EXPECT_GE(ind.back(), 0.7);
  // The phase change is marked on the loss chart where the score passes 0.5 for good.
  const int phase = attn::train::firstLastingStep(ind, 0.5);
  ASSERT_GT(phase, 100);
  EXPECT_EQ(p.lossChart()->eventStep(), phase);
  EXPECT_TRUE(p.lossChart()->eventLabel().contains(QString::number(phase)));
  EXPECT_TRUE(p.statusLabel()->text().contains(QStringLiteral("induction score")));
  // A plain run of another task shows the gradient chart again and no event.
  setUp(p, smallCopy(), 3);
  p.controller()->waitForIdle();
  EXPECT_FALSE(p.scoreChart()->isVisibleTo(&p));
  EXPECT_TRUE(p.gradChart()->isVisibleTo(&p));
  EXPECT_LT(p.lossChart()->eventStep(), 0);
}

TEST(TrainingPanel, ChineseTextForControlsAndDemonstrations) {
  auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
  ASSERT_TRUE(installUiTranslators(*app, "zh_CN"));
  {
    TrainingPanel p;
    EXPECT_EQ(p.trainAction()->text(), QStringLiteral("训练(&T)"));
    const auto demo = *attn::train::findDemonstration("scaling");
    EXPECT_TRUE(demoExplanation(demo).contains(QStringLiteral("√d_k")));
    EXPECT_NE(demoExplanation(demo), QString::fromStdString(demo.explanation));
    EXPECT_TRUE(trainingTaskDescription(Task::Copy).contains(QStringLiteral("对角线")));
    const auto induction = *attn::train::findDemonstration("induction");
    EXPECT_TRUE(demoTitle(induction).contains(QStringLiteral("归纳头")))
        << demoTitle(induction).toStdString();
    EXPECT_NE(demoExplanation(induction), QString::fromStdString(induction.explanation));
  }
  ASSERT_TRUE(installUiTranslators(*app, "en"));
}

TEST(TrainingPanel, ExportsCurvesSnapshotGridAndFrames) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  TrainingPanel p;
  setUp(p, smallCopy(), 10);
  p.train();
  p.controller()->waitForIdle();
  FigureOptions o;
  o.size = QSize(900, 600);
  for (const char* ext : {"png", "svg", "pdf"}) {
    const QString curves = dir.filePath(QStringLiteral("curves.%1").arg(ext));
    const QString grid = dir.filePath(QStringLiteral("grid.%1").arg(ext));
    ASSERT_TRUE(p.exportCurves(curves, o).ok()) << ext;
    ASSERT_TRUE(p.exportSnapshotGrid(grid, o, 4).ok()) << ext;
    EXPECT_GT(QFileInfo(curves).size(), 1000) << ext;
    EXPECT_GT(QFileInfo(grid).size(), 1000) << ext;
  }
  EXPECT_EQ(QImage(dir.filePath("curves.png")).size(), QSize(900, 600));
  QFile svg(dir.filePath("curves.svg"));
  ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
  const QByteArray text = svg.readAll();
  EXPECT_TRUE(text.contains("Loss") && text.contains("Accuracy") && text.contains("Entropy per head"));
  QFile gsvg(dir.filePath("grid.svg"));
  ASSERT_TRUE(gsvg.open(QIODevice::ReadOnly));
  EXPECT_TRUE(gsvg.readAll().contains("step 10"));
  EXPECT_EQ(p.sampledSteps(4), (std::vector<int>{0, 3, 7, 10}));

  // The expected column of the grid is drawn with the colormap: its diagonal
  // cells carry the colour of weight 1, its off-diagonal ones that of 0.
  const QImage g(dir.filePath("grid.png"));
  QCPColorGradient viridis = colormapGradient("viridis");
  const QColor one = QColor::fromRgb(viridis.color(1.0, QCPRange(0, 1)));
  const QColor zero = QColor::fromRgb(viridis.color(0.0, QCPRange(0, 1)));
  int ones = 0, zeros = 0;
  for (int y = 0; y < g.height(); ++y)
    for (int x = 0; x < g.width(); ++x) {
      const QColor c = g.pixelColor(x, y);
      ones += c == one;
      zeros += c == zero;
    }
  EXPECT_GT(ones, 100);
  EXPECT_GT(zeros, 100);

  const QString frames = dir.filePath("frames");
  QString note;
  auto files = p.exportAnimation(frames, 5, false, &note);
  ASSERT_TRUE(files.ok()) << files.error().message;
  ASSERT_EQ(files->size(), 5);
  for (int i = 0; i < 5; ++i) {
    const QImage f(QDir(frames).filePath(QStringLiteral("frame_%1.png").arg(i, 4, 10, QChar('0'))));
    EXPECT_FALSE(f.isNull()) << i;
  }
  // The GIF (ImageMagick, optional at run time) takes seconds to assemble: only with ATTN_UI_SHOTS.
  if (!imageMagickProgram().isEmpty() && qEnvironmentVariableIsSet("ATTN_UI_SHOTS")) {
    auto withGif = p.exportAnimation(dir.filePath("gif"), 3, true, &note);
    ASSERT_TRUE(withGif.ok());
    QFile gif(dir.filePath("gif/training.gif"));
    ASSERT_TRUE(gif.open(QIODevice::ReadOnly)) << note.toStdString();
    EXPECT_TRUE(gif.read(4) == "GIF8");
  }
  // A bad destination names the file.
  auto bad = p.exportSnapshotGrid(dir.filePath("grid.bmp"), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("grid.bmp"), std::string::npos);
  if (qEnvironmentVariableIsSet("ATTN_UI_SHOTS")) {
    p.resize(1400, 900);
    p.show();
    QCoreApplication::processEvents();
    p.grab().save(qEnvironmentVariable("ATTN_UI_SHOTS") + "/training_panel.png");
    // The README's figure: the copy task (N = 8, d_model 32, Adam) forming its diagonal.
    // With 36 symbols the fixed example's tokens differ, so matching equal tokens and
    // matching positions (the two ways to copy) both draw the diagonal; with 10 symbols
    // the repeated ones make the map less clear.
    TrainingPanel readme;
    TrainConfig copy;
    copy.vocabSize = 36;
    readme.form()->setConfig(copy);
    readme.form()->setStepLimit(300);  // formed by then: the snapshots show it forming
    ASSERT_TRUE(readme.applyForm());
    readme.train();
    readme.controller()->waitForIdle();
    FigureOptions fig;
    fig.size = QSize(1400, 330);
    fig.dpi = 110;
    ASSERT_TRUE(readme.exportSnapshotGrid(qEnvironmentVariable("ATTN_UI_SHOTS") + "/training.png", fig, 6).ok());
  }
}

TEST(TrainingPanel, InvalidSetupIsReportedNotApplied) {
  TrainingPanel p;
  setUp(p, smallCopy(), 5);
  TrainConfig bad = smallCopy();
  bad.dK = 0;  // below every limit (the form's spin boxes cannot go there; a demonstration could)
  const attn::Status st = p.controller()->configure({{QString(), bad}}, 5);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("d-k"), std::string::npos) << st.error().message;
  EXPECT_EQ(p.controller()->run(0).config.dK, 8);  // the previous run stays
  EXPECT_EQ(p.controller()->runCount(), 1);
}

}  // namespace
}  // namespace attn::ui
