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

// Grid-stride loop over `count` cells: f(c) for each.
template <class F>
__device__ void eachCell(size_t count, F&& f) {
  for (size_t c = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; c < count;
       c += static_cast<size_t>(gridDim.x) * blockDim.x)
    f(c);
}

constexpr unsigned kNormThreads = 256;

__global__ void normKernel(const NormParams p) {
  __shared__ double red[kNormThreads + 2];
  DeviceExec ex;
  for (int row = static_cast<int>(blockIdx.x); row < p.rows; row += static_cast<int>(gridDim.x))
    normRowBlock(p, red, row, ex);
}

__global__ void ropeKernel(const RopeParams p) {
  const int half = p.headDim / 2;
  eachCell(static_cast<size_t>(p.rows) * p.heads * half, [&](size_t c) {
    const int i = static_cast<int>(c % half);
    const size_t rh = c / half;
    ropeCell(p, static_cast<int>(rh / p.heads), static_cast<int>(rh % p.heads), i);
  });
}

__global__ void headLayoutKernel(const HeadLayoutParams p) {
  eachCell(static_cast<size_t>(p.rows) * p.heads * p.width, [&](size_t c) {
    const int d = static_cast<int>(c % p.width);
    const size_t rh = c / p.width;
    headLayoutCell(p, static_cast<int>(rh / p.heads), static_cast<int>(rh % p.heads), d);
  });
}

__global__ void activationKernel(const ActivationParams p) {
  eachCell(p.count, [&](size_t c) { activationCell(p, c); });
}

__global__ void addKernel(const AddParams p) {
  eachCell(static_cast<size_t>(p.rows) * p.cols, [&](size_t c) { addCell(p, c); });
}

__global__ void embedKernel(const EmbedParams p) {
  eachCell(static_cast<size_t>(p.rows) * p.cols,
           [&](size_t c) { embedCell(p, static_cast<int>(c / p.cols), static_cast<int>(c % p.cols)); });
}

__global__ void convertKernel(const ConvertParams p) {
  eachCell(p.count, [&](size_t c) { convertCell(p, c); });
}

}  // namespace

int setFlashSharedLimit(size_t bytes) {
  return cudaFuncSetAttribute(flashKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
}

int launchFlash(const FlashParams& p, const TilePlan& plan, void* stream) {
  if (p.heads <= 0 || p.nq <= 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>(flashQueryBlocks(p)), static_cast<unsigned>(flashKvHeads(p)));
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

int launchNorm(const NormParams& p, void* stream) {
  if (p.rows <= 0) return cudaSuccess;
  const unsigned blocks = static_cast<unsigned>(std::min(p.rows, 1 << 16));
  normKernel<<<blocks, kNormThreads, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError();
}

int launchRope(const RopeParams& p, void* stream) {
  const size_t cells = static_cast<size_t>(p.rows) * p.heads * (p.headDim / 2);
  if (cells == 0) return cudaSuccess;
  ropeKernel<<<gridFor(cells, 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError();
}

int launchHeadLayout(const HeadLayoutParams& p, void* stream) {
  const size_t cells = static_cast<size_t>(p.rows) * p.heads * p.width;
  if (cells == 0) return cudaSuccess;
  headLayoutKernel<<<gridFor(cells, 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError();
}

int launchActivation(const ActivationParams& p, void* stream) {
  if (p.count == 0) return cudaSuccess;
  activationKernel<<<gridFor(p.count, 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError();
}

int launchAdd(const AddParams& p, void* stream) {
  const size_t cells = static_cast<size_t>(p.rows) * p.cols;
  if (cells == 0) return cudaSuccess;
  addKernel<<<gridFor(cells, 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError();
}

int launchEmbed(const EmbedParams& p, void* stream) {
  const size_t cells = static_cast<size_t>(p.rows) * p.cols;
  if (cells == 0) return cudaSuccess;
  embedKernel<<<gridFor(cells, 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError();
}

int launchConvert(const ConvertParams& p, void* stream) {
  if (p.count == 0) return cudaSuccess;
  convertKernel<<<gridFor(p.count, 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError();
}

}  // namespace attn::gpu
