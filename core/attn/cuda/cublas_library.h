#pragma once
// cuBLAS, opened at run time (dlopen), so a binary built with CUDA starts on a
// machine without the toolkit's libraries; the CUDA backend then says it
// cannot find cuBLAS and the CPU runs instead. Only the calls the backend
// makes are resolved. Needs the toolkit (cublas_v2.h): CUDA builds only.
#include <cublas_v2.h>

#include <memory>
#include <string>

#include "attn/status.h"

namespace attn::gpu {

struct CublasLibrary {
  void* handle = nullptr;  // dlopen handle, never closed (the process keeps it)
  std::string path;        // the file opened, e.g. "libcublas.so.13"
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) setStream = nullptr;
  decltype(&cublasSetMathMode) setMathMode = nullptr;
  decltype(&cublasSgemmStridedBatched) sgemmStridedBatched = nullptr;
  // The C entry point (cublasComputeType_t); the header's C++ overload taking a
  // cudaDataType compute type is an inline wrapper, not a symbol of the library.
  using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                      const void*, const void*, cudaDataType, int, const void*, cudaDataType,
                                      int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                                      cublasGemmAlgo_t);
  GemmExFn gemmEx = nullptr;
  decltype(&cublasGetStatusString) statusString = nullptr;
};

/// Opened once per process: libcublas.so.<toolkit major>, then .so.13, .so.12, .so.
Result<const CublasLibrary*> cublasLibrary();

}  // namespace attn::gpu
