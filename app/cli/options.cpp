#include "options.h"

#include <fmt/format.h>

#include "attn/engine/exec_path.h"
#include "attn/engine/memory_budget.h"
#include "attn/tokenizers/tokenizer.h"

namespace attn::cli {

void addCommonOptions(CLI::App& cmd, CommonOptions& o) {
  addInputOptions(cmd, o);
  std::string mechanisms;
  for (auto m : allMechanisms()) mechanisms += (mechanisms.empty() ? "" : ", ") + std::string(m);
  cmd.add_option("--mechanism", o.mechanism, "Score function: " + mechanisms)->capture_default_str();
  cmd.add_option("--heads", o.heads, "Number of heads")->capture_default_str();
  cmd.add_option("--d-model", o.dModel, "Embedding width d_model")->capture_default_str();
  cmd.add_option("--d-k", o.dK, "Per-head width (default d_model / heads)");
  cmd.add_option("--hidden", o.hidden, "Hidden size of the additive score (default: the head width)");
  cmd.add_flag("--bias", o.bias, "Learned projections (and the additive score) with bias");
  cmd.add_option("--mask", o.mask,
                 "Mask spec, terms joined by '+': none, causal, padding[:LEN], window:W, dilated:W,D, "
                 "global:I,J,..., block:B, random:P,SEED, custom, window2d:R[,COLS] (image patches) (e.g. causal+window:4)")
      ->capture_default_str();
  cmd.add_option("--pos", o.pos, "Positional encoding: none, sinusoidal, learned, rope, alibi, t5, sinusoidal2d (image patches)")
      ->capture_default_str();
  cmd.add_option("--temperature", o.temperature, "Logits are divided by this")->capture_default_str();
  cmd.add_option("--seed", o.seed, "Seed for embeddings and weights")->capture_default_str();
  cmd.add_option("--init", o.init, "Weight init: xavier, kaiming, orthogonal")->capture_default_str();
  cmd.add_option("--exec", o.exec,
                 "Execution path: naive, tiled, sparse, auto (exact); performer, linear_elu, "
                 "linformer (approximate, error reported)")->capture_default_str();
  cmd.add_option("--features", o.features, "Performer random features m (0: 4 * d_k)")->capture_default_str();
  cmd.add_option("--slots", o.slots, "Linformer sequence slots k (0: min(N, 32))")->capture_default_str();
  cmd.add_option("--backend", o.backend, "Backend: cpu, cuda, auto")->capture_default_str();
  cmd.add_option("--gpu-inputs", o.gpuInputs,
                 "How the CUDA backend stores Q, K, V: fp32, fp16, bf16 (fp32 arithmetic either way; "
                 "the difference from fp32 is reported). With --model: fp32 multiplies 16-bit weights "
                 "in f32; fp16/bf16 rounds the activations to the weights' format (tensor cores)")
      ->capture_default_str();
  cmd.add_option("--memory-budget", o.memoryBudget,
                 "Most memory the per-head N x N matrices may take, e.g. 2G (default: half of RAM)");
  // A model fixes its own mechanism, sizes, weights and positions.
  if (auto* model = cmd.get_option_no_throw("--model"))
    for (const char* name : {"--mechanism", "--heads", "--d-model", "--d-k", "--hidden", "--bias", "--pos", "--seed",
                             "--init", "--exec", "--features", "--slots", "--mask"})
      model->excludes(cmd.get_option(name));
}

Result<std::pair<AttentionInput, AttentionSpec>> buildRequest(const CommonOptions& o) {
  AttentionSpec spec;
  auto mech = parseMechanism(o.mechanism);
  // The approximate variants are execution paths of scaled-dot attention; accept
  // them as --mechanism names too.
  std::string exec = o.exec;
  if (auto approx = parseExecPath(o.mechanism); !mech && approx && isApproximate(*approx)) {
    mech = Mechanism::ScaledDot;
    exec = o.mechanism;
  }
  if (!mech) {
    std::string known;
    for (auto m : allMechanisms()) known += (known.empty() ? "" : ", ") + std::string(m);
    return Error{fmt::format("--mechanism: unknown mechanism '{}' (expected one of {})", o.mechanism, known)};
  }
  spec.mechanism = *mech;
  spec.heads = o.heads;
  spec.dModel = o.dModel;
  spec.dK = o.dK;
  if (o.dK < 0) return Error{fmt::format("--d-k must be at least 1 (got {})", o.dK)};
  if (o.hidden < 0) return Error{fmt::format("--hidden must be at least 1 (got {})", o.hidden)};
  if (o.hidden > 65536) return Error{fmt::format("--hidden {} is too large (at most 65536)", o.hidden)};
  spec.hidden = o.hidden;
  spec.projectionBias = o.bias;
  spec.temperature = o.temperature;
  spec.seed = o.seed;
  auto init = parseInitScheme(o.init);
  if (!init) return Error{fmt::format("--init: unknown scheme '{}'", o.init)};
  spec.init = *init;
  auto backend = parseBackend(o.backend);
  if (!backend) return Error{fmt::format("--backend: unknown backend '{}'", o.backend)};
  spec.backend = *backend;
  auto inputs = parseDeviceInputs(o.gpuInputs);
  if (!inputs) return Error{fmt::format("--gpu-inputs: unknown format '{}' (expected fp32, fp16 or bf16)", o.gpuInputs)};
  spec.deviceInputs = *inputs;
  auto path = parseExecPath(exec);
  if (!path) return Error{fmt::format("--exec: unknown path '{}'", exec)};
  spec.exec = *path;
  if (o.features < 0 || o.features > 65536)
    return Error{fmt::format("--features must be between 0 and 65536 (got {})", o.features)};
  if (o.slots < 0 || o.slots > 65536)
    return Error{fmt::format("--slots must be between 0 and 65536 (got {})", o.slots)};
  spec.randomFeatures = o.features;
  spec.linformerSlots = o.slots;
  if (!o.memoryBudget.empty()) {
    auto budget = parseByteSize(o.memoryBudget);
    if (!budget) return Error{"--memory-budget: " + budget.error().message};
    if (*budget <= 0) return Error{"--memory-budget: must be more than 0 bytes"};
    spec.memoryBudget = *budget;
  }
  auto mask = Mask::parse(o.mask);
  if (!mask) return Error{"--mask: " + mask.error().message};
  spec.mask = std::move(mask).value();
  auto pos = parsePositional(o.pos);
  if (!pos)
    return Error{fmt::format("--pos: unknown positional encoding '{}' (expected none, sinusoidal, learned, rope, alibi, t5, sinusoidal2d)",
                             o.pos)};
  spec.positional = *pos;

  auto input = buildInput(o, spec);
  if (!input) return input.error();
  return std::pair{std::move(input).value(), std::move(spec)};
}

}  // namespace attn::cli
