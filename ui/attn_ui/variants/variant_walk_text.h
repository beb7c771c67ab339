#pragma once
// The step-through of one query row for each variant, as translated rich-text
// steps (title + body with the row's numbers). Every number comes from core
// (attn::variants::*RowWalk, the variant run); this file only formats.
#include <QString>
#include <QStringList>
#include <vector>

#include "attn/engine.h"
#include "attn/variants/variant_run.h"

namespace attn::ui {

struct VariantStep {
  QString title;
  QString body;  // rich text
};

/// The steps for query `row` of `head` (for xl: `row` is absolute and the
/// segment holding it is walked). An empty list with `error` set when the row
/// cannot be walked.
std::vector<VariantStep> variantWalkSteps(const attn::variants::VariantRun& run, const attn::AttentionInput& input,
                                          int head, int row, QString* error = nullptr);

/// The tooltip of a variant in the selector (English source, translated).
QString variantToolTip(attn::variants::VariantKind kind);
/// The selector's display name of a variant.
QString variantDisplayName(attn::variants::VariantKind kind);

}  // namespace attn::ui
