#pragma once
// A gpu::Device that runs the kernels' own code (flash_block.h) on the CPU:
// each block's phases for every thread id in turn, then the next phase (a
// barrier), with "shared memory" a host buffer of the size the launch asks
// for. It lets the tests drive the GPU backend's host side (packing, launch
// shapes, fallbacks, unpacking) and the kernels' index arithmetic in builds and
// on machines without a GPU. Faults can be injected to test the fallbacks.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attn/cuda/device.h"

namespace attn::gpu {

struct HostExec {
  int n = 1;
  int threads() const { return n; }
  template <class F>
  void each(F&& f) {
    for (int t = 0; t < n; ++t) f(t);
  }
};

/// Runs the flash kernel's grid: every (K/V head, query block) in turn.
inline void emulateFlash(const FlashParams& p, const TilePlan& plan) {
  std::vector<double> shared((plan.sharedBytes + sizeof(double) - 1) / sizeof(double));
  HostExec ex{plan.threads};
  for (int head = 0; head < flashKvHeads(p); ++head)
    for (int qb = 0; qb < flashQueryBlocks(p); ++qb) {
      // Stale values from the previous block must not matter: poison them.
      std::memset(shared.data(), 0xff, shared.size() * sizeof(double));
      const FlashShared sh = flashSharedLayout(shared.data(), plan.br, plan.bc, p.dk, p.dv);
      flashBlock(p, sh, head, qb, ex);
    }
}

class EmulatedDevice final : public Device {
 public:
  size_t sharedLimit = 99 * 1024;  // an Ada GPU's opt-in limit
  size_t freeLimit = size_t{1} << 34;
  bool failFlash = false;           // the launch reports an error
  size_t failAllocationsAbove = 0;  // 0: never

  std::string description() const override { return "CPU emulation"; }
  size_t maxSharedBytes() const override { return sharedLimit; }
  size_t freeBytes() const override { return freeLimit; }

  Result<void*> allocate(size_t bytes) override {
    if (failAllocationsAbove > 0 && bytes > failAllocationsAbove)
      return Error{"cannot allocate on the emulated GPU (injected)"};
    ++live;
    return std::malloc(bytes == 0 ? 1 : bytes);
  }
  void release(void* p) noexcept override {
    --live;
    std::free(p);
  }
  Status upload(void* dst, const void* src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return okStatus();
  }
  Status download(void* dst, const void* src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return okStatus();
  }

  Status flash(const FlashParams& p, const TilePlan& plan) override {
    if (failFlash) return Error{"flash attention kernel launch failed (injected)"};
    lastPlan = plan;
    ++flashLaunches;
    emulateFlash(p, plan);
    return okStatus();
  }
  Status weights(const WeightsParams& p) override {
    for (int h = 0; h < p.f.heads; ++h)
      for (int i = 0; i < p.f.nq; ++i)
        for (int j = 0; j < p.f.nk; ++j) weightCell(p, h, i, j);
    return okStatus();
  }
  Status softmaxRows(const SoftmaxParams& p) override {
    for (int h = 0; h < p.heads; ++h)
      for (int i = 0; i < p.nq; ++i) softmaxRow(p, h, i);
    return okStatus();
  }
  Status gemm(int batch, int m, int n, int k, const float* a, size_t strideA, const float* b, size_t strideB,
              bool transB, float* c, size_t strideC) override {
    ++gemms;
    for (int x = 0; x < batch; ++x)
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          float acc = 0.0f;
          for (int d = 0; d < k; ++d)
            acc += a[x * strideA + static_cast<size_t>(i) * k + d] *
                   (transB ? b[x * strideB + static_cast<size_t>(j) * k + d]
                           : b[x * strideB + static_cast<size_t>(d) * n + j]);
          c[x * strideC + static_cast<size_t>(i) * n + j] = acc;
        }
    return okStatus();
  }
  // f32 sums over inputs decoded exactly, as cuBLAS's CUBLAS_COMPUTE_32F (in another order).
  Status gemmMixed(const MixedGemm& g) override {
    ++gemms;
    const auto* a16 = static_cast<const uint16_t*>(g.a);
    const auto* b16 = static_cast<const uint16_t*>(g.b);
    const auto* a32 = static_cast<const float*>(g.a);
    const auto* b32 = static_cast<const float*>(g.b);
    for (int i = 0; i < g.m; ++i)
      for (int j = 0; j < g.n; ++j) {
        float acc = 0.0f;
        for (int d = 0; d < g.k; ++d) {
          const size_t ai = static_cast<size_t>(i) * g.k + d;
          const size_t bi = g.transB ? static_cast<size_t>(j) * g.k + d : static_cast<size_t>(d) * g.n + j;
          acc += loadInput(a32, a16, g.type, ai) * loadInput(b32, b16, g.type, bi);
        }
        g.c[static_cast<size_t>(i) * g.n + j] = acc;
      }
    return okStatus();
  }
  Status norm(const NormParams& p) override {
    HostExec ex{96};  // fewer threads than most rows are wide: the partial sums cross threads
    std::vector<double> red(normSharedBytes(ex.n) / sizeof(double));
    for (int row = 0; row < p.rows; ++row) normRowBlock(p, red.data(), row, ex);
    return okStatus();
  }
  Status rope(const RopeParams& p) override {
    for (int r = 0; r < p.rows; ++r)
      for (int h = 0; h < p.heads; ++h)
        for (int i = 0; i < p.headDim / 2; ++i) ropeCell(p, r, h, i);
    return okStatus();
  }
  Status headLayout(const HeadLayoutParams& p) override {
    for (int r = 0; r < p.rows; ++r)
      for (int h = 0; h < p.heads; ++h)
        for (int d = 0; d < p.width; ++d) headLayoutCell(p, r, h, d);
    return okStatus();
  }
  Status activation(const ActivationParams& p) override {
    for (size_t c = 0; c < p.count; ++c) activationCell(p, c);
    return okStatus();
  }
  Status add(const AddParams& p) override {
    for (size_t c = 0; c < static_cast<size_t>(p.rows) * p.cols; ++c) addCell(p, c);
    return okStatus();
  }
  Status embed(const EmbedParams& p) override {
    for (int r = 0; r < p.rows; ++r)
      for (int c = 0; c < p.cols; ++c) embedCell(p, r, c);
    return okStatus();
  }
  Status convert(const ConvertParams& p) override {
    for (size_t c = 0; c < p.count; ++c) convertCell(p, c);
    return okStatus();
  }
  Status synchronize() override { return okStatus(); }

  int live = 0;  // allocations not yet released
  int flashLaunches = 0, gemms = 0;
  TilePlan lastPlan;
};

}  // namespace attn::gpu
