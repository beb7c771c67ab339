#include "attn/cuda/device_cuda.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

#include "attn/cuda/cublas_library.h"
#include "attn/cuda/kernels.h"

namespace attn::gpu {
namespace {

Status check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return okStatus();
  return Error{fmt::format("CUDA {} failed: {}", what, cudaGetErrorString(e))};
}

Status check(int e, const char* what) { return check(static_cast<cudaError_t>(e), what); }

bool driverInstalled() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h) dlclose(h);
  return h != nullptr;
}

class CudaDevice final : public Device {
 public:
  ~CudaDevice() override {
    if (blas_) lib_->destroy(blas_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  static Result<std::shared_ptr<Device>> open() {
    int count = 0;
    if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
      // Without a driver the runtime says "driver version is insufficient".
      if (e == cudaErrorInsufficientDriver && !driverInstalled())
        return Error{"no NVIDIA driver is installed (libcuda.so.1 was not found)"};
      return Error{fmt::format("no usable CUDA device: {}", cudaGetErrorString(e))};
    }
    if (count == 0) return Error{"no CUDA device was found"};
    auto dev = std::shared_ptr<CudaDevice>(new CudaDevice());
    cudaDeviceProp prop{};
    if (auto st = check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties"); !st) return st.error();
    int optin = 0;
    if (auto st = check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
                        "cudaDeviceGetAttribute");
        !st)
      return st.error();
    dev->maxShared_ = static_cast<size_t>(optin);
    dev->description_ = fmt::format("{}, {:.0f} GB", prop.name, static_cast<double>(prop.totalGlobalMem) / 1e9);
    return std::shared_ptr<Device>(std::move(dev));
  }

  // What a request needs beyond the device's name and limits, made on the first
  // request rather than when the backends are listed (at the GUI's start-up):
  // the context (cudaSetDevice creates it), cuBLAS (dlopen of a large library),
  // the stream and the cuBLAS handle.
  Status ready() {
    std::call_once(readyOnce_, [this] { readyStatus_ = initialize(); });
    return readyStatus_;
  }

  Status initialize() {
    auto lib = cublasLibrary();
    if (!lib) return lib.error();
    lib_ = *lib;
    if (auto st = check(cudaSetDevice(0), "cudaSetDevice"); !st) return st;
    if (auto st = check(setFlashSharedLimit(maxShared_), "cudaFuncSetAttribute"); !st) return st;
    if (auto st = check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); !st)
      return st;
    if (cublasStatus_t s = lib_->create(&blas_); s != CUBLAS_STATUS_SUCCESS)
      return Error{fmt::format("cublasCreate failed: {}", lib_->statusString(s))};
    lib_->setStream(blas_, stream_);
    lib_->setMathMode(blas_, CUBLAS_DEFAULT_MATH);  // fp32 GEMMs stay fp32 (no TF32)
    return okStatus();
  }

  std::string description() const override { return description_; }
  size_t maxSharedBytes() const override { return maxShared_; }
  size_t freeBytes() const override {
    size_t free = 0, total = 0;
    return cudaMemGetInfo(&free, &total) == cudaSuccess ? free : 0;
  }

