#pragma once
// A decoder's weights on the device, uploaded once and kept: the matrices in the
// dtype they were stored in (BF16 patterns as mapped, F16 models' tensors encoded
// back to F16 exactly, F32 as F32), the vectors (norms, biases) as f32 for the
// kernels that read them. The bytes are checked against the device's free memory
// before anything is allocated, so a model that does not fit falls back with a
// message instead of failing half-way through an upload.
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "attn/cuda/device.h"
#include "attn/models/model_weights.h"

namespace attn::gpu {

/// A tensor in device memory: rows x cols, row-major, f32 or 16-bit patterns of `type`.
struct DeviceTensor {
  InputType type = InputType::F32;
  const void* data = nullptr;
  int64_t rows = 0, cols = 0;
};

/// The storage a tensor gets on the device: 16-bit for the matrices of a BF16 / F16 model,
/// f32 for vectors and for F32 models.
InputType deviceStorage(const models::WeightTensor& t, const std::string& modelDtype);

/// Every distinct tensor of a decoder (the token embedding and a tied lm_head counted once).
std::vector<const models::WeightTensor*> decoderTensors(const models::ModelWeights& w);

/// Device bytes of decoderTensors in their deviceStorage.
size_t deviceWeightBytes(const models::ModelWeights& w);

class DeviceWeightCache {
 public:
  /// Uploads every decoder tensor of `w`. Refused before any allocation when the tensors need
  /// more than the device's free memory less `keepFree` (the forward's activations): the
  /// error gives both sizes.
  static Result<std::unique_ptr<DeviceWeightCache>> upload(Device& dev, const models::ModelWeights& w,
                                                           size_t keepFree);
  /// The device copy of a host tensor (by its storage), or null when it was not uploaded.
  const DeviceTensor* find(const models::WeightTensor& t) const;
  size_t bytes() const { return bytes_; }

 private:
  std::vector<DeviceArray<unsigned char>> arrays_;
  std::unordered_map<const void*, DeviceTensor> tensors_;
  size_t bytes_ = 0;
};

/// What a model owns: its device weights, uploaded on first use and kept for the model's
/// lifetime (one upload per model and device dtype, whatever the number of runs). Asked
/// for another device, it releases the first device's copy and uploads to the new one:
/// a device must outlive the copies made on it (the CUDA device lives as long as the process).
class ModelDeviceWeights {
 public:
  Result<const DeviceWeightCache*> get(Device& dev, const models::ModelWeights& w, size_t keepFree);
  /// Uploads so far (each a whole model's weights).
  int uploads() const { return uploads_; }

 private:
  std::mutex mutex_;
  std::unique_ptr<DeviceWeightCache> cache_;
  const Device* device_ = nullptr;
  int uploads_ = 0;
};

}  // namespace attn::gpu
