// attnscope-cli train: train the tiny attention model of a toy task
// and write the curves (loss, accuracy, entropy per head, gradient norms per step)
// as CSV or JSON and snapshots of the fixed example's maps every k steps as .npz.
// `--demo NAME` runs a built-in demonstration (its runs one after the other).
// `--dump-init FILE.npz` writes step 0 (initial weights, first batch, loss and
// gradients) for an outside reference to recompute (tests/scripts/check_train_dump.py).
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "attn/io/atomic_file.h"
#include "attn/io/npy_writer.h"
#include "attn/train/demonstrations.h"
#include "attn/train/initial_state.h"
#include "attn/train/trainer.h"
#include "commands.h"
#include "vector_tensor.h"

namespace attn::cli {
namespace {

using namespace attn::train;

struct TrainCliOptions {
  std::string task = "copy", mechanism = "scaled_dot", init = "xavier", optimizer = "adam";
  TrainConfig config;
  int steps = 1000;
  int snapshotEvery = 100;
  std::string demo, out, csv, dumpInit;
  bool json = false, force = false, quiet = false;
};

struct RunOutcome {
  std::string label;
  Trainer trainer;
  double seconds = 0;
  std::string divergence;  // empty unless the run diverged
};

bool endsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string headName(const TrainConfig& c, int i) {
  return fmt::format("entropy_l{}h{}", i / c.heads + 1, i % c.heads + 1);
}

Result<RunOutcome> trainOne(const std::string& label, const TrainConfig& config, int steps, bool quiet) {
  auto created = Trainer::create(config);
  if (!created) return created.error();
  RunOutcome r{label, std::move(created).value(), 0, {}};
  const int every = std::max(1, steps / 10);
  const auto t0 = std::chrono::steady_clock::now();
  Status st = r.trainer.run(steps, nullptr, [&](const StepSnapshot& s) {
    if (!quiet && (s.step % every == 0 || s.step == steps))
      fmt::print(stderr, "{}step {:>6}  loss {:.4f}  accuracy {:.3f}\n", label.empty() ? "" : label + ": ", s.step,
                 s.loss, s.accuracy);
    return true;
  });
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!st) r.divergence = st.error().message;
  return r;
}

std::string curvesCsv(const std::vector<RunOutcome>& runs) {
  const TrainConfig& c0 = runs.front().trainer.config();
  std::string s = runs.size() > 1 ? "run," : "";
  s += "step,loss,cross_entropy,accuracy,grad_norm,grad_norm_qk,clipped";
  const int maps = c0.layers * c0.heads;
  for (int i = 0; i < maps; ++i) s += "," + headName(c0, i);
  s += "\n";
  for (size_t r = 0; r < runs.size(); ++r)
    for (const StepSnapshot& st : runs[r].trainer.history().steps) {
      if (runs.size() > 1) s += fmt::format("{},", r + 1);
      s += fmt::format("{},{:.9g},{:.9g},{:.6g},{:.9g},{:.9g},{}", st.step, st.loss, st.crossEntropy, st.accuracy,
                       st.gradNorm, st.gradNormQK, st.clipped ? 1 : 0);
      for (int i = 0; i < static_cast<int>(st.headEntropy.size()) && i < maps; ++i)
        s += fmt::format(",{:.9g}", st.headEntropy[static_cast<size_t>(i)]);
      s += "\n";
    }
  return s;
}

void addRun(NpzWriter& npz, const std::string& prefix, const RunOutcome& run, int snapshotEvery) {
  const Trainer& tr = run.trainer;
  const TrainConfig& c = tr.config();
  const auto& hist = tr.history().steps;
  std::vector<double> loss, acc, ce, gn, gqk;
  Tensor ent;
  const int maps = c.layers * c.heads, n = c.seqLen;
  ent.shape = {static_cast<int64_t>(hist.size()), maps};
  for (const StepSnapshot& s : hist) {
    loss.push_back(s.loss);
    ce.push_back(s.crossEntropy);
    acc.push_back(s.accuracy);
    gn.push_back(s.gradNorm);
    gqk.push_back(s.gradNormQK);
    for (int i = 0; i < maps; ++i) ent.data.push_back(static_cast<float>(s.headEntropy[static_cast<size_t>(i)]));
  }
  npz.add(prefix + "loss", vectorTensor(loss));
  npz.add(prefix + "cross_entropy", vectorTensor(ce));
  npz.add(prefix + "accuracy", vectorTensor(acc));
  npz.add(prefix + "grad_norm", vectorTensor(gn));
  npz.add(prefix + "grad_norm_qk", vectorTensor(gqk));
  npz.add(prefix + "entropy", ent);
  if (c.task == Task::Induction) {
    Tensor prev, ind;
    prev.shape = ind.shape = ent.shape;
    for (const StepSnapshot& s : hist) {
      prev.data.insert(prev.data.end(), s.previousTokenScore.begin(), s.previousTokenScore.end());
      ind.data.insert(ind.data.end(), s.inductionScore.begin(), s.inductionScore.end());
    }
    npz.add(prefix + "previous_token_score", prev);
    npz.add(prefix + "induction_score", ind);
  }
  // Snapshots of the maps every k steps and the last step: [K, L, H, N, N].
  std::vector<double> steps;
  Tensor snaps;
  const int last = tr.stepCount();
  for (int k = 0; k <= last; ++k) {
    if (k % snapshotEvery != 0 && k != last) continue;
    const StepSnapshot s = tr.snapshotAt(k);
    steps.push_back(k);
    for (const auto& layer : s.maps)
      for (const Mat& m : layer) snaps.data.insert(snaps.data.end(), m.data(), m.data() + m.size());
  }
  snaps.shape = {static_cast<int64_t>(steps.size()), c.layers, c.heads, n, n};
  npz.add(prefix + "snapshot_steps", vectorTensor(steps));
  npz.add(prefix + "maps", snaps);
  npz.add(prefix + "expected", Tensor::fromMat(tr.example().expected));
  npz.addStrings(prefix + "tokens", tr.example().keyLabels);
  npz.addStrings(prefix + "query_tokens", tr.example().queryLabels);
}

nlohmann::json configJson(const TrainConfig& c) {
  return {{"task", std::string(taskName(c.task))},
          {"seq_len", c.seqLen},
          {"vocab", c.vocabSize},
          {"mechanism", std::string(trainMechanismName(c.mechanism))},
          {"heads", c.heads},
          {"d_k", c.dK},
          {"d_model", c.dModel},
          {"layers", c.layers},
          {"residual", c.residual},
          {"mlp", c.mlpHidden},
          {"causal", c.causal},
          {"init", std::string(trainInitName(c.init))},
          {"optimizer", std::string(optimizerName(c.optimizer))},
          {"lr", c.learningRate},
          {"batch", c.batchSize},
          {"seed", c.seed},
          {"entropy_weight", c.entropyWeight},
          {"clip", c.gradClipNorm},
          {"temperature", c.temperature}};
}

nlohmann::json runJson(const RunOutcome& run) {
  const Trainer& tr = run.trainer;
  const StepSnapshot& last = tr.latest();
  nlohmann::json j;
  if (!run.label.empty()) j["label"] = run.label;
  j["config"] = configJson(tr.config());
  j["steps"] = tr.stepCount();
  j["seconds"] = run.seconds;
  j["steps_per_second"] = run.seconds > 0 ? tr.stepCount() / run.seconds : 0.0;
  j["diverged"] = tr.diverged();
  if (!run.divergence.empty()) j["message"] = run.divergence;
  j["final"] = {{"loss", std::isfinite(last.loss) ? nlohmann::json(last.loss) : nlohmann::json()},
                {"accuracy", last.accuracy},
                {"entropy", last.headEntropy}};
  if (tr.config().task == Task::Induction) {
    j["final"]["previous_token_score"] = last.previousTokenScore;
    j["final"]["induction_score"] = last.inductionScore;
  }
  auto& curves = j["curves"];
  for (const char* k : {"step", "loss", "cross_entropy", "accuracy", "grad_norm", "grad_norm_qk"})
    curves[k] = nlohmann::json::array();
  curves["entropy"] = nlohmann::json::array();
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  for (const StepSnapshot& s : tr.history().steps) {
    curves["step"].push_back(s.step);
    curves["loss"].push_back(num(s.loss));
    curves["cross_entropy"].push_back(num(s.crossEntropy));
    curves["accuracy"].push_back(s.accuracy);
    curves["grad_norm"].push_back(num(s.gradNorm));
    curves["grad_norm_qk"].push_back(num(s.gradNormQK));
    auto row = nlohmann::json::array();
    for (double e : s.headEntropy) row.push_back(num(e));
    curves["entropy"].push_back(row);
    if (tr.config().task == Task::Induction) {
      curves["previous_token_score"].push_back(s.previousTokenScore);
      curves["induction_score"].push_back(s.inductionScore);
    }
  }
  return j;
}

Status parseNames(TrainCliOptions& o) {
  auto bad = [](const char* flag, const std::string& got, const char* choices) {
    return Status(Error{fmt::format("{}: unknown value '{}' (choose {})", flag, got, choices)});
  };
  if (auto t = parseTask(o.task)) o.config.task = *t;
  else
    return bad("--task", o.task, "copy, reverse, sort, shift, translate, brackets, induction");
  if (auto m = parseTrainMechanism(o.mechanism)) o.config.mechanism = *m;
  else return bad("--mechanism", o.mechanism, "dot, scaled_dot, general, additive");
  if (auto i = parseTrainInit(o.init)) o.config.init = *i;
  else return bad("--init", o.init, "xavier, kaiming, orthogonal, bad");
  if (auto p = parseOptimizer(o.optimizer)) o.config.optimizer = *p;
  else return bad("--optimizer", o.optimizer, "sgd, adam");
  return okStatus();
}

int runTrain(TrainCliOptions& o, const CLI::App& cmd) {
  if (o.steps < 0 || o.steps > 1000000) return fail(fmt::format("--steps must be between 0 and 1000000 (got {})", o.steps));
  if (o.snapshotEvery < 1) return fail(fmt::format("--snapshot-every must be at least 1 (got {})", o.snapshotEvery));
  if (!o.out.empty() && !endsWith(o.out, ".npz")) return fail(fmt::format("{}: --out must name a .npz file", o.out));
  if (!o.csv.empty() && !endsWith(o.csv, ".csv")) return fail(fmt::format("{}: --csv must name a .csv file", o.csv));
  if (!o.dumpInit.empty() && !endsWith(o.dumpInit, ".npz"))
    return fail(fmt::format("{}: --dump-init must name a .npz file", o.dumpInit));
  if (!o.dumpInit.empty() && !o.demo.empty())
    return fail("--dump-init cannot be combined with --demo (it writes the one run's initial state)");
  for (const auto* f : {&o.out, &o.csv, &o.dumpInit})
    if (!f->empty())
      if (auto st = checkOverwrite(*f, o.force); !st) return fail(st.error().message);

  std::vector<std::pair<std::string, TrainConfig>> plan;
  std::optional<Demonstration> demo;
  int steps = o.steps;
  if (!o.demo.empty()) {
    demo = findDemonstration(o.demo);
    if (!demo) return fail(fmt::format("--demo: unknown demonstration '{}' (choose {})", o.demo, demonstrationIds()));
    for (const char* fixed :
         {"--task",   "--seq-len",  "--vocab", "--mechanism",      "--heads",  "--d-k",        "--d-model",
          "--layers", "--residual", "--mlp",   "--hidden",         "--causal", "--init",       "--optimizer",
          "--lr",     "--batch",    "--seed",  "--entropy-weight", "--clip",   "--temperature"})
      if (cmd.count(fixed) > 0)
        return fail(fmt::format("{} cannot be combined with --demo (a demonstration fixes its runs' settings)", fixed));
    if (cmd.count("--steps") == 0) steps = demo->steps;
    for (const DemoRun& r : demo->runs) plan.emplace_back(r.label, r.config);
  } else {
    if (auto st = parseNames(o); !st) return fail(st.error().message);
    if (auto st = validateTrainConfig(o.config); !st) return fail(st.error().message);
    plan.emplace_back("", o.config);
  }
  if (demo && !o.quiet) fmt::print(stderr, "{}\n{}\n", demo->title, demo->explanation);

  if (!o.dumpInit.empty()) {
    auto created = Trainer::create(plan.front().second);
    if (!created) return fail(created.error().message);
    if (auto st = writeInitialState(*created, o.dumpInit); !st) return fail(st.error().message);
    if (!o.quiet)
      fmt::print(stderr, "wrote {} (step 0: weights, first batch, loss, gradients)\n", o.dumpInit);
  }

  std::vector<RunOutcome> runs;
  for (auto& [label, config] : plan) {
    config.mapEvery = o.snapshotEvery;
    auto r = trainOne(label, config, steps, o.quiet);
    if (!r) return fail(r.error().message);
    runs.push_back(std::move(r).value());
  }

  if (!o.out.empty()) {
    NpzWriter npz;
    for (size_t i = 0; i < runs.size(); ++i)
      addRun(npz, runs.size() > 1 ? fmt::format("run{}_", i + 1) : std::string(), runs[i], o.snapshotEvery);
    if (auto st = npz.write(o.out); !st) return fail(st.error().message);
  }
  if (!o.csv.empty())
    if (auto st = writeFileAtomic(o.csv, curvesCsv(runs)); !st) return fail(st.error().message);

  if (o.json) {
    nlohmann::json doc;
    if (demo) {
      doc["demo"] = demo->id;
      doc["title"] = demo->title;
      doc["explanation"] = demo->explanation;
      doc["runs"] = nlohmann::json::array();
      for (const auto& r : runs) doc["runs"].push_back(runJson(r));
    } else {
      doc = runJson(runs.front());
    }
    fmt::print("{}\n", doc.dump(1));
    return 0;
  }
  for (const auto& r : runs) {
    const StepSnapshot& s = r.trainer.latest();
    std::string ent;
    for (double e : s.headEntropy) ent += fmt::format(" {:.3f}", e);
    fmt::print("{}{} steps in {:.2f} s ({:.0f} steps/s): loss {:.4f}, accuracy {:.3f}, entropy per head{} (uniform {:.3f})\n",
               r.label.empty() ? "" : r.label + ": ", r.trainer.stepCount(), r.seconds,
               r.seconds > 0 ? r.trainer.stepCount() / r.seconds : 0.0, s.loss, s.accuracy, ent,
               std::log(static_cast<double>(r.trainer.config().seqLen)));
    if (!s.inductionScore.empty()) {
      std::string scores;
      for (size_t i = 0; i < s.inductionScore.size(); ++i)
        scores += fmt::format(" l{}h{} {:.2f}/{:.2f}", i / r.trainer.config().heads + 1,
                              i % r.trainer.config().heads + 1, s.previousTokenScore[i], s.inductionScore[i]);
      fmt::print("{}previous-token/induction score per head:{}\n", r.label.empty() ? "" : r.label + ": ",
                 scores);
    }
    if (!r.divergence.empty()) fmt::print("{}{}\n", r.label.empty() ? "" : r.label + ": ", r.divergence);
  }
  if (!o.out.empty()) fmt::print("wrote {}\n", o.out);
  if (!o.csv.empty()) fmt::print("wrote {}\n", o.csv);
  return 0;
}

}  // namespace

