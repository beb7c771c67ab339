#include "attn/cuda/cublas_library.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>
#include <vector>

namespace attn::gpu {
namespace {

template <class F>
bool resolve(void* handle, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
  return fn != nullptr;
}

Result<CublasLibrary> open() {
  std::vector<std::string> names = {fmt::format("libcublas.so.{}", CUDART_VERSION / 1000), "libcublas.so.13",
                                    "libcublas.so.12", "libcublas.so"};
  std::string tried;
  for (const auto& name : names) {
    void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      tried += (tried.empty() ? "" : ", ") + name;
      continue;
    }
    CublasLibrary lib;
    lib.handle = h;
    lib.path = name;
    if (resolve(h, "cublasCreate_v2", lib.create) && resolve(h, "cublasDestroy_v2", lib.destroy) &&
        resolve(h, "cublasSetStream_v2", lib.setStream) && resolve(h, "cublasSetMathMode", lib.setMathMode) &&
        resolve(h, "cublasSgemmStridedBatched", lib.sgemmStridedBatched) &&
        resolve(h, "cublasGemmEx", lib.gemmEx) && resolve(h, "cublasGetStatusString", lib.statusString))
      return lib;
    return Error{fmt::format("{} lacks a function the backend calls", name)};
  }
  return Error{fmt::format("cuBLAS was not found (tried {})", tried)};
}

}  // namespace

Result<const CublasLibrary*> cublasLibrary() {
  static std::once_flag once;
  static Result<CublasLibrary> lib = Error{};
  std::call_once(once, [] { lib = open(); });
  if (!lib) return lib.error();
  return &lib.value();
}

}  // namespace attn::gpu