  Result<void*> allocate(size_t bytes) override {
    if (auto st = ready(); !st) return st.error();  // every request allocates first
    void* p = nullptr;
    if (cudaError_t e = cudaMalloc(&p, bytes); e != cudaSuccess) {
      cudaGetLastError();  // clear the sticky-free error state
      return Error{fmt::format("cannot allocate {:.1f} MiB on the GPU: {}", static_cast<double>(bytes) / (1 << 20),
                               cudaGetErrorString(e))};
    }
    return p;
  }
  void release(void* p) noexcept override { cudaFree(p); }
  Status upload(void* dst, const void* src, size_t bytes) override {
    return check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_), "copy to the GPU");
  }
  Status download(void* dst, const void* src, size_t bytes) override {
    if (auto st = check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "copy from the GPU"); !st)
      return st;
    return synchronize();
  }

  Status flash(const FlashParams& p, const TilePlan& plan) override {
    return check(launchFlash(p, plan, stream_), "flash attention kernel launch");
  }
  Status weights(const WeightsParams& p) override {
    return check(launchWeights(p, stream_), "weights kernel launch");
  }
  Status softmaxRows(const SoftmaxParams& p) override {
    return check(launchSoftmaxRows(p, stream_), "softmax kernel launch");
  }

  // Row-major C = A B (or A B^T) is column-major C^T = B^T A^T: swap the
  // operands and let cuBLAS read the row-major arrays as their transposes.
  Status gemm(int batch, int m, int n, int k, const float* a, size_t strideA, const float* b, size_t strideB,
              bool transB, float* c, size_t strideC) override {
    const float one = 1.0f, zero = 0.0f;
    const cublasStatus_t s = lib_->sgemmStridedBatched(
        blas_, transB ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, transB ? k : n,
        static_cast<long long>(strideB), a, k, static_cast<long long>(strideA), &zero, c, n,
        static_cast<long long>(strideC), batch);
    if (s != CUBLAS_STATUS_SUCCESS) return Error{fmt::format("cuBLAS GEMM failed: {}", lib_->statusString(s))};
    return okStatus();
  }

  // As gemm: the row-major product is cuBLAS's column-major C^T = op(B)^T A^T. 16-bit inputs
  // with CUBLAS_COMPUTE_32F: the tensor cores multiply, the sums stay f32; f32 inputs stay
  // f32 (no TF32 under CUBLAS_DEFAULT_MATH).
  Status gemmMixed(const MixedGemm& g) override {
    const float one = 1.0f, zero = 0.0f;
    const cudaDataType_t t = g.type == InputType::BF16  ? CUDA_R_16BF
                             : g.type == InputType::F16 ? CUDA_R_16F
                                                        : CUDA_R_32F;
    const cublasStatus_t s = lib_->gemmEx(blas_, g.transB ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m,
                                          g.k, &one, g.b, t, g.transB ? g.k : g.n, g.a, t, g.k, &zero, g.c,
                                          CUDA_R_32F, g.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS)
      return Error{fmt::format("cuBLAS GemmEx failed: {}", lib_->statusString(s))};
    return okStatus();
  }

  Status norm(const NormParams& p) override { return check(launchNorm(p, stream_), "norm kernel launch"); }
  Status rope(const RopeParams& p) override { return check(launchRope(p, stream_), "RoPE kernel launch"); }
  Status headLayout(const HeadLayoutParams& p) override {
    return check(launchHeadLayout(p, stream_), "head layout kernel launch");
  }
  Status activation(const ActivationParams& p) override {
    return check(launchActivation(p, stream_), "activation kernel launch");
  }
  Status add(const AddParams& p) override { return check(launchAdd(p, stream_), "add kernel launch"); }
  Status embed(const EmbedParams& p) override {
    return check(launchEmbed(p, stream_), "embedding kernel launch");
  }
  Status convert(const ConvertParams& p) override {
    return check(launchConvert(p, stream_), "conversion kernel launch");
  }

  Status synchronize() override { return check(cudaStreamSynchronize(stream_), "kernel"); }

 private:
  CudaDevice() = default;
  const CublasLibrary* lib_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  cudaStream_t stream_ = nullptr;
  size_t maxShared_ = 48 * 1024;
  std::string description_;
  std::once_flag readyOnce_;
  Status readyStatus_ = okStatus();
};

}  // namespace

Result<std::shared_ptr<Device>> openCudaDevice() {
  // Never destroyed: its stream and cuBLAS handle must not be released from a
  // static destructor, after the CUDA runtime may have been unloaded.
  static const auto* dev = new Result<std::shared_ptr<Device>>(CudaDevice::open());
  return *dev;
}

}  // namespace attn::gpu
