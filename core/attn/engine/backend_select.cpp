// Which backends this build and machine offer, and the one a request gets.
#include <fmt/format.h>

#include "attn/backend.h"

#ifdef ATTNSCOPE_HAVE_CUDA
#include "attn/cuda/device_cuda.h"
#include "attn/cuda/offload_backend.h"
#endif

namespace attn {
namespace {

#ifdef ATTNSCOPE_HAVE_CUDA
// The device, or why there is none (looked for once; device_cuda.cpp caches).
std::shared_ptr<gpu::Device> cudaDevice(std::string& why) {
  auto dev = gpu::openCudaDevice();
  if (!dev) {
    why = dev.error().message;
    return nullptr;
  }
  return *dev;
}
#else
std::shared_ptr<void> cudaDevice(std::string& why) {
  why = "not in this build (built without the CUDA toolkit, or with ATTNSCOPE_CUDA=OFF)";
  return nullptr;
}
#endif

}  // namespace

std::vector<BackendInfo> backendsFound() {
  std::vector<BackendInfo> found;
  found.push_back({BackendKind::Cpu, true, "CPU", {}});
  BackendInfo cuda{BackendKind::Cuda, false, "CUDA", {}};
  auto dev = cudaDevice(cuda.reason);
  if (dev) {
    cuda.available = true;
#ifdef ATTNSCOPE_HAVE_CUDA
    cuda.label = "CUDA: " + dev->description();
#endif
  }
  found.push_back(std::move(cuda));
  return found;
}

std::unique_ptr<Backend> selectBackend(BackendKind kind, std::vector<std::string>& warnings) {
  if (kind == BackendKind::Cpu) return makeCpuBackend();
  std::string why;
  [[maybe_unused]] auto dev = cudaDevice(why);
#ifdef ATTNSCOPE_HAVE_CUDA
  if (dev) return gpu::makeOffloadBackend(std::move(dev), "cuda");
#endif
  if (kind == BackendKind::Cuda)
    warnings.push_back(fmt::format("backend 'cuda' is not available ({}); using cpu", why));
  return makeCpuBackend();
}

}  // namespace attn
