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
  /// Waits for queued work; reports an asynchronous kernel fault.
  virtual Status synchronize() = 0;

  /// Held for a whole request (uploads to downloads): one stream and one cuBLAS
  /// handle serve every backend object, and front ends run requests on
  /// several threads (the explorer's worker, the panels').
  std::mutex requestMutex;
};

/// Device memory for `count` T, released when it goes out of scope.
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : dev_(o.dev_), ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; }
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
