#pragma once
// What the training view draws for the induction task: the previous-token
// score of layer 1 and the induction score of the last layer over the steps
// (the best head of each layer, from the core's StepSnapshot scores), and the
// step of the phase change: where the induction score passes 0.5 for good.
#include <QVector>

#include "attn_ui/training/training_controller.h"
#include "attn_ui/training/training_curve_chart.h"

namespace attn::ui {

/// The score at which the training view marks the phase change.
inline constexpr double kPhaseChangeScore = 0.5;

struct InductionCurves {
  CurveSeries induction;      // last layer, best head
  CurveSeries previousToken;  // layer 1, best head
  int phaseChangeStep = -1;   // first step of a lasting induction score >= kPhaseChangeScore
};

/// Empty series unless `run` trains the induction task. `prefix` starts each name
/// (a demonstration's run label, or empty).
InductionCurves inductionCurves(const TrainingRunView& run, const QString& prefix, const QColor& color);

/// The best head's induction (last layer) and previous-token (layer 1) score of one step.
void bestInductionScores(const attn::train::StepSnapshot& s, int layers, int heads, double* induction,
                         double* previousToken);

}  // namespace attn::ui
