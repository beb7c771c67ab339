#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "attn/status.h"

namespace attn::cli {

/// Each command registers its subcommand and returns the action to run when
/// it was chosen; the action returns the process exit status.
using Action = std::function<int()>;
Action addRunCommand(CLI::App& app);
Action addExportCommand(CLI::App& app, int argc, char** argv);

Action addMetricsCommand(CLI::App& app);
Action addInfoCommand(CLI::App& app);
/// `corpus` and `corpus-merge` (one action serves both).
Action addCorpusCommand(CLI::App& app);
Action addImportanceCommand(CLI::App& app);
/// `heads`: every head of a model labelled by what it does (head_types.h).
Action addHeadsCommand(CLI::App& app);
/// `patch`: activation patching of a causal model (patching/activation_patching.h).
Action addPatchCommand(CLI::App& app);
/// `lens`: the logit lens of a model on a text (attn/models/lens/logit_lens.h).
Action addLensCommand(CLI::App& app);
/// `routes`: the contribution graph of a causal model (attribution/flow_routes.h).
Action addRoutesCommand(CLI::App& app);
/// `gradients`: gradient attribution through a backward pass (models/gradients/).
Action addGradientsCommand(CLI::App& app);
/// `train`: a tiny attention model on a toy task, or a built-in demonstration.
Action addTrainCommand(CLI::App& app);
/// `graph`: graph attention (GAT) over a graph file or the bundled example.
Action addGraphCommand(CLI::App& app, int argc, char** argv);
/// `geometry`: one head's query-key PCA (AttentionViz).
Action addGeometryCommand(CLI::App& app, int argc, char** argv);

/// `translate`: greedy generation with an encoder-decoder model, its three attention kinds.
Action addTranslateCommand(CLI::App& app);
/// `generate`: text written by a causal model after a prompt, the attention of every token.
Action addGenerateCommand(CLI::App& app);
struct InputOptions;
/// `run --model` on an encoder-decoder folder: forced decoding of --target-text (an error
/// without one), its three attention kinds into `out`.
int runSeq2SeqForced(const InputOptions& o, const std::string& targetText, const std::string& out);
/// `gradients --model` on an encoder-decoder folder: forced decoding of --target-text (an error
/// without one), the gradient of --target's logit (default: the predicted token) at --position
/// (default: the last decoder row) into `out` (cmd_gradients_seq2seq.cpp).
int runSeq2SeqGradients(const InputOptions& input, const std::string& targetText, const std::string& target,
                        int position, int steps, const std::string& out);

/// Sets up the version flag and registers every command on `app`; main()
/// parses and runs the actions, the option-parser fuzz target only parses.
std::vector<Action> addCommands(CLI::App& app, int argc, char** argv);

/// Refuses to replace an existing file unless --force was given.
Status checkOverwrite(const std::string& path, bool force);

/// One-line error on stderr, exit status 1.
int fail(const std::string& message);

}  // namespace attn::cli
