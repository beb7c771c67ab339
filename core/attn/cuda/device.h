#pragma once
// What the offload backend needs from a GPU: memory, copies, the three kernels
// of flash_block.h and a batched GEMM. Implemented by the CUDA device
// (device_cuda.cpp, cuBLAS + kernels.cu; only in builds with the toolkit) and
// by the CPU emulation the tests use (tests/support/emulated_device.h), so the
// backend's packing, fallbacks and unpacking are tested without a GPU.
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "attn/cuda/flash_block.h"
#include "attn/cuda/model_block.h"
#include "attn/status.h"

namespace attn::gpu {

class Device {
 public:
  virtual ~Device() = default;
  /// e.g. "NVIDIA H200, 141 GB"
  virtual std::string description() const = 0;
  /// Shared memory one block may use (the opt-in limit), bytes.
  virtual size_t maxSharedBytes() const = 0;
  /// Free device memory now, bytes.
  virtual size_t freeBytes() const = 0;

  virtual Result<void*> allocate(size_t bytes) = 0;
  virtual void release(void* p) noexcept = 0;
  virtual Status upload(void* dst, const void* src, size_t bytes) = 0;
  virtual Status download(void* dst, const void* src, size_t bytes) = 0;

  virtual Status flash(const FlashParams& p, const TilePlan& plan) = 0;
  virtual Status weights(const WeightsParams& p) = 0;
  virtual Status softmaxRows(const SoftmaxParams& p) = 0;
  /// Row-major, for b in [0, batch): C_b[m, n] = A_b[m, k] * (transB ? B_b[n, k]^T : B_b[k, n]).
  virtual Status gemm(int batch, int m, int n, int k, const float* a, size_t strideA, const float* b,
                      size_t strideB, bool transB, float* c, size_t strideC) = 0;
  /// Row-major C[m, n] (f32) = A[m, k] * (transB ? B[n, k]^T : B[k, n]) with A and B both f32
  /// or both 16-bit patterns of `type`, the products accumulated in f32 (the model forward's
  /// projections: B the weight as stored, nn.Linear [out, in] transposed, Conv1D [in, out] not).
  struct MixedGemm {
    int m = 0, n = 0, k = 0;
    InputType type = InputType::F32;
    const void* a = nullptr;
    const void* b = nullptr;
    bool transB = true;
    float* c = nullptr;
  };
  virtual Status gemmMixed(const MixedGemm&) { return Error{"this device has no mixed-precision GEMM"}; }
  /// A decoder layer's other pieces (model_block.h); queued like the kernels above.
  virtual Status norm(const NormParams&) { return noModelKernels(); }
  virtual Status rope(const RopeParams&) { return noModelKernels(); }
  virtual Status headLayout(const HeadLayoutParams&) { return noModelKernels(); }
  virtual Status activation(const ActivationParams&) { return noModelKernels(); }
  virtual Status add(const AddParams&) { return noModelKernels(); }
  virtual Status embed(const EmbedParams&) { return noModelKernels(); }
  virtual Status convert(const ConvertParams&) { return noModelKernels(); }
  /// Waits for queued work; reports an asynchronous kernel fault.
  virtual Status synchronize() = 0;

  /// Held for a whole request (uploads to downloads): one stream and one cuBLAS
  /// handle serve every backend object, and front ends run requests on
  /// several threads (the explorer's worker, the panels').
  std::mutex requestMutex;

 private:
  static Status noModelKernels() { return Error{"this device has no model-forward kernels"}; }
};

/// Device memory for `count` T, released when it goes out of scope.
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : dev_(o.dev_), ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    if (this != &o) {
      if (ptr_) dev_->release(ptr_);
      dev_ = o.dev_, ptr_ = o.ptr_, count_ = o.count_;
      o.ptr_ = nullptr;
    }
    return *this;
  }
  ~DeviceArray() {
    if (ptr_) dev_->release(ptr_);
  }

  static Result<DeviceArray> make(Device& dev, size_t count) {
    auto p = dev.allocate(count * sizeof(T) + (count == 0 ? 1 : 0));
    if (!p) return p.error();
    DeviceArray a;
    a.dev_ = &dev;
    a.ptr_ = static_cast<T*>(*p);
    a.count_ = count;
    return a;
  }
  T* get() const { return ptr_; }
  size_t size() const { return count_; }

 private:
  Device* dev_ = nullptr;
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

}  // namespace attn::gpu
