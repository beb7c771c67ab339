#pragma once
// Reduced precision and INT8 quantization of scaled-dot attention, measured
// against the fp32 result (the "FP16 / INT8 deployment" notes):
//  - fp16 / bf16: Q, K, V rounded to the format (round to nearest even); the
//    logits q.k accumulated in fp32 and rounded once (what tensor cores do), or
//    accumulated in the low format (every product and partial sum rounded);
//    the scaled logits stored in the low format; softmax in fp32.
//  - int8, symmetric (Jacob et al. 2018 with zero point 0): x_q = clamp(round(x /
//    s), -127, 127), s = max|x| / 127 per tensor or per channel (per column), of
//    Q and K (V stays fp32), or of the projections W_Q, W_K, W_V (per output column).
//    Integer dot products are exact; the map is computed from the dequantized values.
// The error map |A_low - A_fp32|, its max, the mean row KL(A_fp32 || A_low) and
// the top-1 agreement per row summarise the damage; the overflow map shows the
// cells whose e^s exceeds fp16's 65504 when softmax skips the max subtraction
// (s > ln 65504 = 11.09) and the rows whose sum of e^s does.
#include <optional>
#include <string_view>
#include <vector>

#include "attn/engine.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::variants {

enum class LowPrecision { F16, BF16, Int8Tensor, Int8Channel };
enum class Accumulation { Fp32, Low };
enum class QuantTarget { QK, Projections };

std::string_view precisionName(LowPrecision p);  // fp16, bf16, int8-tensor, int8-channel
std::optional<LowPrecision> parsePrecision(std::string_view name);
std::vector<std::string_view> allPrecisions();

/// float -> fp16 -> float (to nearest even; beyond 65504: inf).
float roundToHalf(float x);
/// float -> bf16 -> float (to nearest even).
float roundToBf16(float x);
/// The largest finite fp16 value and ln of it (e^s overflows fp16 above it).
constexpr double kHalfMax = 65504.0;
constexpr double kHalfExpLimit = 11.089866488461016;  // ln(65504)

/// Symmetric INT8 quantization, dequantized: per tensor (one scale) or per
/// column. `scales` receives the scale(s). An all-zero tensor/column has scale 1.
Mat quantizeInt8(const Mat& x, bool perChannel, std::vector<float>* scales = nullptr);

struct PrecisionOptions {
  LowPrecision format = LowPrecision::F16;
  Accumulation accumulate = Accumulation::Fp32;
  QuantTarget target = QuantTarget::QK;  // int8 only
};

struct PrecisionHead {
  Mat q, k, v;        // the low-precision (or dequantized) inputs used
  Mat logits;         // scaled low-precision logits (+ bias), -inf where hidden
  Mat weights;        // A_low (softmax in fp32)
  Mat reference;      // A_fp32 (the engine's weights)
  Mat referenceLogits;  // the engine's masked logits (fp32)
  Mat error;          // |A_low - A_fp32|
  Mat output;         // A_low v_low
  double maxError = 0, meanRowKl = 0, topOneAgreement = 1;
  double inputError = 0;   // max |x_low - x| over q, k, v
  // fp16 softmax without the max subtraction, on the reference logits:
  // 2 = e^s overflows, 1 = the row's sum overflows (every weight lost), 0 = fine.
  Mat overflow;
  int overflowCells = 0, overflowRows = 0;
  double maxLogit = 0;  // largest visible reference logit
};

struct PrecisionResult {
  PrecisionOptions options;
  std::vector<PrecisionHead> heads;
};

/// Recomputes every head of `ref` (computed from `in` with `spec`) in the low
/// precision. Dot and scaled dot only; the projections target needs embeddings
/// (not projected q/k/v). Errors name the option at fault.
Result<PrecisionResult> reducedPrecision(const AttentionInput& in, const AttentionResult& ref, const AttentionSpec& spec,
                                         const PrecisionOptions& options);

/// The step-through of one row: the logits in fp32 and low precision; fp16
/// softmax without and with the max subtraction; and why softmax and LayerNorm
/// stay in fp32 (the fp16 sum of exponentials; the variance of the query's
/// embedding row, as it is and 16x larger, computed in fp16 as E[x^2] - E[x]^2).
struct PrecisionRowWalk {
  int row = 0;
  Vec logits32, logitsLow;    // scaled, -inf where hidden
  Vec expNoMax;               // fp16(e^s): inf where it overflows
  double sumNoMax = 0;        // fp16 running sum (inf on overflow)
  Vec weightsNoMax;           // e^s / sum in fp16: NaN (inf/inf) or 0 (x/inf)
  float rowMax = 0;
  Vec expWithMax;             // fp16(e^(s - m)), all in (0, 1]
  double sumWithMaxHalf = 0, sumWithMax32 = 0;
  Vec weights32, weightsLow;
  double rowKl = 0;
  bool topOneSame = true;
  // LayerNorm statistics of the query's row of x (empty when the input had none).
  bool hasEmbedding = false;
  double var32 = 0, varHalf = 0;        // the row as it is
  double var32x16 = 0, varHalfx16 = 0;  // the row times 16
  double sumSquaresHalfx16 = 0;         // fp16 running sum of squares (inf when it overflows)
};
Result<PrecisionRowWalk> precisionRowWalk(const PrecisionResult& r, const AttentionInput& in, int head, int row);

}  // namespace attn::variants
