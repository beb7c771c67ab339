// The GPU kernels: thin shells around flash_block.h, whose functions are the
// same code the CPU emulation runs in the tests.
#include <cuda_runtime.h>

#include <algorithm>

#include "attn/cuda/kernels.h"

namespace attn::gpu {
namespace {

// A phase runs on every thread of the block, then the block synchronizes.
struct DeviceExec {
  __device__ int threads() const { return static_cast<int>(blockDim.x); }
  template <class F>
  __device__ void each(F&& f) {
    f(static_cast<int>(threadIdx.x));
    __syncthreads();
  }
};

__global__ void flashKernel(const FlashParams p) {
  extern __shared__ __align__(16) unsigned char shared[];
  const FlashShared sh = flashSharedLayout(shared, p.br, p.bc, p.dk, p.dv);
  DeviceExec ex;
  flashBlock(p, sh, static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.x), ex);
}

__global__ void weightsKernel(const WeightsParams w) {
  const size_t cells = static_cast<size_t>(w.f.heads) * w.f.nq * w.f.nk;
  const size_t perHead = static_cast<size_t>(w.f.nq) * w.f.nk;
  for (size_t c = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; c < cells;
       c += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const int head = static_cast<int>(c / perHead);
    const size_t r = c % perHead;
    weightCell(w, head, static_cast<int>(r / w.f.nk), static_cast<int>(r % w.f.nk));
  }
}

__global__ void softmaxKernel(const SoftmaxParams p) {
  const size_t rows = static_cast<size_t>(p.heads) * p.nq;
  for (size_t r = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<size_t>(gridDim.x) * blockDim.x)
    softmaxRow(p, static_cast<int>(r / p.nq), static_cast<int>(r % p.nq));
}

unsigned gridFor(size_t work, unsigned block) {
  const size_t blocks = (work + block - 1) / block;
  return static_cast<unsigned>(std::min<size_t>(std::max<size_t>(blocks, 1), 1u << 20));
}

}  // namespace

int setFlashSharedLimit(size_t bytes) {
  return cudaFuncSetAttribute(flashKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
}

int launchFlash(const FlashParams& p, const TilePlan& plan, void* stream) {
  if (p.heads <= 0 || p.nq <= 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>(numBlocks(p.nq, plan.br)), static_cast<unsigned>(p.heads));
  flashKernel<<<grid, plan.threads, plan.sharedBytes, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError();
}

int launchWeights(const WeightsParams& p, void* stream) {
  const size_t cells = static_cast<size_t>(p.f.heads) * p.f.nq * p.f.nk;
  if (cells == 0) return cudaSuccess;
  weightsKernel<<<gridFor(cells, 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError();
}

int launchSoftmaxRows(const SoftmaxParams& p, void* stream) {
  const size_t rows = static_cast<size_t>(p.heads) * p.nq;
  if (rows == 0) return cudaSuccess;
  softmaxKernel<<<gridFor(rows, 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError();
}

}  // namespace attn::gpu
