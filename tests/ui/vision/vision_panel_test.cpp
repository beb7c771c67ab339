// The Vision attention panel and File > Open Image…, offscreen, on the ViT and DeiT
// fixtures and the committed scene.ppm: every tile is the core's patch map of the
// model's own run, a clicked patch becomes the query of every view, the opacity
// slider changes the drawn pixels, the 60% mask and the rollout are the core's,
// Cancel drops the maps, and a bad image changes nothing but the message.
#include "attn_ui/vision/vision_panel.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMouseEvent>
#include <QPushButton>
#include <QScrollArea>
#include <QTemporaryDir>
#include <QToolButton>
#include <algorithm>

#include "attn/models/model.h"
#include "attn/vision/image_pixels.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/theme/colormaps.h"
#include "attn_ui/vision/image_open_action.h"
#include "attn_ui/vision/vision_head_grid.h"
#include "attn_ui/vision/vision_overlay_view.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

const char* const kScene = ATTN_FIXTURE_DIR "/vision/scene.ppm";

std::shared_ptr<const attn::models::Model> openVisionFixture(const char* name) {
  auto m = attn::models::Model::open(std::string(ATTN_FIXTURE_DIR "/models/") + name);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : nullptr;
}

std::shared_ptr<const attn::vision::ImagePixels> scenePixels() {
  auto px = attn::vision::readImageFile(kScene);
  EXPECT_TRUE(px.ok());
  return std::make_shared<const attn::vision::ImagePixels>(std::move(px).value());
}

void settleVision(ExplorerModel& model, VisionPanel& panel) {
  for (int i = 0; i < 3; ++i) {
    model.waitForIdle();
    QCoreApplication::processEvents();
    panel.waitForIdle();
    QCoreApplication::processEvents();
  }
}

// The model's own run of the image, outside the window.
attn::models::ModelRun directRun(const attn::models::Model& m) {
  auto px = m.preprocessImage(*scenePixels(), kScene);
  EXPECT_TRUE(px.ok());
  auto run = m.runImage(*px);
  EXPECT_TRUE(run.ok());
  return std::move(run).value();
}

TEST(VisionPanel, TilesAreTheCoresPatchMapsOfTheModelsRun) {
  for (const char* name : {"vit", "deit", "dinov2_reg", "clip"}) {
    SCOPED_TRACE(name);
    ExplorerModel model;
    VisionPanel panel(&model);
    panel.resize(700, 800);
    EXPECT_TRUE(panel.status().contains("Open a vision transformer")) << panel.status().toStdString();
    auto m = openVisionFixture(name);
    ASSERT_NE(m, nullptr);
    model.setModel(m);
    model.setModelImage(scenePixels(), kScene);
    settleVision(model, panel);
    ASSERT_NE(panel.maps(), nullptr) << panel.status().toStdString();
    const auto& info = m->info();
    const auto run = directRun(*m);
    const attn::vision::PatchLayout& l = panel.layout();
    EXPECT_EQ(l.prefix, info.prefixTokens);
    EXPECT_EQ(l.tokens(), static_cast<int>(run.encoding.tokens.size()));
    EXPECT_EQ(l.patch, info.patchSize);
    const auto& maps = *panel.maps();
    ASSERT_EQ(maps.layers, info.layers);
    ASSERT_EQ(maps.heads, info.heads);
    EXPECT_EQ(maps.query, 0);
    attn::LayeredWeights direct;
    for (int li = 0; li < info.layers; ++li) {
      direct.emplace_back();
      for (int h = 0; h < info.heads; ++h) {
        const attn::Mat& w = run.layers[static_cast<size_t>(li)].heads[static_cast<size_t>(h)].weights;
        direct.back().push_back(w);
        const attn::Mat want = attn::vision::queryPatchMap(w, 0, l);
        EXPECT_LT((maps.headMap(li, h) - want).cwiseAbs().maxCoeff(), 1e-6f) << li << "," << h;
        EXPECT_TRUE(maps.headMask(li, h) == attn::vision::massMask(maps.headMap(li, h), 0.6));
      }
    }
    auto rollout = attn::attentionRollout(direct);
    ASSERT_TRUE(rollout.ok());
    for (int li = 0; li < info.layers; ++li)
      EXPECT_LT((maps.rollout[static_cast<size_t>(li)] -
                 attn::vision::queryPatchMap((*rollout)[static_cast<size_t>(li)], 0, l))
                    .cwiseAbs()
                    .maxCoeff(),
                1e-5f);
    // The existing views work on the patch sequence.
    const QStringList labels = model.queryLabels();
    ASSERT_EQ(labels.size(), l.tokens());
    EXPECT_EQ(labels.front(), "[CLS]");
    EXPECT_EQ(labels[l.prefix], "r0c0");
    EXPECT_EQ(labels.back(), QString("r%1c%2").arg(l.rows - 1).arg(l.cols - 1));
    EXPECT_TRUE(panel.status().contains("mean attention distance")) << panel.status().toStdString();
    EXPECT_EQ(panel.image().width(), l.cols * l.patch);  // the crop the model read
  }
}

