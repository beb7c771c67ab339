#pragma once
// The arithmetic of a decoder layer's pieces other than attention and the GEMMs,
// written once for the GPU (kernels.cu) and the CPU emulation (the tests), as
// flash_block.h is: RMSNorm and LayerNorm over a row (one block per row, its
// threads' partial sums through shared memory), rotary positions in both layouts,
// the MLP activations, SwiGLU, head (un)packing and 16-bit <-> f32 conversion.
// Each follows the CPU model path (models/nn_ops.cpp) formula for formula, in
// f32 with the same operation order; the reductions are summed in double.
#include <cstddef>
#include <cstdint>

#include "attn/cuda/flash_block.h"
#include "attn/cuda/half_bits.h"
#include "attn/cuda/hd.h"

namespace attn::gpu {

/// f32 -> bf16 bits, to nearest even (NaN stays a quiet NaN).
ATTN_HD_INLINE uint16_t floatToBf16Bits(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

/// f32 -> IEEE binary16 bits, to nearest even; past 65520 infinity, below 2^-25 zero.
ATTN_HD_INLINE uint16_t floatToHalfBits(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return static_cast<uint16_t>(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (x < 0x38800000u) {  // below 2^-14: a subnormal half, round(|f| 2^24)
    if (x < 0x33000000u) return static_cast<uint16_t>(sign);
    const uint32_t m = (x & 0x7fffffu) | 0x800000u, shift = 126u - (x >> 23);
    uint32_t r = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  uint32_t r = (x - 0x38000000u) >> 13;  // rebias 127 -> 15, 23 -> 10 mantissa bits
  const uint32_t rem = x & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return static_cast<uint16_t>(sign | r);
}

ATTN_HD_INLINE uint16_t floatToBits(float f, InputType t) {
  return t == InputType::F16 ? floatToHalfBits(f) : floatToBf16Bits(f);
}

ATTN_HD_INLINE float bitsToFloatAs(uint16_t b, InputType t) {
  return t == InputType::F16 ? halfToFloat(b) : bf16ToFloat(b);
}

/// One array converted element by element: 16-bit -> f32 (from16) or f32 -> 16-bit.
struct ConvertParams {
  size_t count = 0;
  InputType type = InputType::BF16;  // F16 or BF16
  const uint16_t* from16 = nullptr;  // set: decode into to32
  const float* from32 = nullptr;     // set: encode into to16
  float* to32 = nullptr;
  uint16_t* to16 = nullptr;
};

ATTN_HD_INLINE void convertCell(const ConvertParams& p, size_t i) {
  if (p.from16)
    p.to32[i] = bitsToFloatAs(p.from16[i], p.type);
  else
    p.to16[i] = floatToBits(p.from32[i], p.type);
}

// ---- Row norms (nn_ops.cpp layerNorm, rmsNorm) ------------------------------

/// rms: LlamaRMSNorm, y = x / sqrt(mean(x^2) + eps) * gamma. Else torch's layer_norm,
/// y = (x - mean) / sqrt(var + eps) * gamma (+ beta). x, y [rows, cols]; y16 (optional)
/// receives y in y16Type as well, the 16-bit input of the next GEMM.
struct NormParams {
  int rows = 0, cols = 0;
  bool rms = true;
  float eps = 1e-5f;
  const float* x = nullptr;
  const float* gamma = nullptr;  // [cols]
  const float* beta = nullptr;   // [cols] or null
  float* y = nullptr;
  uint16_t* y16 = nullptr;
  InputType y16Type = InputType::BF16;
};

/// Shared memory of a norm block: one double per thread, then the row's two statistics.
ATTN_HD_INLINE size_t normSharedBytes(int threads) {
  return (static_cast<size_t>(threads) + 2) * sizeof(double);
}

ATTN_HD_INLINE void normPartial(const NormParams& p, double* red, int row, int tid, int threads,
                                bool centred) {
  const float* x = p.x + static_cast<size_t>(row) * p.cols;
  const float mean = centred ? static_cast<float>(red[threads]) : 0.0f;
  double s = 0.0;
  for (int c = tid; c < p.cols; c += threads) {
    const float v = centred ? x[c] - mean : x[c];
    s += p.rms || centred ? static_cast<double>(v) * v : v;
  }
  red[tid] = s;
}

/// Thread 0 sums the partials: the mean (first LayerNorm pass) or 1 / sqrt(var + eps).
ATTN_HD_INLINE void normTotal(const NormParams& p, double* red, int tid, int threads, bool meanPass) {
  if (tid != 0) return;
  double s = 0.0;
  for (int t = 0; t < threads; ++t) s += red[t];
  const float m = static_cast<float>(s / p.cols);
  if (meanPass)
    red[threads] = m;
  else
    red[threads + 1] = 1.0f / sqrtf(m + p.eps);  // torch.rsqrt
}

ATTN_HD_INLINE void normWrite(const NormParams& p, const double* red, int row, int tid, int threads) {
  const size_t base = static_cast<size_t>(row) * p.cols;
  const float mean = p.rms ? 0.0f : static_cast<float>(red[threads]);
  const float inv = static_cast<float>(red[threads + 1]);
  for (int c = tid; c < p.cols; c += threads) {
    const float x = p.x[base + c];
    float y = p.rms ? (x * inv) * p.gamma[c] : (x - mean) * inv * p.gamma[c];
    if (!p.rms && p.beta) y += p.beta[c];
    p.y[base + c] = y;
    if (p.y16) p.y16[base + c] = floatToBits(y, p.y16Type);
  }
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
/// One row's norm; `red` is normSharedBytes(threads) of shared memory.
template <class Exec>
ATTN_HD void normRowBlock(const NormParams& p, double* red, int row, Exec& ex) {
  const int threads = ex.threads();
  if (!p.rms) {
    ex.each([&](int tid) { normPartial(p, red, row, tid, threads, false); });
    ex.each([&](int tid) { normTotal(p, red, tid, threads, true); });
  }
  ex.each([&](int tid) { normPartial(p, red, row, tid, threads, !p.rms); });
  ex.each([&](int tid) { normTotal(p, red, tid, threads, false); });
  ex.each([&](int tid) { normWrite(p, red, row, tid, threads); });
}

// ---- Rotary positions (Su et al. 2021, RoFormer, eq. 34) --------------------

/// x [rows, heads * headDim] (a q or k product, token-major) rotated with the CPU's
/// cos / sin table [rows, headDim] (nn_ops.cpp ropeTable). Rotate-half (Llama, GPT-NeoX):
/// dimension i pairs with i + headDim / 2. Interleaved (GPT-J, llama.cpp's GGUF row order):
/// 2i pairs with 2i + 1, and the output is written in rotate-half order, which is
/// deinterleaveHeads followed by applyRope on the CPU. y is [heads, rows, headDim]
/// (headMajor: what the flash kernel reads) or the token-major layout of x.
struct RopeParams {
  int rows = 0, heads = 0, headDim = 0;
  bool interleaved = false;
  bool headMajor = true;
  const float* x = nullptr;
  const float* cos = nullptr;
  const float* sin = nullptr;
  float* y = nullptr;
  uint16_t* y16 = nullptr;  // optional 16-bit copy of y (the kept q/k of a long prompt)
  InputType y16Type = InputType::F16;
};

ATTN_HD_INLINE size_t ropeOut(const RopeParams& p, int row, int head, int d) {
  return p.headMajor
             ? (static_cast<size_t>(head) * p.rows + row) * p.headDim + d
             : static_cast<size_t>(row) * p.heads * p.headDim + static_cast<size_t>(head) * p.headDim + d;
}

/// Pair i in [0, headDim / 2) of one head at one position.
ATTN_HD_INLINE void ropeCell(const RopeParams& p, int row, int head, int i) {
  const int half = p.headDim / 2;
  const float* v =
      p.x + static_cast<size_t>(row) * p.heads * p.headDim + static_cast<size_t>(head) * p.headDim;
  const float x1 = p.interleaved ? v[2 * i] : v[i], x2 = p.interleaved ? v[2 * i + 1] : v[i + half];
  const float* c = p.cos + static_cast<size_t>(row) * p.headDim;
  const float* s = p.sin + static_cast<size_t>(row) * p.headDim;
  const float a = x1 * c[i] - x2 * s[i];
  const float b = x2 * c[i + half] + x1 * s[i + half];
  const size_t ia = ropeOut(p, row, head, i), ib = ropeOut(p, row, head, i + half);
  p.y[ia] = a;
  p.y[ib] = b;
  if (p.y16) {
    p.y16[ia] = floatToBits(a, p.y16Type);
    p.y16[ib] = floatToBits(b, p.y16Type);
  }
}

// ---- Head layouts -----------------------------------------------------------

/// [rows, heads * width] <-> [heads, rows, width]: v into the flash kernel's layout
/// (toHeadMajor), the heads' outputs back into the rows W_O multiplies.
struct HeadLayoutParams {
  int rows = 0, heads = 0, width = 0;
  bool toHeadMajor = true;
  const float* from = nullptr;
  float* to = nullptr;
  int rowStride = 0;  // of the token-major side; 0: heads * width (GPT-2's fused q|k|v: 3 d)
};

ATTN_HD_INLINE void headLayoutCell(const HeadLayoutParams& p, int row, int head, int d) {
  const size_t stride =
      p.rowStride > 0 ? static_cast<size_t>(p.rowStride) : static_cast<size_t>(p.heads) * p.width;
  const size_t tokenMajor = static_cast<size_t>(row) * stride + static_cast<size_t>(head) * p.width + d;
  const size_t headMajor = (static_cast<size_t>(head) * p.rows + row) * p.width + d;
  if (p.toHeadMajor)
    p.to[headMajor] = p.from[tokenMajor];
  else
    p.to[tokenMajor] = p.from[headMajor];
}

// ---- Activations and the MLP's elementwise steps ----------------------------

/// Same order as models::Activation.
enum class DeviceActivation : int32_t { GeluTanh, GeluErf, Relu, Silu, QuickGelu };

/// nn_ops.cpp activate, one value: gelu_new (GPT-2; Hendrycks & Gimpel 2016, the tanh
/// form), erf GELU (BERT), ReLU, SiLU (Llama's SwiGLU gate), quick GELU (CLIP).
ATTN_HD_INLINE float activation(float x, DeviceActivation a) {
  switch (a) {
    case DeviceActivation::GeluTanh: {
      const float c = 0.7978845608028654f;  // sqrt(2 / pi)
      return 0.5f * x * (1.0f + tanhf(c * (x + 0.044715f * (x * x * x))));
    }
    case DeviceActivation::GeluErf:
      return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f));
    case DeviceActivation::Relu:
      return x > 0.0f ? x : 0.0f;
    case DeviceActivation::Silu:
      return x / (1.0f + expf(-x));
    case DeviceActivation::QuickGelu:
      return x / (1.0f + expf(-1.702f * x));
  }
  return x;
}

/// x = act(x) (GPT-2's MLP), or with `up`: up = up * act(x), SwiGLU (Shazeer 2020, eq. 6).
/// out16 (optional): the result in out16Type, the input of the down projection's GEMM.
struct ActivationParams {
  size_t count = 0;
  DeviceActivation act = DeviceActivation::Silu;
  float* x = nullptr;
  float* up = nullptr;
  uint16_t* out16 = nullptr;
  InputType out16Type = InputType::BF16;
};

ATTN_HD_INLINE void activationCell(const ActivationParams& p, size_t i) {
  const float a = activation(p.x[i], p.act);
  float r = a;
  if (p.up)
    r = p.up[i] = p.up[i] * a;
  else
    p.x[i] = a;
  if (p.out16) p.out16[i] = floatToBits(r, p.out16Type);
}

/// y [rows, cols] += bias [cols] (nn.Linear's b, which the GEMM leaves out) and / or
/// the residual [rows, cols]; y16 (optional) receives the result in 16 bits.
struct AddParams {
  int rows = 0, cols = 0;
  float* y = nullptr;
  const float* bias = nullptr;
  const float* residual = nullptr;
  uint16_t* y16 = nullptr;
  InputType y16Type = InputType::BF16;
};

ATTN_HD_INLINE void addCell(const AddParams& p, size_t i) {
  float v = p.y[i];
  if (p.bias) v += p.bias[i % static_cast<size_t>(p.cols)];
  if (p.residual) v += p.residual[i];
  p.y[i] = v;
  if (p.y16) p.y16[i] = floatToBits(v, p.y16Type);
}

/// Token (+ learned position, GPT-2) embedding rows: y[r] = E[ids[r]] (+ P[r]); the
/// tables in their dtype on the device (16-bit patterns or f32).
struct EmbedParams {
  int rows = 0, cols = 0;
  const int32_t* ids = nullptr;
  InputType type = InputType::F32;
  const float* tok32 = nullptr;
  const uint16_t* tok16 = nullptr;
  const float* pos32 = nullptr;  // [positions, cols] or null
  const uint16_t* pos16 = nullptr;
  float* y = nullptr;
};

ATTN_HD_INLINE void embedCell(const EmbedParams& p, int row, int col) {
  const size_t t = static_cast<size_t>(p.ids[row]) * p.cols + col,
               q = static_cast<size_t>(row) * p.cols + col;
  float v = loadInput(p.tok32, p.tok16, p.type, t);
  if (p.pos32 || p.pos16) v += loadInput(p.pos32, p.pos16, p.type, q);
  p.y[q] = v;
}

}  // namespace attn::gpu
