// Model loader front files: config.json and model.safetensors.index.json
// (the two parts of one input, split at fuzz::kPartSeparator). Any bytes give
// a config the forward pass can size its buffers from, or a one-line error
// naming the file; an index never names a shard outside its folder.
#include <cstdint>
#include <string_view>

#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = attn::fuzz::splitParts(std::string_view(reinterpret_cast<const char*>(data), size), 2);
  auto c = attn::models::parseModelConfig(parts[0], "config.json");
  if (!c) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(c.error().message, "config.json"));
  } else {
    FUZZ_CHECK(c->layers > 0 && c->heads > 0 && c->kvHeads > 0 && c->dModel > 0 && c->headDim > 0);
    FUZZ_CHECK(c->heads % c->kvHeads == 0 && c->intermediate > 0 && c->vocabSize > 0);
    FUZZ_CHECK(c->family == attn::models::Family::Llama ? c->headDim % 2 == 0 : c->headDim * c->heads == c->dModel);
    FUZZ_CHECK(c->maxPositions > 0 && c->maxSequence() > 0 && c->normEps >= 0);
    // Every tensor size the loader compares fits in int64 with room to spare.
    FUZZ_CHECK(static_cast<double>(c->vocabSize) * c->dModel < 9e18);
    FUZZ_CHECK(static_cast<double>(c->heads) * c->headDim * c->dModel < 9e18);
  }
  auto idx = attn::models::parseSafetensorsIndex(parts[1], "model.safetensors.index.json");
  if (!idx) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(idx.error().message, "model.safetensors.index.json"));
  } else {
    FUZZ_CHECK(!idx->empty());
    for (const auto& f : *idx)
      FUZZ_CHECK(!f.empty() && f != ".." && f != "." && f.find('/') == std::string::npos);
  }
  return 0;
}
