// The Configuration panel's Backend selector lists what core found: the CPU,
// CUDA with its device (or greyed out with the reason), and auto; choosing an
// entry reaches the engine.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>

#include "attn/backend.h"
#include "attn/models/model.h"
#include "attn_ui/explorer/config_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/window/status_summary.h"
#include "emulated_device.h"
#include "model_fixtures.h"

namespace attn::ui {
namespace {

struct BackendRig {
  QWidget window;
  ExplorerModel model;
  ConfigPanel* config;
  BackendRig() {
    config = new ConfigPanel(&model, &window);
    auto* l = new QVBoxLayout(&window);
    l->addWidget(config);
    model.setCoalesceMs(0);
    config->applyToModel();
    model.setText("the cat sat on the mat");
    settleBackendRig();
  }
  void settleBackendRig() {
    model.waitForIdle();
    QCoreApplication::processEvents();
  }
};

TEST(BackendSelector, ListsCpuCudaAndAutoAsCoreFoundThem) {
  BackendRig rig;
  QComboBox* box = rig.config->backendSelector();
  ASSERT_EQ(box->count(), 3);
  EXPECT_EQ(box->itemData(0).toString(), "cpu");
  EXPECT_EQ(box->itemData(1).toString(), "cuda");
  EXPECT_EQ(box->itemData(2).toString(), "auto");
  const attn::BackendInfo cuda = attn::backendsFound()[1];
  auto* items = qobject_cast<QStandardItemModel*>(box->model());
  ASSERT_NE(items, nullptr);
  EXPECT_TRUE(items->item(0)->isEnabled());
  EXPECT_EQ(items->item(1)->isEnabled(), cuda.available);
  if (cuda.available) {
    EXPECT_TRUE(box->itemText(1).startsWith("CUDA: ")) << box->itemText(1).toStdString();
    EXPECT_EQ(box->itemText(2), "Auto (CUDA)");
  } else {
    EXPECT_EQ(box->itemText(1), "CUDA (unavailable)");
    EXPECT_TRUE(box->itemData(1, Qt::ToolTipRole).toString().contains(QString::fromStdString(cuda.reason)));
    EXPECT_EQ(box->itemText(2), "Auto (CPU)");
  }
}

TEST(BackendSelector, ChoosingAutoReachesTheEngine) {
  BackendRig rig;
  QComboBox* box = rig.config->backendSelector();
  box->setCurrentIndex(2);
  rig.settleBackendRig();
  EXPECT_EQ(rig.model.spec().backend, attn::BackendKind::Auto);
  ASSERT_TRUE(rig.model.hasResult());
  EXPECT_EQ(rig.model.result().backendUsed, attn::backendsFound()[1].available ? "cuda" : "cpu");
  box->setCurrentIndex(0);
  rig.settleBackendRig();
  EXPECT_EQ(rig.model.spec().backend, attn::BackendKind::Cpu);
  EXPECT_EQ(rig.model.result().backendUsed, "cpu");
}

TEST(BackendSelector, GpuInputsAreOfferedOnlyWithACudaDeviceAndFollowTheSpec) {
  BackendRig rig;
  QComboBox* box = rig.config->gpuInputsSelector();
  ASSERT_EQ(box->count(), 3);
  EXPECT_EQ(box->itemData(0).toString(), "fp32");
  EXPECT_EQ(box->itemData(2).toString(), "bf16");
  const bool cuda = attn::backendsFound()[1].available;
  EXPECT_EQ(box->isEnabled(), cuda);
  EXPECT_FALSE(box->toolTip().isEmpty());
  attn::AttentionSpec spec = rig.model.spec();
  spec.deviceInputs = attn::DeviceInputs::F16;  // e.g. from a session saved on a GPU machine
  rig.config->setSpec(spec);
  rig.settleBackendRig();
  EXPECT_EQ(box->currentData().toString(), "fp16");
  EXPECT_EQ(rig.model.spec().deviceInputs, attn::DeviceInputs::F16);
  EXPECT_EQ(box->isEnabled(), cuda) << "a session does not enable it without a device";
}

// A model run with the Backend selector on cpu, cuda or auto: the choice reaches the run's
// plan (against the emulated device: the kernels' own code on the CPU), the forward runs
// where it says, and a fallback's one line shows in the status bar.
struct ModelBackendRig : BackendRig {
  std::shared_ptr<gpu::EmulatedDevice> dev = std::make_shared<gpu::EmulatedDevice>();
  StatusSummary* status = nullptr;
  explicit ModelBackendRig(const std::string& fixture) {
    status = new StatusSummary(&model, &window);
    window.layout()->addWidget(status);
    model.setModelDevice(dev);
    auto opened = models::Model::open(test::modelDir(fixture));
    EXPECT_TRUE(opened.ok()) << opened.error().message;
    if (opened) model.setModel(*opened);
    settleBackendRig();
  }
  void choose(const char* backend) {
    QComboBox* box = config->backendSelector();
    box->setCurrentIndex(box->findData(QString::fromLatin1(backend)));
    settleBackendRig();
  }
  std::string usedBy() const {
    const auto run = model.modelRun();
    return run && !run->layers.empty() ? run->layers.front().backendUsed : std::string("no run");
  }
};

TEST(ModelBackendSelector, TheChoiceReachesTheModelRun) {
  ModelBackendRig rig("llama");
  ASSERT_TRUE(rig.model.hasModel());
  EXPECT_TRUE(rig.config->backendSelector()->isEnabled()) << "a model keeps the selector";
  EXPECT_TRUE(rig.config->backendSelector()->toolTip().contains("GPT-2 and the Llama family"));
  EXPECT_EQ(rig.usedBy(), "cpu");
  EXPECT_EQ(rig.dev->flashLaunches, 0);
  const auto cpuRun = rig.model.modelRun();
  rig.choose("cuda");
  EXPECT_EQ(rig.model.spec().backend, attn::BackendKind::Cuda);
  ASSERT_EQ(rig.usedBy(), "cuda") << rig.model.modelBackendNote().toStdString();
  EXPECT_EQ(rig.dev->flashLaunches, rig.model.modelPtr()->info().layers);
  EXPECT_TRUE(rig.model.modelBackendNote().isEmpty());
  EXPECT_TRUE(rig.status->text().contains("forward on the GPU")) << rig.status->text().toStdString();
  // The same maps as the CPU's run (f32 arithmetic: GPU inputs fp32).
  const auto gpuRun = rig.model.modelRun();
  ASSERT_NE(gpuRun, cpuRun);
  ASSERT_EQ(gpuRun->layers.size(), cpuRun->layers.size());
  double worst = 0;
  for (size_t l = 0; l < cpuRun->layers.size(); ++l)
    for (size_t h = 0; h < cpuRun->layers[l].heads.size(); ++h)
      worst = std::max(
          worst, static_cast<double>((gpuRun->layers[l].heads[h].weights - cpuRun->layers[l].heads[h].weights)
                                         .cwiseAbs()
                                         .maxCoeff()));
  EXPECT_LE(worst, 1e-5);
  rig.choose("auto");
  EXPECT_EQ(rig.usedBy(), "cuda") << "auto takes the (emulated) device";
  rig.choose("cpu");
  EXPECT_EQ(rig.usedBy(), "cpu");
  EXPECT_FALSE(rig.status->text().contains("forward on the GPU"));
}

TEST(ModelBackendSelector, AFallbackShowsItsLineInTheStatusBar) {
  ModelBackendRig rig("bert");
  ASSERT_TRUE(rig.model.hasModel());
  rig.choose("cuda");
  EXPECT_EQ(rig.usedBy(), "cpu");
  EXPECT_EQ(rig.dev->flashLaunches, 0);
  const QString line = "the model forward runs on the CPU: the CUDA forward does not cover the BERT family";
  EXPECT_EQ(rig.model.modelBackendNote(), line);
  EXPECT_TRUE(rig.status->text().contains(line.toHtmlEscaped())) << rig.status->text().toStdString();
  rig.choose("cpu");  // asked for the CPU: nothing to say
  EXPECT_TRUE(rig.model.modelBackendNote().isEmpty());
  EXPECT_FALSE(rig.status->text().contains("CUDA forward")) << rig.status->text().toStdString();
}

TEST(ModelBackendSelector, ADeviceFaultFallsBackWithTheDevicesMessage) {
  ModelBackendRig rig("gpt2");
  rig.dev->failFlash = true;
  rig.choose("cuda");
  EXPECT_EQ(rig.usedBy(), "cpu");
  EXPECT_EQ(rig.model.modelBackendNote(),
            "the model forward runs on the CPU: flash attention kernel launch failed (injected)");
  EXPECT_TRUE(rig.status->text().contains("flash attention kernel launch failed"))
      << rig.status->text().toStdString();
}

}  // namespace
}  // namespace attn::ui
