#include "attn/train/demonstrations.h"

namespace attn::train {
namespace {

TrainConfig copyBase() {
  TrainConfig c;
  c.task = Task::Copy;
  c.seqLen = 8;
  c.vocabSize = 10;
  c.dModel = 32;
  c.dK = 16;
  c.heads = 1;
  c.batchSize = 32;
  c.seed = 7;
  return c;
}

// Olsson et al. 2022: the induction head forms in a sudden "phase change", and a
// one-layer attention-only model cannot form one (it needs K-composition with a
// previous-token head in an earlier layer).
Demonstration inductionDemo() {
  Demonstration d;
  d.id = "induction";
  d.title = "Watch an induction head form";
  d.explanation =
      "Both models predict the next token of random sequences in which a segment repeats (at a random "
      "offset, "
      "with a random length). At first the loss sits on a plateau near log V (3.5 nats): the repeated tokens "
      "cannot be predicted yet. Then, within a couple of hundred steps, the two-layer model's loss falls "
      "below 1: "
      "layer 2's map snaps to the shifted diagonal, attending to the token after the earlier copy of the "
      "current one (an induction head), reading what layer 1's previous-token head wrote. The one-layer "
      "model "
      "has no earlier head to compose with: its loss only creeps down, with no sudden drop and no induction "
      "head.";
  d.steps = 2000;
  TrainConfig two;
  two.task = Task::Induction;
  two.seqLen = 32;
  two.vocabSize = 32;
  two.dModel = 64;
  two.dK = 16;
  two.heads = 1;
  two.layers = 2;
  two.residual = true;
  two.causal = true;
  two.batchSize = 32;
  two.learningRate = 2e-3;
  two.seed = 1;
  TrainConfig one = two;
  one.layers = 1;
  d.runs = {{"2 layers (residual stream)", two}, {"1 layer (residual stream)", one}};
  return d;
}

std::vector<Demonstration> build() {
  std::vector<Demonstration> out;
  {
    Demonstration d;
    d.id = "scaling";
    d.title = "Why 1/sqrt(d_k) matters";
    d.explanation =
        "Both runs learn the same task with d_k = 64. Without the 1/sqrt(d_k) factor the dot products "
        "grow with d_k, the softmax saturates on one key from the first step, its gradient vanishes and "
        "learning stalls; scaled, the logits stay near unit size and the map forms.";
    d.steps = 600;
    TrainConfig scaled = copyBase();
    scaled.dK = 64;
    scaled.optimizer = OptimizerKind::Sgd;
    scaled.learningRate = 0.5;
    scaled.mechanism = TrainMechanism::ScaledDot;
    TrainConfig unscaled = scaled;
    unscaled.mechanism = TrainMechanism::Dot;
    d.runs = {{"scaled 1/sqrt(d_k)", scaled}, {"unscaled dot product", unscaled}};
    out.push_back(d);
  }
  {
    Demonstration d;
    d.id = "collapse-init";
    d.title = "Attention collapse: a bad initialisation";
    d.explanation =
        "With W_Q and W_K started at zero every logit is zero, every map is uniform and the entropy "
        "stays at log N: no gradient reaches the query and key weights, so attention never forms and "
        "the task cannot be learned. Xavier initialisation breaks the symmetry.";
    d.steps = 600;
    TrainConfig good = copyBase();
    TrainConfig bad = good;
    bad.init = TrainInit::Bad;
    d.runs = {{"Xavier initialisation", good}, {"bad initialisation (W_Q = W_K = 0)", bad}};
    out.push_back(d);
  }
  {
    Demonstration d;
    d.id = "collapse-temperature";
    d.title = "Attention collapse: a too-high temperature";
    d.explanation =
        "Dividing the logits by a large temperature flattens every softmax: the maps stay near uniform, "
        "the entropy near log N, and the gradient reaching W_Q and W_K is divided by the temperature too, "
        "so learning crawls. At temperature 1 the same model learns the task.";
    d.steps = 600;
    TrainConfig normal = copyBase();
    normal.optimizer = OptimizerKind::Sgd;
    normal.learningRate = 0.5;
    TrainConfig hot = normal;
    hot.temperature = 100.0;
    d.runs = {{"temperature 1", normal}, {"temperature 100", hot}};
    out.push_back(d);
  }
  {
    Demonstration d;
    d.id = "entropy-regularisation";
    d.title = "Entropy regularisation pulls heads toward focus";
    d.explanation =
        "Adding the mean attention entropy to the loss rewards sharp maps: the regularised run's head "
        "entropy falls faster and further than the plain run's, which keeps spreading weight over keys "
        "it does not need.";
    d.steps = 600;
    TrainConfig plain = copyBase();
    plain.heads = 2;
    TrainConfig reg = plain;
    reg.entropyWeight = 0.1;
    d.runs = {{"no regularisation", plain}, {"entropy weight 0.1", reg}};
    out.push_back(d);
  }
  {
    Demonstration d;
    d.id = "grad-clipping";
    d.title = "Gradient clipping rescues a too-large learning rate";
    d.explanation =
        "Plain SGD at learning rate 2 overshoots: the logits grow, the gradient grows with them, and within "
        "a "
        "few steps the loss is no longer finite and the run stops. Rescaling each gradient to norm 0.1 "
        "before "
        "the step bounds every update to 2 x 0.1 = 0.2; at the same learning rate the clipped run learns the "
        "task to full accuracy and the map forms.";
    d.steps = 600;
    TrainConfig wild = copyBase();
    wild.optimizer = OptimizerKind::Sgd;
    wild.learningRate = 2.0;
    TrainConfig clipped = wild;
    clipped.gradClipNorm = 0.1;
    d.runs = {{"lr 2, no clipping", wild}, {"lr 2, clip norm 0.1", clipped}};
    out.push_back(d);
  }
  out.push_back(inductionDemo());
  return out;
}

}  // namespace

const std::vector<Demonstration>& demonstrations() {
  static const std::vector<Demonstration> all = build();
  return all;
}

std::optional<Demonstration> findDemonstration(std::string_view id) {
  for (const auto& d : demonstrations())
    if (d.id == id) return d;
  return std::nullopt;
}

std::string demonstrationIds() {
  std::string s;
  for (const auto& d : demonstrations()) {
    if (!s.empty()) s += ", ";
    s += d.id;
  }
  return s;
}

}  // namespace attn::train
