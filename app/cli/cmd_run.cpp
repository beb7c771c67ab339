// attnscope-cli run: computes attention and writes the result .npz.
#include <fmt/format.h>

#include <memory>

#include "attn/engine.h"
#include "attn/io/npy_writer.h"
#include "commands.h"
#include "options.h"

namespace attn::cli {

Action addRunCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Compute attention and write scores, weights, output, entropy (.npz)");
  auto opts = std::make_shared<CommonOptions>();
  auto out = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  addCommonOptions(*cmd, *opts);
  cmd->add_option("--out", *out, "Result file (.npz)")->required();
  cmd->add_flag("--force", *force, "Overwrite an existing output file");
  return [cmd, opts, out, force]() -> int {
    if (!cmd->parsed()) return -1;
    if (!out->ends_with(".npz")) return fail(fmt::format("{}: --out of run must end in .npz", *out));
    if (auto st = checkOverwrite(*out, *force); !st) return fail(st.error().message);
    auto req = buildRequest(*opts);
    if (!req) return fail(req.error().message);
    auto res = runAttention(req->first, req->second);
    if (!res) return fail(res.error().message);

    std::vector<Mat> scores, weights, output;
    Mat entropy(res->numHeads(), res->nq());
    for (int h = 0; h < res->numHeads(); ++h) {
      const auto& hr = res->heads[static_cast<size_t>(h)];
      scores.push_back(hr.scaledLogits);
      weights.push_back(hr.weights);
      output.push_back(hr.output);
      entropy.row(h) = hr.entropy.transpose();
    }
    NpzWriter npz;
    npz.add("scores", Tensor::stack(scores));
    npz.add("weights", Tensor::stack(weights));
    npz.add("output", Tensor::stack(output));
    npz.add("entropy", Tensor::fromMat(entropy));
    npz.addStrings("tokens", res->queryTokens);
    npz.addStrings("key_tokens", res->keyTokens);
    if (auto st = npz.write(*out); !st) return fail(st.error().message);
    for (const auto& w : res->warnings) fmt::print(stderr, "warning: {}\n", w);
    fmt::print("wrote {} ({} heads, {} x {})\n", *out, res->numHeads(), res->nq(), res->nk());
    return 0;
  };
}

}  // namespace attn::cli
