// The Configuration panel's Backend selector lists what core found: the CPU,
// CUDA with its device (or greyed out with the reason), and auto; choosing an
// entry reaches the engine.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include "attn/backend.h"
#include "attn_ui/explorer/config_panel.h"
#include "attn_ui/explorer/explorer_model.h"

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

}  // namespace
}  // namespace attn::ui
