#pragma once
// Built-in demonstrations: a few runs side by side that show why a trick matters.
// Text is English; a front end translates it by `id` (GUI: tr() on the same text).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/train/train_config.h"

namespace attn::train {

struct DemoRun {
  std::string label;  // short English legend text, e.g. "scaled 1/sqrt(d_k)"
  TrainConfig config;
};

struct Demonstration {
  std::string id;           // stable: "scaling", "collapse-init", "collapse-temperature",
                            // "entropy-regularisation", "grad-clipping", "induction"
  std::string title;        // English, a few words
  std::string explanation;  // English, two or three sentences: what to look at and why
  int steps = 0;            // how many updates to run each config for
  std::vector<DemoRun> runs;  // two or more runs to plot together
};

/// The built-in demonstrations, in presentation order.
const std::vector<Demonstration>& demonstrations();
/// By id; nullopt when unknown.
std::optional<Demonstration> findDemonstration(std::string_view id);
/// "scaling, collapse-init, ..." for error messages and --help.
std::string demonstrationIds();

}  // namespace attn::train
