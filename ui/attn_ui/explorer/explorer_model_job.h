#pragma once
// Private to ExplorerModel: one request's inputs and results, filled on a worker thread.

#include <QString>
#include <QStringList>
#include <memory>
#include <string>
#include <vector>

#include "attn/models/model.h"
#include "attn/vision/image_pixels.h"
#include "attn_ui/explorer/explorer_model.h"

namespace attn::ui {

struct ExplorerModel::Job {
  std::shared_ptr<const InputCache> cache;  // in: the previous input; out: this job's
  quint64 generation = 0;
  std::string text, keyText;
  std::shared_ptr<const attn::LoadedInput> file;     // keeps the loaded arrays alive
  std::shared_ptr<const attn::models::Model> model;  // a pretrained model: encode + run instead of the engine
  std::shared_ptr<const attn::models::Encoding> encoding;  // model: run these ids instead of encoding text
  std::shared_ptr<const attn::vision::ImagePixels> image;  // a vision model's input
  std::string imageSource;
  bool precomputed = false;  // view the file's 'attn' (layer below) instead of running the engine
  int layer = 0;
  attn::AttentionSpec spec;
  int maxTokens = 0;
  long long mapBudget = 0;
  attn::models::QkPrecision qkPrecision = attn::models::QkPrecision::F16;
  bool metricsOnly = false;
  attn::BackendKind backend = attn::BackendKind::Cpu;  // where a text model's forward is asked to run
  bool deviceF32 = true;                               // GPU inputs fp32: the GEMMs widen 16-bit weights
  std::shared_ptr<attn::gpu::Device> device;           // null: this process's CUDA device
  QString backendNote;                                 // out: the fallback line, when there was one
  std::shared_ptr<const attn::AttentionResult> result;
  std::shared_ptr<const attn::models::ModelRun> run;                          // model: the whole run
  std::shared_ptr<const attn::PrecomputedAttention> runLayers;                // model: its weights as [L][H]
  std::shared_ptr<const std::vector<attn::AttentionResult>> streamedResults;  // model, streamed
  QStringList runLabels;  // model: its tokens as a reader sees them
  QString error;
  double ms = 0.0;
};

}  // namespace attn::ui