TEST(VisionPanel, ClickedPatchBecomesTheQueryAndTilesOpenTheirHead) {
  ExplorerModel model;
  VisionPanel panel(&model);
  panel.resize(700, 800);
  panel.show();
  model.setModel(openVisionFixture("vit"));
  model.setModelImage(scenePixels(), kScene);
  settleVision(model, panel);
  ASSERT_NE(panel.maps(), nullptr) << panel.status().toStdString();
  const auto l = panel.layout();
  VisionOverlayView* view = panel.view();
  (void)view->grab();  // lays the image out
  const QRectF img = fittedImageRect(
      QRectF(view->rect())
          .adjusted(4, 4 + view->fontMetrics().height() + 6, -4, -4 - view->fontMetrics().height() - 16),
      panel.image().size());
  const int row = 1, col = 2, patch = row * l.cols + col;
  const QPointF at(img.left() + (col + 0.5) * img.width() / l.cols,
                   img.top() + (row + 0.5) * img.height() / l.rows);
  ASSERT_EQ(view->patchAt(at), patch);
  QMouseEvent press(QEvent::MouseButtonPress, at, view->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton,
                    Qt::NoModifier);
  QCoreApplication::sendEvent(view, &press);
  EXPECT_EQ(model.pinnedRow(), l.prefix + patch);  // the heatmap's pinned row too
  settleVision(model, panel);
  ASSERT_NE(panel.maps(), nullptr);
  EXPECT_EQ(panel.maps()->query, l.prefix + patch);
  EXPECT_EQ(view->overlay().queryPatch, patch);
  EXPECT_TRUE(view->caption().contains(QString("r%1c%2").arg(row).arg(col))) << view->caption().toStdString();

  // A tile of the grid opens that layer and head; the rollout column shows the rollout.
  VisionHeadGrid* grid = panel.grid();
  (void)grid->grab();
  const QPointF tile = grid->tileRect(1, 2).center();
  QMouseEvent pressTile(QEvent::MouseButtonPress, tile, grid->mapToGlobal(tile), Qt::LeftButton,
                        Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(grid, &pressTile);
  settleVision(model, panel);
  EXPECT_EQ(model.currentLayer(), 1);
  EXPECT_EQ(model.currentHead(), 2);
  EXPECT_TRUE(view->overlay().levels.isApprox(attn::vision::normalizedToMax(panel.maps()->headMap(1, 2))));
  const QPointF roll = grid->tileRect(0, panel.maps()->heads).center();
  QMouseEvent pressRoll(QEvent::MouseButtonPress, roll, grid->mapToGlobal(roll), Qt::LeftButton,
                        Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(grid, &pressRoll);
  settleVision(model, panel);
  EXPECT_EQ(panel.mode(), VisionPanel::Mode::Rollout);
  EXPECT_EQ(model.currentLayer(), 0);
  EXPECT_TRUE(view->overlay().levels.isApprox(attn::vision::normalizedToMax(panel.maps()->rollout[0])));
  panel.setMode(VisionPanel::Mode::Mask);
  EXPECT_TRUE(view->overlay().mask == panel.maps()->headMask(0, 2));
}

TEST(VisionPanel, OpacityChangesTheDrawnPixelsAndCancelDropsTheMaps) {
  ExplorerModel model;
  VisionPanel panel(&model);
  panel.resize(600, 700);
  panel.show();
  model.setModel(openVisionFixture("vit"));
  model.setModelImage(scenePixels(), kScene);
  settleVision(model, panel);
  ASSERT_NE(panel.maps(), nullptr);
  VisionOverlayView* view = panel.view();
  // The most attended patch: at opacity 0 the image's own colour, at 1 the colormap's top colour.
  Eigen::Index r = 0, c = 0;
  view->overlay().levels.maxCoeff(&r, &c);
  const auto centreOf = [&] {
    const QRectF img = fittedImageRect(
        QRectF(view->rect())
            .adjusted(4, 4 + view->fontMetrics().height() + 6, -4, -4 - view->fontMetrics().height() - 16),
        panel.image().size());
    return QPoint(qRound(img.left() + (c + 0.5) * img.width() / view->overlay().levels.cols()),
                  qRound(img.top() + (r + 0.5) * img.height() / view->overlay().levels.rows()));
  };
  panel.setOpacity(0.0);
  QImage shot = view->grab().toImage();
  const QColor clear = shot.pixelColor(centreOf());
  panel.setOpacity(1.0);
  EXPECT_DOUBLE_EQ(view->overlay().opacity, 1.0);
  const QColor heat = view->grab().toImage().pixelColor(centreOf());
  const QColor top = QColor::fromRgb(colormapGradient(view->overlay().colormap).color(1.0, QCPRange(0, 1)));
  EXPECT_NEAR(heat.red(), top.red(), 2);
  EXPECT_NEAR(heat.green(), top.green(), 2);
  EXPECT_NEAR(heat.blue(), top.blue(), 2);
  EXPECT_NE(clear, heat);

  model.setPinnedRow(5);  // a new query: the maps are on their way, then cancelled before delivery
  ASSERT_TRUE(panel.busy());
  panel.cancel();
  QCoreApplication::processEvents();
  EXPECT_FALSE(panel.busy());
  EXPECT_EQ(panel.maps(), nullptr);
  EXPECT_EQ(panel.status(), "Cancelled.");
}

// In a scroll area (as every dock holds its panel) the frame's shape decides: a wide, short
// frame puts the overlay beside the grid, although the panel itself is never that short.
TEST(VisionPanel, AWideShortFrameSetsTheOverlayBesideTheGrid) {
  ExplorerModel model;
  QScrollArea frame;
  frame.setWidgetResizable(true);
  auto* panel = new VisionPanel(&model);
  frame.setWidget(panel);
  frame.resize(700, 900);
  frame.show();
  QCoreApplication::processEvents();
  EXPECT_EQ(panel->orientation(), Qt::Vertical);
  const int stacked = panel->minimumSizeHint().height();
  frame.resize(stacked * 9 / 8, stacked / 2);
  QCoreApplication::processEvents();
  QCoreApplication::processEvents();
  EXPECT_EQ(panel->orientation(), Qt::Horizontal);
  EXPECT_LT(panel->minimumSizeHint().height(), stacked);
  EXPECT_LE(panel->height(), std::max(frame.viewport()->height(), panel->minimumSizeHint().height()))
      << "side by side, the panel shrinks to the frame (or its own minimum)";
  frame.resize(400, 900);
  QCoreApplication::processEvents();
  EXPECT_EQ(panel->orientation(), Qt::Vertical);
}

TEST(ImageOpenAction, OpensTheExampleThenAFileAndRefusesABadOne) {
  MainWindow window;
  auto* action = window.findChild<ImageOpenAction*>();
  ASSERT_NE(action, nullptr);
  EXPECT_FALSE(action->action()->isEnabled());  // no vision model yet
  auto* panel = window.findChild<VisionPanel*>();
  ASSERT_NE(panel, nullptr);
  window.model()->setModel(openVisionFixture("deit"));
  EXPECT_TRUE(action->action()->isEnabled());
  ASSERT_NE(window.model()->modelImage(), nullptr);  // the bundled example until a file is opened
  EXPECT_EQ(window.model()->modelImage()->width, 128);
  auto* dock = window.findChild<QDockWidget*>("VisionPanelDock");
  ASSERT_NE(dock, nullptr);
  EXPECT_FALSE(dock->isHidden());  // shown with the vision model
  settleVision(*window.model(), *panel);
  ASSERT_NE(panel->maps(), nullptr) << panel->status().toStdString();

  ASSERT_TRUE(action->open(kScene));
  settleVision(*window.model(), *panel);
  EXPECT_EQ(window.model()->modelImage()->width, 44);
  EXPECT_EQ(window.model()->modelImageSource(), kScene);
  const auto before = window.model()->modelRun();
  ASSERT_NE(before, nullptr);

  QString error;
  QObject::connect(window.model(), &ExplorerModel::errorOccurred, [&error](const QString& m) { error = m; });
  const QString bad = QStringLiteral(ATTN_FIXTURE_DIR "/vision/no_such_image.png");
  EXPECT_FALSE(action->open(bad));
  EXPECT_TRUE(error.contains("no_such_image.png")) << error.toStdString();
  settleVision(*window.model(), *panel);
  EXPECT_EQ(window.model()->modelImage()->width, 44);  // unchanged
  EXPECT_EQ(window.model()->modelRun(), before);
}

// A crop larger than the resized picture (DINOv2-with-registers' 24 x 40 crop of the 128 x 128
// example, resized to 33 x 33) is zero-padded as transformers does, so the example runs; a run that
// fails says why in the panel instead of "running" forever.
TEST(VisionPanel, PaddedCropRunsAndAFailedRunShowsItsError) {
  MainWindow window;
  auto* panel = window.findChild<VisionPanel*>();
  ASSERT_NE(panel, nullptr);
  window.model()->setModel(openVisionFixture("dinov2_reg"));
  ASSERT_NE(window.model()->modelImage(), nullptr);
  EXPECT_EQ(window.model()->modelImage()->width, 128);
  settleVision(*window.model(), *panel);
  ASSERT_NE(panel->maps(), nullptr) << panel->status().toStdString();
  EXPECT_EQ(panel->image().width(), 40);
  EXPECT_EQ(panel->image().height(), 24);

  ExplorerModel model;
  VisionPanel lone(&model);
  model.setModel(openVisionFixture("dinov2"));
  auto twoChannels = std::make_shared<attn::vision::ImagePixels>();
  twoChannels->height = twoChannels->width = 8, twoChannels->channels = 2;
  twoChannels->values.assign(8 * 8 * 2, 0.5f);
  model.setModelImage(twoChannels, "odd.pam");
  settleVision(model, lone);
  EXPECT_EQ(model.modelRun(), nullptr);
  EXPECT_EQ(lone.maps(), nullptr);
  EXPECT_TRUE(lone.status().contains("2 channels")) << lone.status().toStdString();
  EXPECT_FALSE(lone.status().contains("Running")) << lone.status().toStdString();
}

// A vision model reads the image: the Input panel shows it (name, size, the patch grid the model
// sees) instead of the query text, and gives the text rows back when a text model opens.
TEST(ImageOpenAction, InputPanelShowsTheImageInPlaceOfTheText) {
  MainWindow window;
  InputPanel* input = window.inputPanel();
  EXPECT_TRUE(input->showsTextInput());
  auto m = openVisionFixture("vit");
  ASSERT_NE(m, nullptr);
  window.model()->setModel(m);
  EXPECT_FALSE(input->showsTextInput());
  EXPECT_TRUE(input->imageLabel()->text().contains("example image"))
      << input->imageLabel()->text().toStdString();
  auto* action = window.findChild<ImageOpenAction*>();
  ASSERT_NE(action, nullptr);
  ASSERT_TRUE(action->open(kScene));
  const auto& info = m->info();
  const QString text = input->imageLabel()->text();
  EXPECT_TRUE(text.contains("scene.ppm")) << text.toStdString();
  EXPECT_TRUE(text.contains(QString("%1 × %2 px").arg(44).arg(window.model()->modelImage()->height)))
      << text.toStdString();
  const int side = info.imageSize / info.patchSize;
  EXPECT_TRUE(text.contains(QString("%1 × %1 patches of %2 px").arg(side).arg(info.patchSize)))
      << text.toStdString();
  // A name with a placeholder in it is shown as it is.
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString odd = dir.filePath("scene%2%7.ppm");
  ASSERT_TRUE(QFile::copy(kScene, odd));
  ASSERT_TRUE(action->open(odd));
  EXPECT_TRUE(input->imageLabel()->text().contains("scene%2%7.ppm"))
      << input->imageLabel()->text().toStdString();
  window.model()->waitForIdle();
  window.show();
  QCoreApplication::processEvents();
  EXPECT_TRUE(input->openImageButton()->isVisible());
  EXPECT_GE(input->imageLabel()->height(), 3 * input->imageLabel()->fontMetrics().height())
      << "the image row must be laid out, not squeezed to nothing";
  window.model()->waitForIdle();

  auto text_model = attn::models::Model::open(ATTN_FIXTURE_DIR "/models/gpt2");
  ASSERT_TRUE(text_model.ok()) << text_model.error().message;
  window.model()->setModel(*text_model);
  EXPECT_TRUE(input->showsTextInput());
  EXPECT_TRUE(input->imageLabel()->text().isEmpty());
  window.model()->waitForIdle();
}

}  // namespace
}  // namespace attn::ui
