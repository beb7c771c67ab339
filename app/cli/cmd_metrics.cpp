// attnscope-cli metrics: per-head measures, as text or JSON.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "attn/engine.h"
#include "commands.h"
#include "options.h"

namespace attn::cli {

Action addMetricsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("metrics", "Per-head entropy and other measures");
  auto opts = std::make_shared<CommonOptions>();
  auto json = std::make_shared<bool>(false);
  addCommonOptions(*cmd, *opts);
  cmd->add_flag("--json", *json, "Print JSON instead of a table");
  return [cmd, opts, json]() -> int {
    if (!cmd->parsed()) return -1;
    auto req = buildRequest(*opts);
    if (!req) return fail(req.error().message);
    auto res = runAttention(req->first, req->second);
    if (!res) return fail(res.error().message);

    nlohmann::json doc;
    doc["n_query"] = res->nq();
    doc["n_key"] = res->nk();
    doc["mechanism"] = opts->mechanism;
    doc["mask"] = req->second.mask.spec();
    doc["entropy_unit"] = "nats";
    doc["warnings"] = res->warnings;
    auto& heads = doc["heads"] = nlohmann::json::array();
    for (int h = 0; h < res->numHeads(); ++h) {
      const auto& e = res->heads[static_cast<size_t>(h)].entropy;
      heads.push_back({{"head", h + 1},
                       {"entropy_mean", e.mean()},
                       {"entropy_min", e.minCoeff()},
                       {"entropy_max", e.maxCoeff()},
                       {"row_entropy", std::vector<float>(e.data(), e.data() + e.size())}});
    }
    if (*json) {
      fmt::print("{}\n", doc.dump(2));
    } else {
      fmt::print("{} x {} tokens, mechanism {}, mask {}\n", res->nq(), res->nk(), opts->mechanism,
                 req->second.mask.spec());
      fmt::print("{:>5} {:>14} {:>12} {:>12}\n", "head", "entropy mean", "min", "max");
      for (const auto& h : heads)
        fmt::print("{:>5} {:>14.4f} {:>12.4f} {:>12.4f}\n", h["head"].get<int>(),
                   h["entropy_mean"].get<double>(), h["entropy_min"].get<double>(),
                   h["entropy_max"].get<double>());
    }
    return 0;
  };
}

}  // namespace attn::cli
