#include "attn_ui/training/training_induction.h"

#include <QCoreApplication>
#include <algorithm>

#include "attn/train/induction_scores.h"

namespace attn::ui {

namespace {
QString trInduction(const char* text) {
  return QCoreApplication::translate("attn::ui::TrainingInduction", text);
}
}  // namespace

void bestInductionScores(const attn::train::StepSnapshot& s, int layers, int heads, double* induction,
                         double* previousToken) {
  double ind = 0, prev = 0;
  const size_t last = static_cast<size_t>(std::max(0, layers - 1) * heads);
  for (int h = 0; h < heads; ++h) {
    if (last + h < s.inductionScore.size()) ind = std::max(ind, s.inductionScore[last + h]);
    if (static_cast<size_t>(h) < s.previousTokenScore.size()) prev = std::max(prev, s.previousTokenScore[h]);
  }
  if (induction) *induction = ind;
  if (previousToken) *previousToken = prev;
}

InductionCurves inductionCurves(const TrainingRunView& run, const QString& prefix, const QColor& color) {
  InductionCurves c;
  if (run.config.task != attn::train::Task::Induction) return c;
  const QString lead = prefix.isEmpty() ? QString() : prefix + QStringLiteral(": ");
  c.induction = {lead + trInduction("induction, layer %1").arg(run.config.layers), color, {}, {}, false};
  c.previousToken = {lead + trInduction("previous-token, layer 1"), color.darker(150), {}, {}, true};
  std::vector<double> ind;
  for (const attn::train::StepSnapshot& s : run.steps) {
    double i = 0, p = 0;
    bestInductionScores(s, run.config.layers, run.config.heads, &i, &p);
    c.induction.steps << s.step;
    c.induction.values << i;
    c.previousToken.steps << s.step;
    c.previousToken.values << p;
    ind.push_back(i);
  }
  c.phaseChangeStep = attn::train::firstLastingStep(ind, kPhaseChangeScore);
  return c;
}

}  // namespace attn::ui
