#include "attn/models/device/device_corpus.h"

namespace attn::models {

DeviceCorpusBatch measureSentencesOn(const Model& model, const ModelBackend& backend,
                                     const std::vector<Encoding>& sentences, double coverageLevel) {
  DeviceCorpusBatch out;
  if (!backend.plan.onDevice || !backend.device) {
    out.sentences = measureSentences(model, sentences, coverageLevel);
    return out;
  }
  const RunOptions options = corpusRunOptions();
  out.sentences.resize(sentences.size());
  for (size_t k = 0; k < sentences.size(); ++k) {
    std::string note;
    auto run = runModelOn(model, backend, sentences[k], options, note);
    if (!run) {
      out.sentences[k].error = run.error().message;
      continue;
    }
    if (note.empty())
      ++out.onDevice;
    else if (out.note.empty())
      out.note = std::move(note);
    out.sentences[k].measures = measureSentence(*run, coverageLevel);
  }
  return out;
}

}  // namespace attn::models
