#include "attn_ui/pretrained/model_spec.h"

namespace attn::ui {

attn::AttentionSpec specOfModel(const attn::models::ModelInfo& info) {
  attn::AttentionSpec s;
  s.mechanism = attn::Mechanism::ScaledDot;  // every supported family: softmax(q k^T / sqrt(d_k))
  s.heads = info.heads;
  s.dModel = info.dModel;
  s.dK = info.headDim;
  s.temperature = 1.0f;
  s.projectionBias = info.family != attn::models::Family::Llama || info.modelType == "qwen2";
  s.mask = info.causal ? attn::Mask::causal() : attn::Mask();
  // GPT-2 and BERT add a learned position table to the embeddings; the Llama
  // family rotates q and k (RoPE), which is why their q/k are kept after RoPE.
  s.positional = info.family == attn::models::Family::Llama ? attn::PositionalEncoding::Rope
                                                           : attn::PositionalEncoding::Learned;
  s.exec = attn::ExecPath::Naive;  // the model keeps every head's N x N weights
  return s;
}

}  // namespace attn::ui
