#include "attn/variants/dynamic_conv.h"

#include <fmt/format.h>

#include "attn/variants/variant_rows.h"

namespace attn::variants {

Mat seededDynamicConvWeights(int dModel, int heads, int kernelWidth, InitScheme init, uint64_t seed) {
  return initMatrix(dModel, heads * kernelWidth, init, seed, "dynconv.w");
}

Result<DynamicConvResult> dynamicConvolution(const Mat& x, const Mat& w, int heads, int kernelWidth, bool causal) {
  const int n = static_cast<int>(x.rows()), d = static_cast<int>(x.cols());
  if (kernelWidth < 1 || kernelWidth > 1024)
    return Error{fmt::format("--kernel must be between 1 and 1024 (got {})", kernelWidth)};
  if (heads < 1 || d % heads != 0)
    return Error{fmt::format("dynamic convolution: d_model {} is not divisible by {} heads", d, heads)};
  if (w.rows() != d || w.cols() != heads * kernelWidth)
    return Error{fmt::format("dynamic convolution: kernel weights are {}x{}, expected {}x{}", w.rows(), w.cols(), d,
                             heads * kernelWidth)};
  DynamicConvResult r;
  r.kernelWidth = kernelWidth;
  r.causal = causal;
  r.offset = causal ? kernelWidth - 1 : kernelWidth / 2;
  const Mat logits = x * w;  // [N, heads * k]
  const int per = d / heads;
  for (int h = 0; h < heads; ++h) {
    DynamicConvHead dh;
    dh.firstChannel = h * per;
    dh.channels = per;
    dh.kernelLogits = logits.middleCols(h * kernelWidth, kernelWidth);
    dh.kernel = maskedSoftmaxRows(dh.kernelLogits);
    dh.entropy = rowEntropy(dh.kernel);
    dh.banded = Mat::Zero(n, n);
    for (int i = 0; i < n; ++i)
      for (int t = 0; t < kernelWidth; ++t) {
        const int j = i + t - r.offset;
        if (j >= 0 && j < n) dh.banded(i, j) = dh.kernel(i, t);  // outside: zero padding
      }
    dh.output = dh.banded * x.middleCols(dh.firstChannel, per);
    r.heads.push_back(std::move(dh));
  }
  return r;
}

}  // namespace attn::variants