Action addTrainCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "Train a tiny attention model on a toy task and record its maps forming");
  auto o = std::make_shared<TrainCliOptions>();
  TrainConfig& c = o->config;
  cmd->add_option("--task", o->task, "copy, reverse, sort, shift, translate, brackets, induction")
      ->capture_default_str();
  cmd->add_option("--steps", o->steps, "Updates to run (a demo's own count unless given)")->capture_default_str();
  cmd->add_option("--seq-len", c.seqLen, "Sequence length N")->capture_default_str();
  cmd->add_option("--vocab", c.vocabSize, "Input symbols (translate: words per toy language)")->capture_default_str();
  cmd->add_option("--mechanism", o->mechanism, "dot, scaled_dot, general, additive")->capture_default_str();
  cmd->add_option("--heads", c.heads, "Attention heads per layer")->capture_default_str();
  cmd->add_option("--d-k", c.dK, "Per-head query/key/value width")->capture_default_str();
  cmd->add_option("--d-model", c.dModel, "Embedding width")->capture_default_str();
  cmd->add_option("--layers", c.layers, "Attention layers (1 or 2)")->capture_default_str();
  cmd->add_flag("--residual", c.residual, "Residual stream: each layer adds its output to its input");
  cmd->add_option("--mlp", c.mlpHidden,
                  "With --residual: a ReLU MLP of this width after each layer (0: none)")
      ->capture_default_str();
  cmd->add_option("--hidden", c.additiveHidden, "Additive score hidden width")->capture_default_str();
  cmd->add_flag("--causal", c.causal, "Causal mask on self-attention");
  cmd->add_option("--init", o->init, "xavier, kaiming, orthogonal, bad")->capture_default_str();
  cmd->add_option("--optimizer", o->optimizer, "sgd, adam")->capture_default_str();
  cmd->add_option("--lr", c.learningRate, "Learning rate")->capture_default_str();
  cmd->add_option("--batch", c.batchSize, "Fresh random sequences per update")->capture_default_str();
  cmd->add_option("--seed", c.seed, "Seed of the weights, batches and the shown example")->capture_default_str();
  cmd->add_option("--entropy-weight", c.entropyWeight, "Add this times the mean attention entropy to the loss")
      ->capture_default_str();
  cmd->add_option("--clip", c.gradClipNorm, "Clip the gradient to this global norm (0: off)")->capture_default_str();
  cmd->add_option("--temperature", c.temperature, "Divide the logits by this")->capture_default_str();
  cmd->add_option("--demo", o->demo, "Run a built-in demonstration: " + demonstrationIds());
  cmd->add_option("--out", o->out, "Write curves and map snapshots as .npz");
  cmd->add_option("--csv", o->csv, "Write the curves (one row per step) as .csv");
  cmd->add_option(
      "--dump-init", o->dumpInit,
      "Write step 0 (initial weights, first batch, loss, gradients) as .npz for an outside check");
  cmd->add_option("--snapshot-every", o->snapshotEvery, "Keep the maps every k steps (and the last)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print the run (config, curves, final state) as JSON on stdout");
  cmd->add_flag("--quiet", o->quiet, "No progress lines on stderr");
  cmd->add_flag("--force", o->force, "Overwrite existing --out / --csv files");
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    return runTrain(*o, *cmd);
  };
}

}  // namespace attn::cli
