#pragma once
// Functions marked ATTN_HD compile for the GPU under nvcc and as plain C++
// everywhere else, so the kernels' arithmetic is unit-tested on the CPU
// (tests/core/cuda/gpu_kernels_test.cpp) in builds without the CUDA toolkit.
#if defined(__CUDACC__)
#define ATTN_HD __host__ __device__
#define ATTN_HD_INLINE __host__ __device__ __forceinline__
#else
#define ATTN_HD
#define ATTN_HD_INLINE inline
#endif
