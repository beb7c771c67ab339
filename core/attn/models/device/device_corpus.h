#pragma once
// A corpus batch's sentences where the model's plan puts them (device_run.h): on the device
// one after another through Model::runOnDevice (the device serves one request at a time),
// each sentence's measures from the maps the device computed, exactly as measureSentence
// reads the CPU's; or, when the plan keeps the CPU, measureSentences' threads.
#include <string>
#include <vector>

#include "attn/models/device/device_run.h"
#include "attn/models/experiments/corpus_stats.h"

namespace attn::models {

/// What a corpus batch did on the device: its sentences in input order (an error where the
/// model refused one), how many ran there, and the first fallback's line (empty when none).
struct DeviceCorpusBatch {
  std::vector<MeasuredSentence> sentences;
  int onDevice = 0;
  std::string note;
};

/// measureSentences with `backend`: a sentence the device cannot take (what the plan could
/// not see, a device fault) runs on the CPU with runModelOn's note; a cancelled or refused
/// one is its error.
DeviceCorpusBatch measureSentencesOn(const Model& model, const ModelBackend& backend,
                                     const std::vector<Encoding>& sentences, double coverageLevel = 0.9);

}  // namespace attn::models
