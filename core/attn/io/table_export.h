#pragma once
// Data export of a computed result: weights, logits, outputs as .npy / .npz /
// CSV, per-row metrics as JSON / CSV. Bytes are built here (testable without
// files) and written atomically by writeResultData.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/engine.h"
#include "attn/status.h"

namespace attn {

/// What to export: weights (softmax), logits (scaled logits before the mask,
/// as `scores` in the run .npz), outputs (per-head context), or metrics.
enum class DataKind { Weights, Logits, Outputs, Metrics };
std::string_view dataKindName(DataKind k);
std::optional<DataKind> parseDataKind(std::string_view name);

/// `heads` selects 0-based heads (empty: all).
struct DataExportRequest {
  DataKind kind = DataKind::Weights;
  std::vector<int> heads;
};

/// CSV field quoting after RFC 4180: quoted when it holds a comma, quote or newline.
std::string csvField(std::string_view s);

/// Long ("tidy") CSV, one line per cell:
///   weights/logits: head,query,query_token,key,key_token,value
///   outputs:        head,query,query_token,dim,value
///   metrics:        head,query,query_token,entropy_nats,max_weight,argmax_key,argmax_token
/// Heads and indices are 1-based for heads and 0-based for positions, as numpy.
std::string resultCsv(const AttentionResult& res, const DataExportRequest& req);
/// Metrics as a JSON document: per head the mean/min/max entropy and per row
/// entropy, max weight and argmax key.
std::string metricsJson(const AttentionResult& res, const DataExportRequest& req);

/// Writes `path` in the format its extension names (.npy, .npz, .csv, .json);
/// .npy holds [H, Nq, Nk] (or [H, Nq, dv]); .npz adds tokens. Errors name the
/// file and the fault (e.g. JSON for weights).
Status writeResultData(const AttentionResult& res, const DataExportRequest& req, const std::string& path);

}  // namespace attn
