#include "attn_ui/training/training_demos.h"

#include <QCoreApplication>

namespace attn::ui {
namespace {

struct DemoText {
  const char* id;
  const char* title;
  const char* explanation;
  const char* runs[2];
};

// The same text as core/attn/train/demonstrations.cpp, marked for translation.
constexpr DemoText kDemos[] = {
    {"scaling",
     QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "Why 1/√d_k matters"),
     QT_TRANSLATE_NOOP(
         "attn::ui::TrainingDemos",
         "Both runs learn the same task with d_k = 64. Without the 1/√d_k factor the dot products "
         "grow with d_k, the softmax saturates on one key from the first step, its gradient "
         "vanishes and learning stalls; scaled, the logits stay near unit size and the map forms."),
     {QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "scaled 1/√d_k"),
      QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "unscaled dot product")}},
    {"collapse-init",
     QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "Attention collapse: a bad initialisation"),
     QT_TRANSLATE_NOOP(
         "attn::ui::TrainingDemos",
         "With W_Q and W_K started at zero every logit is zero, every map is uniform and the "
         "entropy stays at log N: no gradient reaches the query and key weights, so attention "
         "never forms and the task cannot be learned. Xavier initialisation breaks the symmetry."),
     {QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "Xavier initialisation"),
      QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "bad initialisation (W_Q = W_K = 0)")}},
    {"collapse-temperature",
     QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "Attention collapse: a too-high temperature"),
     QT_TRANSLATE_NOOP(
         "attn::ui::TrainingDemos",
         "Dividing the logits by a large temperature flattens every softmax: the maps stay near "
         "uniform, the entropy near log N, and the gradient reaching W_Q and W_K is divided by the "
         "temperature too, so learning crawls. At temperature 1 the same model learns the task."),
     {QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "temperature 1"),
      QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "temperature 100")}},
    {"entropy-regularisation",
     QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "Entropy regularisation pulls heads toward focus"),
     QT_TRANSLATE_NOOP(
         "attn::ui::TrainingDemos",
         "Adding the mean attention entropy to the loss rewards sharp maps: the regularised run's "
         "head entropy falls faster and further than the plain run's, which keeps spreading weight "
         "over keys it does not need."),
     {QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "no regularisation"),
      QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "entropy weight 0.1")}},
    {"grad-clipping",
     QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "Gradient clipping rescues a too-large learning rate"),
     QT_TRANSLATE_NOOP(
         "attn::ui::TrainingDemos",
         "Plain SGD at learning rate 2 overshoots: the logits grow, the gradient grows with them, and "
         "within a few steps the loss is no longer finite and the run stops. Rescaling each gradient "
         "to norm 0.1 before the step bounds every update to 2 × 0.1 = 0.2; at the same learning rate "
         "the clipped run learns the task to full accuracy and the map forms."),
     {QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "lr 2, no clipping"),
      QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "lr 2, clip norm 0.1")}},
    {"induction",
     QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "Watch an induction head form"),
     QT_TRANSLATE_NOOP(
         "attn::ui::TrainingDemos",
         "Both models predict the next token of random sequences in which a segment repeats (at a "
         "random offset, with a random length). At first the loss sits on a plateau near log V (3.5 "
         "nats): the repeated tokens cannot be predicted yet. Then, within a couple of hundred steps, "
         "the two-layer model's loss falls below 1: layer 2's map snaps to the shifted diagonal, "
         "attending to the token after the earlier copy of the current one (an induction head), "
         "reading what layer 1's previous-token head wrote. The one-layer model has no earlier head "
         "to compose with: its loss only creeps down, with no sudden drop and no induction head."),
     {QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "2 layers (residual stream)"),
      QT_TRANSLATE_NOOP("attn::ui::TrainingDemos", "1 layer (residual stream)")}},
};

const DemoText* find(const std::string& id) {
  for (const DemoText& d : kDemos)
    if (id == d.id) return &d;
  return nullptr;
}

QString tr(const char* text) { return QCoreApplication::translate("attn::ui::TrainingDemos", text); }

}  // namespace

bool hasDemoText(const std::string& id) { return find(id) != nullptr; }

QString demoTitle(const attn::train::Demonstration& demo) {
  const DemoText* d = find(demo.id);
  return d ? tr(d->title) : QString::fromStdString(demo.title);
}

QString demoExplanation(const attn::train::Demonstration& demo) {
  const DemoText* d = find(demo.id);
  return d ? tr(d->explanation) : QString::fromStdString(demo.explanation);
}

QString demoRunLabel(const attn::train::Demonstration& demo, int i) {
  const DemoText* d = find(demo.id);
  if (d && i >= 0 && i < 2 && demo.runs.size() <= 2) return tr(d->runs[i]);
  return i >= 0 && i < static_cast<int>(demo.runs.size()) ? QString::fromStdString(demo.runs[static_cast<size_t>(i)].label)
                                                           : QString();
}

}  // namespace attn::ui
