// Model loader front files: config.json and model.safetensors.index.json
// (the two parts of one input, split at fuzz::kPartSeparator). Any bytes give
// a config the forward pass can size its buffers from, or a one-line error
// naming the file; an index never names a shard outside its folder. The same
// config.json is also read as an encoder-decoder config and as generation_config.json.
#include <cstdint>
#include <string_view>

#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/models/seq2seq/seq2seq_config.h"
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
  auto s = attn::models::parseSeq2SeqConfig(parts[0], "config.json");
  if (!s) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(s.error().message, "config.json"));
  } else {
    FUZZ_CHECK(s->encoderLayers > 0 && s->decoderLayers > 0 && s->encoderHeads > 0 && s->decoderHeads > 0);
    FUZZ_CHECK(s->base.dModel % s->encoderHeads == 0 && s->base.dModel % s->decoderHeads == 0);
    FUZZ_CHECK(s->maxPositions > 0 && s->base.vocabSize >= 3 && s->generation.maxLength >= 2);
    for (const auto& words : s->generation.badWordsIds)
      for (int id : words) FUZZ_CHECK(id >= 0 && id < s->base.vocabSize);
  }
  attn::models::GenerationSettings g;
  if (auto st = attn::models::readGenerationConfig(parts[0], "generation_config.json", 1000, g); !st)
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(st.error().message, "generation_config.json"));
  else
    FUZZ_CHECK(g.decoderStartTokenId < 1000 && g.eosTokenId < 1000 && g.numBeams >= 1);
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
