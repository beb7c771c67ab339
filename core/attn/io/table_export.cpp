#include "attn/io/table_export.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "attn/io/atomic_file.h"
#include "attn/io/npy_writer.h"

namespace attn {
namespace {

std::vector<int> selectedHeads(const AttentionResult& res, const DataExportRequest& req) {
  if (!req.heads.empty()) return req.heads;
  std::vector<int> all(static_cast<size_t>(res.numHeads()));
  for (int h = 0; h < res.numHeads(); ++h) all[static_cast<size_t>(h)] = h;
  return all;
}

const Mat& matrixOf(const HeadResult& h, DataKind k) {
  switch (k) {
    case DataKind::Logits: return h.scaledLogits;
    case DataKind::Outputs: return h.output;
    default: return h.weights;
  }
}

// Shortest text that reads back as the same float.
std::string num(float v) { return fmt::format("{}", v); }

struct RowMetric {
  float entropy, maxWeight;
  int argmax;
};

RowMetric rowMetric(const HeadResult& h, int i) {
  Eigen::Index arg = 0;
  const float mx = h.weights.row(i).maxCoeff(&arg);
  return {h.entropy.size() > i ? h.entropy(i) : 0.0f, mx, static_cast<int>(arg)};
}

}  // namespace

std::string_view dataKindName(DataKind k) {
  switch (k) {
    case DataKind::Weights: return "weights";
    case DataKind::Logits: return "logits";
    case DataKind::Outputs: return "outputs";
    case DataKind::Metrics: return "metrics";
  }
  return "weights";
}

std::optional<DataKind> parseDataKind(std::string_view name) {
  for (auto k : {DataKind::Weights, DataKind::Logits, DataKind::Outputs, DataKind::Metrics})
    if (dataKindName(k) == name) return k;
  return std::nullopt;
}

std::string csvField(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + '"';
}

std::string resultCsv(const AttentionResult& res, const DataExportRequest& req) {
  std::string out;
  const auto heads = selectedHeads(res, req);
  const auto qTok = [&](int i) { return csvField(res.queryTokens[static_cast<size_t>(i)]); };
  const auto kTok = [&](int j) { return csvField(res.keyTokens[static_cast<size_t>(j)]); };
  switch (req.kind) {
    case DataKind::Weights:
    case DataKind::Logits:
      out = fmt::format("head,query,query_token,key,key_token,{}\n",
                        req.kind == DataKind::Weights ? "weight" : "logit");
      for (int h : heads) {
        const Mat& m = matrixOf(res.heads[static_cast<size_t>(h)], req.kind);
        for (int i = 0; i < m.rows(); ++i)
          for (int j = 0; j < m.cols(); ++j)
            out += fmt::format("{},{},{},{},{},{}\n", h + 1, i, qTok(i), j, kTok(j), num(m(i, j)));
      }
      break;
    case DataKind::Outputs:
      out = "head,query,query_token,dim,value\n";
      for (int h : heads) {
        const Mat& m = res.heads[static_cast<size_t>(h)].output;
        for (int i = 0; i < m.rows(); ++i)
          for (int d = 0; d < m.cols(); ++d) out += fmt::format("{},{},{},{},{}\n", h + 1, i, qTok(i), d, num(m(i, d)));
      }
      break;
    case DataKind::Metrics:
      out = "head,query,query_token,entropy_nats,max_weight,argmax_key,argmax_token\n";
      for (int h : heads) {
        const auto& hr = res.heads[static_cast<size_t>(h)];
        for (int i = 0; i < hr.weights.rows(); ++i) {
          const auto m = rowMetric(hr, i);
          out += fmt::format("{},{},{},{},{},{},{}\n", h + 1, i, qTok(i), num(m.entropy), num(m.maxWeight), m.argmax,
                             kTok(m.argmax));
        }
      }
      break;
  }
  return out;
}

std::string metricsJson(const AttentionResult& res, const DataExportRequest& req) {
  nlohmann::json doc;
  doc["n_query"] = res.nq();
  doc["n_key"] = res.nk();
  doc["entropy_unit"] = "nats";
  doc["tokens"] = res.queryTokens;
  doc["key_tokens"] = res.keyTokens;
  auto& heads = doc["heads"] = nlohmann::json::array();
  for (int h : selectedHeads(res, req)) {
    const auto& hr = res.heads[static_cast<size_t>(h)];
    auto rows = nlohmann::json::array();
    for (int i = 0; i < hr.weights.rows(); ++i) {
      const auto m = rowMetric(hr, i);
      rows.push_back({{"query", i}, {"entropy", m.entropy}, {"max_weight", m.maxWeight}, {"argmax_key", m.argmax}});
    }
    heads.push_back({{"head", h + 1},
                     {"entropy_mean", hr.entropy.size() ? hr.entropy.mean() : 0.0f},
                     {"entropy_min", hr.entropy.size() ? hr.entropy.minCoeff() : 0.0f},
                     {"entropy_max", hr.entropy.size() ? hr.entropy.maxCoeff() : 0.0f},
                     {"rows", rows}});
  }
  doc["warnings"] = res.warnings;
  return doc.dump(2) + "\n";
}

Status writeResultData(const AttentionResult& res, const DataExportRequest& req, const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  for (int h : req.heads)
    if (h < 0 || h >= res.numHeads())
      return Error{fmt::format("{}: head {} is out of range (1..{})", path, h + 1, res.numHeads())};
  const auto heads = selectedHeads(res, req);
  const std::string what(dataKindName(req.kind));
  if (ext == ".csv") return writeFileAtomic(path, resultCsv(res, req));
  if (ext == ".json") {
    if (req.kind != DataKind::Metrics)
      return Error{fmt::format("{}: JSON holds metrics; write {} as .npy, .npz or .csv", path, what)};
    return writeFileAtomic(path, metricsJson(res, req));
  }
  if (ext != ".npy" && ext != ".npz")
    return Error{fmt::format("{}: unsupported data format '{}' (use .npy, .npz, .csv or .json)", path, ext)};
  if (req.kind == DataKind::Metrics) {
    if (ext == ".npy") return Error{fmt::format("{}: metrics are several arrays; use .npz, .csv or .json", path)};
    NpzWriter npz;
    Mat entropy(static_cast<Eigen::Index>(heads.size()), res.nq());
    Mat maxWeight(entropy.rows(), entropy.cols());
    for (size_t r = 0; r < heads.size(); ++r) {
      const auto& hr = res.heads[static_cast<size_t>(heads[r])];
      for (int i = 0; i < res.nq(); ++i) {
        const auto m = rowMetric(hr, i);
        entropy(static_cast<Eigen::Index>(r), i) = m.entropy;
        maxWeight(static_cast<Eigen::Index>(r), i) = m.maxWeight;
      }
    }
    npz.add("entropy", Tensor::fromMat(entropy));
    npz.add("max_weight", Tensor::fromMat(maxWeight));
    npz.addStrings("tokens", res.queryTokens);
    return npz.write(path);
  }
  std::vector<Mat> mats;
  for (int h : heads) mats.push_back(matrixOf(res.heads[static_cast<size_t>(h)], req.kind));
  const Tensor t = Tensor::stack(mats);  // [H, rows, cols]
  if (ext == ".npy") return writeFileAtomic(path, encodeNpy(t));
  NpzWriter npz;
  npz.add(what, t);
  npz.addStrings("tokens", res.queryTokens);
  npz.addStrings("key_tokens", res.keyTokens);
  return npz.write(path);
}

}  // namespace attn
