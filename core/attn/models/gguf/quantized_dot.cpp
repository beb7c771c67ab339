#include "attn/models/gguf/quantized_dot.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "attn/io/float_convert.h"
#include "attn/models/gguf/ggml_types.h"
#include "attn/models/gguf/kquant_dot.h"
#include "attn/models/gguf/quantized_dot_simd.h"
#include "attn/models/staged_reads.h"

namespace attn::models::gguf {
namespace {

constexpr int64_t kQ8Block = 32, kQ8BlockBytes = 34;  // block_q8_0: half d; int8 qs[32]

/// Output rows per task of the parallel loop: a panel's repacked weights (64 x K bytes) stay
/// in the core's cache while every token meets them.
constexpr int64_t kQuantPanelRows = 64;

thread_local bool tQuantizedDot = true;

float storedHalf(const char* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return attn::halfToFloat(h);
}

/// One block of quantize_row_q8_0 (ggml-cpu's AVX path: id = 127 / amax, round to nearest even).
void quantizeBlockQ8(const float* x, int8_t* q, float& d, int32_t& sum) {
  float amax = 0.0f;
  for (int64_t j = 0; j < kQ8Block; ++j) amax = std::max(amax, std::fabs(x[j]));
  d = attn::halfToFloat(attn::floatToHalf(amax / 127.0f));
  const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
  int32_t s = 0;
  for (int64_t j = 0; j < kQ8Block; ++j) {
    float r = std::nearbyint(x[j] * id);  // the default rounding mode: to nearest, ties to even
    r = r >= -127.0f ? (r <= 127.0f ? r : 127.0f) : -127.0f;  // NaN too: no undefined conversion
    q[j] = static_cast<int8_t>(static_cast<int>(r));
    s += q[j];
  }
  sum = s;
}

}  // namespace

void quantizeRowsQ8(const float* x, int64_t rows, int64_t cols, int64_t stride, Q8Rows& out) {
  out.rows = rows, out.cols = cols;
  const int64_t blocks = cols / kQ8Block;
  out.q.resize(static_cast<size_t>(rows * cols));
  out.d.resize(static_cast<size_t>(rows * blocks));
  out.sum.resize(static_cast<size_t>(rows * blocks));
  // Rows over the threads, as quantizeRowsQ8K (the product's other threads would wait).
#pragma omp parallel for schedule(static) if (rows * cols >= (int64_t{1} << 16))
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t b = 0; b < blocks; ++b) {
      const size_t at = static_cast<size_t>(i * blocks + b);
      quantizeBlockQ8(x + i * stride + b * kQ8Block, out.q.data() + i * cols + b * kQ8Block, out.d[at],
                      out.sum[at]);
    }
}

bool canQuantizedDot(uint32_t type) {
  return type == static_cast<uint32_t>(GgmlType::Q8_0) || canKQuantDot(type);
}

int32_t blockDotQ8_0(const int8_t* x, const char* block) {
  int32_t s = 0;
  for (int64_t k = 0; k < kQ8Block; ++k) s += static_cast<int32_t>(x[k]) * static_cast<int8_t>(block[2 + k]);
  return s;
}

void quantizedProductReference(const Q8Rows& x, const char* w, int64_t rowBytes, int64_t r0, int64_t m,
                               float* y, int64_t ldy) {
  const int64_t blocks = x.blocks();
  std::vector<float> dw(static_cast<size_t>(blocks));
  for (int64_t j = 0; j < m; ++j) {
    const char* row = w + (r0 + j) * rowBytes;
    for (int64_t b = 0; b < blocks; ++b) dw[static_cast<size_t>(b)] = storedHalf(row + b * kQ8BlockBytes);
    for (int64_t i = 0; i < x.rows; ++i) {
      const int8_t* q = x.q.data() + i * x.cols;
      const float* dx = x.d.data() + i * blocks;
      float acc = 0.0f;
      for (int64_t b = 0; b < blocks; ++b) {
        const int32_t s = blockDotQ8_0(q + b * kQ8Block, row + b * kQ8BlockBytes);
        const float d = dx[b] * dw[static_cast<size_t>(b)];
        acc = acc + static_cast<float>(s) * d;
      }
      y[i * ldy + j] = acc;
    }
  }
}

void quantizedProduct(const Q8Rows& x, const char* w, int64_t rowBytes, int64_t r0, int64_t m, float* y,
                      int64_t ldy) {
  if (!quantizedProductVector(x, w, rowBytes, r0, m, y, ldy))
    quantizedProductReference(x, w, rowBytes, r0, m, y, ldy);
}

const char* quantizedDotKernel() {
  const char* name = vectorKernelName();
  return name ? name : "scalar";
}

bool quantizedLinear(const ConstMatRef& x, const LinearWeight& l, Mat& y) {
  if (!tQuantizedDot || !l.w.quant || l.inOut || !canQuantizedDot(l.w.quantType)) return false;
  const int64_t n = x.rows(), K = l.w.cols, out = l.w.rows;
  const bool kquant = canKQuantDot(l.w.quantType);
  if (K % (kquant ? kSuperBlock : kQ8Block) != 0 || x.cols() != K) return false;
  // Kept across calls: first touch of fresh pages is expensive.
  thread_local Q8Rows q;
  thread_local Q8KRows qk;
  if (kquant)
    quantizeRowsQ8K(x.data(), n, K, x.outerStride(), qk);
  else
    quantizeRowsQ8(x.data(), n, K, x.outerStride(), q);
  y.resize(n, out);
  const Q8Rows& shared = q;
  const Q8KRows& sharedK = qk;
  const int64_t panels = (out + kQuantPanelRows - 1) / kQuantPanelRows;
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(K) * static_cast<double>(out);
  const int threads = static_cast<int>(std::min<int64_t>(panels, threadsFor(flops)));
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1)
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t r0 = p * kQuantPanelRows, m = std::min(kQuantPanelRows, out - r0);
    thread_local std::vector<char> staged;  // the panel's rows read with pread (staged_reads.h)
    const char* rows =
        stagedBytes(l.w.quant + r0 * l.w.quantRowBytes, static_cast<size_t>(m * l.w.quantRowBytes), staged);
    if (kquant)
      kquantProduct(l.w.quantType, sharedK, rows, l.w.quantRowBytes, 0, m, y.data() + r0, out);
    else
      quantizedProduct(shared, rows, l.w.quantRowBytes, 0, m, y.data() + r0, out);
    if (!l.b.empty()) y.middleCols(r0, m).rowwise() += l.b.row().segment(r0, m);
  }
  return true;
}

bool quantizedDotEnabled() { return tQuantizedDot; }

QuantizedDotScope::QuantizedDotScope(bool on) : previous_(tQuantizedDot) { tQuantizedDot = on; }
QuantizedDotScope::~QuantizedDotScope() { tQuantizedDot = previous_; }

}  // namespace attn::models::gguf
