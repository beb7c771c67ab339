#pragma once
// The per-layer pieces every forward-only attribution here is built from: W_O and b_O in
// f32, each head's transformed vectors f^h(x_j) (Kobayashi et al. 2020, section 3) and
// ALTI's proximity (Ferrando et al. 2022, section 3). The attention-norm maps and ALTI
// (attribution.h) and the information flow routes (flow_routes.h) share them.
#include <string>
#include <vector>

#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"

namespace attn::models {

/// W_O as x W: [H * headDim, d] (nn.Linear stores [out, in], GPT-2's Conv1D [in, out]),
/// in f32 whatever the storage; and b_O (zero when the family has none).
struct OutputProjection {
  Mat w;
  Eigen::RowVectorXf b;
};
OutputProjection outputProjection(const LinearWeight& o, int d);
/// The same into `p`, reusing its storage (one layer after another: no fresh pages).
void outputProjection(const LinearWeight& o, int d, OutputProjection& p);

/// f^h(x_j) = (x_j W_V + b_V) W_O^h for every head h and key j: [H] x [N, d] (v already
/// holds b_V; under grouped-query attention one v per query head).
std::vector<Mat> headValueVectors(const AttentionResult& attn, const OutputProjection& proj, int headDim);
/// The same into `f`, reusing its matrices' storage.
void headValueVectors(const AttentionResult& attn, const OutputProjection& proj, int headDim,
                      std::vector<Mat>& f);

/// ALTI's proximity of a part z to the whole y (Ferrando et al. 2022, section 3; Ferrando
/// & Voita 2024, section 2): max(0, ||y||_1 - ||y - z||_1), `yNorm1` = ||y||_1.
/// The same from the distance ||y - z||_1 already taken.
inline float altiProximityAt(float yNorm1, float distance) {
  return yNorm1 > distance ? yNorm1 - distance : 0.0f;
}
template <typename Part>
float altiProximity(const Eigen::RowVectorXf& y, float yNorm1, const Part& z) {
  return altiProximityAt(yNorm1, (y - z).template lpNorm<1>());
}

/// `run` holds every layer with every head's weights and values and the layer inputs;
/// errors name `source`.
Status checkAttributionRun(const ModelConfig& config, const ModelRun& run, const std::string& source);

}  // namespace attn::models
