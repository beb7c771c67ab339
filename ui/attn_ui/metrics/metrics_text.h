#pragma once
// Words for the metrics panel: a head's values (bar tooltip), collapse flags
// and the thresholds behind them. Numbers come from attn::Analysis as is.
#include <QString>

#include "attn/metrics.h"

namespace attn::ui {

/// "Head 3" and every per-head measure with its unit, one per line.
QString headSummaryText(const attn::Analysis& an, int head);
/// One line per flagged head (near-uniform / near-one-hot) and per analysis
/// warning; empty when nothing is wrong.
QString collapseFlagsText(const attn::Analysis& an, const QString& label = QString());
/// The thresholds the flags use, in words.
QString thresholdsText(const attn::AnalysisOptions& o);
/// Measure label with its unit, e.g. "mean entropy (nats)".
QString measureAxisLabel(const attn::HeadMeasure& m, attn::EntropyUnit unit);

}  // namespace attn::ui
