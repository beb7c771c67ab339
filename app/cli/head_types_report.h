#pragma once
// The head-type table of a model (attn/models/experiments/head_types_run.h) as
// `heads` prints it and `metrics --model --json` embeds it: scores per layer and
// head, each head's label, and the thresholds and precedence that chose it.
#include <nlohmann/json.hpp>
#include <string>

#include "attn/models/experiments/head_types_run.h"

namespace attn::cli {

/// {"seed", "period", "sequence_length", "rows", "local_window", "thresholds", "precedence",
///  "layers": [{"layer", "heads": [{"head", "head_type", "previous_token", "induction", ...}]}]}
nlohmann::json headTypesJson(const models::ModelHeadTypes& t);
/// layer,head,head_type,previous_token,induction,duplicate,sink,self,local
std::string headTypesCsv(const models::ModelHeadTypes& t);
/// A layers x heads table of labels, then one line per head with its scores.
std::string headTypesText(const models::ModelHeadTypes& t);

}  // namespace attn::cli
