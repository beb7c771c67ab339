#include "attn_ui/variants/variant_walk_text.h"

#include <QCoreApplication>
#include <cmath>

#include "attn_ui/common/number_text.h"

namespace attn::ui {
namespace av = attn::variants;

namespace {

QString tr(const char* s) { return QCoreApplication::translate("VariantWalk", s); }

QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

// The columns a row table shows: at most 16 keys, those nearest the query.
std::vector<int> shownKeys(int count, int centre) {
  std::vector<int> keys;
  const int first = std::max(0, std::min(centre - 12, count - 16));
  for (int j = first; j < count && static_cast<int>(keys.size()) < 16; ++j) keys.push_back(j);
  return keys;
}

struct TableRow {
  QString name;
  std::vector<double> values;  // indexed by key
};

QString table(const std::vector<std::string>& keyLabels, const std::vector<int>& keys, const std::vector<TableRow>& rows,
              int memoryColumns = 0) {
  QString h = QStringLiteral("<table cellspacing='0' cellpadding='3' border='1' style='border-collapse:collapse'><tr><th></th>");
  for (int j : keys) {
    const QString label = j < static_cast<int>(keyLabels.size()) ? esc(keyLabels[static_cast<size_t>(j)]) : QString::number(j);
    h += j < memoryColumns ? QStringLiteral("<th style='color:#c85a14'>%1</th>").arg(label)
                           : QStringLiteral("<th>%1</th>").arg(label);
  }
  h += QStringLiteral("</tr>");
  for (const auto& r : rows) {
    h += QStringLiteral("<tr><th align='left'>%1</th>").arg(r.name);
    for (int j : keys)
      h += QStringLiteral("<td align='right'>%1</td>").arg(j < static_cast<int>(r.values.size()) ? numberText(r.values[static_cast<size_t>(j)]) : QString());
    h += QStringLiteral("</tr>");
  }
  return h + QStringLiteral("</table>");
}

std::vector<double> vals(const attn::Vec& v) { return {v.data(), v.data() + v.size()}; }

std::vector<VariantStep> xlSteps(const av::VariantRun& run, int head, int row, QString* error) {
  const auto& xl = *run.xl;
  const int seg = std::min(row / std::max(xl.segmentLength, 1), static_cast<int>(xl.segments.size()) - 1);
  auto w = av::xlRowWalk(xl, head, seg, row - xl.segments[static_cast<size_t>(seg)].start);
  if (!w) {
    if (error) *error = QString::fromStdString(w.error().message);
    return {};
  }
  std::vector<std::string> labels;
  for (int p : w->keyPositions) labels.push_back(p < static_cast<int>(run.tokens.size()) ? run.tokens[static_cast<size_t>(p)] : "");
  const auto keys = shownKeys(static_cast<int>(labels.size()), w->memLength + w->row);
  std::vector<double> dist(w->distances.begin(), w->distances.end());
  std::vector<VariantStep> s;
  s.push_back({tr("Keys: memory, then the segment"),
               tr("Query %1 is in segment %2. It attends over %3 cached memory token(s) (orange: keys and values of the "
                  "previous segment, kept without gradient) and its own segment up to itself. Positions enter only as "
                  "the distance i − j.")
                       .arg(w->absoluteQuery)
                       .arg(w->segment + 1)
                       .arg(w->memLength) +
                   table(labels, keys, {{tr("distance i − j"), dist}}, w->memLength)});
  s.push_back({tr("Content terms (a) and (c)"),
               tr("(a) q<sub>i</sub>·k<sub>j</sub> is what the query looks for in the key; (c) u·k<sub>j</sub> is a "
                  "learned global bias toward some keys whatever the query (u replaces the query's absolute position).") +
                   table(labels, keys, {{tr("(a) q·k"), vals(w->a)}, {tr("(c) u·k"), vals(w->c)}}, w->memLength)});
  s.push_back({tr("Position terms (b) and (d)"),
               tr("r<sub>i−j</sub> = R<sub>i−j</sub> W<sub>k,R</sub> encodes the distance with a sinusoid. (b) "
                  "q<sub>i</sub>·r<sub>i−j</sub> lets the query prefer some distances; (d) v·r<sub>i−j</sub> is a global "
                  "distance bias. Because only distances appear, the cached memory needs no new positions.") +
                   table(labels, keys, {{tr("(b) q·r"), vals(w->b)}, {tr("(d) v·r"), vals(w->d)}}, w->memLength)});
  s.push_back({tr("Sum and scale"),
               tr("A<sub>ij</sub> = (a) + (b) + (c) + (d), times 1/√d<sub>head</sub> = %1. Keys after the query are "
                  "hidden (−∞).")
                       .arg(numberText(w->scale)) +
                   table(labels, keys, {{tr("sum"), vals(w->sum)}, {tr("scaled logit"), vals(w->logits)}}, w->memLength)});
  s.push_back({tr("Softmax over memory and segment"),
               tr("The weights sum to 1 across both parts; %1 of this query's weight goes to the memory. With several "
                  "layers each layer's memory holds the layer below, so the reach grows by about M per layer.")
                       .arg(numberText(w->memoryShare, 3)) +
                   table(labels, keys, {{tr("weight"), vals(w->weights)}}, w->memLength)});
  return s;
}

std::vector<VariantStep> spanSteps(const av::VariantRun& run, int head, int row, QString* error) {
  const auto& base = run.base->heads[static_cast<size_t>(head)];
  const double z = run.span[static_cast<size_t>(head)].z;
  auto w = av::spanRowWalk(base.weights, z, run.options.spanRamp, row);
  if (!w) {
    if (error) *error = QString::fromStdString(w.error().message);
    return {};
  }
  const auto& labels = run.base->keyTokens;
  const auto keys = shownKeys(static_cast<int>(labels.size()), row);
  std::vector<double> dist(w->distances.begin(), w->distances.end());
  return {
      {tr("The soft span mask"),
       tr("m<sub>z</sub>(x) = clamp((R + z − x)/R, 0, 1) with z = %1, R = %2: keys within z of the query count fully, "
          "the next R fade out, the rest are cut. z is learned per head; a small z makes a local head that is cheap to "
          "run.")
               .arg(numberText(z))
               .arg(numberText(w->ramp)) +
           table(labels, keys, {{tr("distance x"), dist}, {tr("m(x)"), vals(w->mask)}})},
      {tr("Mask the weights"),
       tr("The softmax weights a<sub>j</sub> are multiplied by m(x<sub>j</sub>); what is left sums to %1.")
               .arg(numberText(w->maskedSum)) +
           table(labels, keys, {{tr("a"), vals(w->before)}, {tr("m·a"), vals(w->masked)}})},
      {tr("Renormalise"),
       tr("Dividing by the sum gives weights that add up to 1 again: the same as masking e<sup>s</sup> before the "
          "softmax normaliser (eq. 4 of Sukhbaatar et al. 2019).") +
           table(labels, keys, {{tr("a'"), vals(w->after)}})}};
}

std::vector<VariantStep> dynconvSteps(const av::VariantRun& run, int head, int row, QString* error) {
  const auto& dc = *run.dynconv;
  const auto& h = dc.heads[static_cast<size_t>(head)];
  if (row < 0 || row >= h.kernel.rows()) {
    if (error) *error = tr("row %1 is out of range").arg(row);
    return {};
  }
  std::vector<std::string> taps;
  std::vector<int> tapKeys;
  for (int t = 0; t < dc.kernelWidth; ++t) {
    const int j = row + t - dc.offset;
    taps.push_back(j >= 0 && j < static_cast<int>(run.tokens.size()) ? run.tokens[static_cast<size_t>(j)]
                                                                      : tr("(pad)").toStdString());
    tapKeys.push_back(t);
  }
  const attn::Vec logits = h.kernelLogits.row(row).transpose(), kernel = h.kernel.row(row).transpose();
  double kept = 0;
  for (int t = 0; t < dc.kernelWidth; ++t) {
    const int j = row + t - dc.offset;
    if (j >= 0 && j < static_cast<int>(run.tokens.size())) kept += kernel(t);
  }
  return {{tr("Predict the kernel from this token alone"),
           tr("f(x<sub>i</sub>) = x<sub>i</sub> W gives k = %1 numbers for this head, one per tap of the window. Unlike "
              "attention, no key is looked at: the kernel depends on the query position's own input.")
                   .arg(dc.kernelWidth) +
               table(taps, tapKeys, {{tr("f(x_i)"), vals(logits)}})},
          {tr("Softmax over the taps"),
           tr("The kernel is normalised over its k taps (weight normalisation, Wu et al. 2019, eq. 2).") +
               table(taps, tapKeys, {{tr("kernel"), vals(kernel)}})},
          {tr("The banded attention map"),
           tr("Placed at columns i − %1 … i − %1 + k − 1, the kernel is row i of an attention map that is zero outside "
              "the band. Taps on the padding read zeros, so this row keeps %2 of its weight.")
                   .arg(dc.offset)
                   .arg(numberText(kept, 3))}};
}

std::vector<VariantStep> hopSteps(const av::VariantRun& run, int head, int row, QString* error) {
  const auto& hops = run.hops[static_cast<size_t>(head)].hops;
  if (row < 0 || row >= hops.front().weights.rows()) {
    if (error) *error = tr("row %1 is out of range").arg(row);
    return {};
  }
  const auto& labels = run.base->keyTokens;
  const auto keys = shownKeys(static_cast<int>(labels.size()), row);
  std::vector<VariantStep> s;
  for (size_t t = 0; t < hops.size(); ++t) {
    const auto& hop = hops[t];
    Eigen::Index top = 0;
    hop.weights.row(row).maxCoeff(&top);
    QString update;
    if (t + 1 < hops.size())
      update = run.options.hopUpdate == av::HopUpdate::Add
                   ? tr("Next query: q<sub>%1</sub> = q<sub>%2</sub> + o<sub>%2</sub>.").arg(t + 2).arg(t + 1)
                   : tr("Next query: q<sub>%1</sub> = q<sub>%2</sub> H + o<sub>%2</sub>.").arg(t + 2).arg(t + 1);
    s.push_back({tr("Hop %1").arg(t + 1),
                 tr("|q<sub>%1</sub>| = %2. The weights peak at “%3” (%4); entropy %5 nats. %6")
                         .arg(t + 1)
                         .arg(numberText(hop.query.row(row).norm()))
                         .arg(top < static_cast<Eigen::Index>(labels.size()) ? esc(labels[static_cast<size_t>(top)]) : QString())
                         .arg(numberText(hop.weights(row, top), 3))
                         .arg(numberText(hop.entropy(row), 3))
                         .arg(update) +
                     table(labels, keys, {{tr("weight"), vals(hop.weights.row(row).transpose())}})});
  }
  return s;
}

std::vector<VariantStep> precisionSteps(const av::VariantRun& run, const attn::AttentionInput& input, int head, int row,
                                        QString* error) {
  auto w = av::precisionRowWalk(*run.precision, input, head, row);
  if (!w) {
    if (error) *error = QString::fromStdString(w.error().message);
    return {};
  }
  const auto& labels = run.base->keyTokens;
  const auto keys = shownKeys(static_cast<int>(labels.size()), row);
  const QString fmt = QString::fromUtf8(av::precisionName(run.precision->options.format).data());
  std::vector<VariantStep> s;
  s.push_back({tr("Logits in fp32 and in %1").arg(fmt),
               tr("Q and K are rounded to %1 (or quantized to 8-bit integers with a scale), the dot products taken and "
                  "the logits stored in the low format.")
                       .arg(fmt) +
                   table(labels, keys, {{tr("fp32"), vals(w->logits32)}, {fmt, vals(w->logitsLow)}})});
  s.push_back({tr("fp16 softmax without subtracting the max"),
               tr("e<sup>s</sup> exceeds fp16's largest value 65504 once s > ln 65504 ≈ 11.09; then it is ∞, the sum is "
                  "∞ and the weights become ∞/∞ = NaN (or x/∞ = 0). This row's fp16 sum: %1.")
                       .arg(numberText(w->sumNoMax)) +
                   table(labels, keys, {{tr("fp16 e^s"), vals(w->expNoMax)}, {tr("weight"), vals(w->weightsNoMax)}})});
  s.push_back({tr("Subtract the row max first"),
               tr("With m = %1 every e<sup>s−m</sup> lies in (0, 1], so nothing overflows and the sum is at most the "
                  "number of keys. The fp16 sum %2 against %3 in fp32: small terms are lost next to large ones (fp16 "
                  "keeps about 3 digits), which is why the sum and the normalisation run in fp32.")
                       .arg(numberText(w->rowMax))
                       .arg(numberText(w->sumWithMaxHalf, 6))
                       .arg(numberText(w->sumWithMax32, 6)) +
                   table(labels, keys, {{tr("fp16 e^(s−m)"), vals(w->expWithMax)}})});
  s.push_back({tr("The map in %1 against fp32").arg(fmt),
               tr("KL(fp32 ‖ %1) for this row = %2 nats; the most attended key %3.")
                       .arg(fmt)
                       .arg(numberText(w->rowKl, 3))
                       .arg(w->topOneSame ? tr("is the same") : tr("changes")) +
                   table(labels, keys, {{tr("fp32"), vals(w->weights32)}, {fmt, vals(w->weightsLow)}})});
  if (w->hasEmbedding)
    s.push_back({tr("Why LayerNorm stays in fp32"),
                 tr("LayerNorm needs the variance of a row. Computed in fp16 as E[x²] − E[x]², this token's embedding "
                    "gives %1 (fp32: %2). Activations 16× larger, common in deep models, give %3 (fp32: %4): the fp16 "
                    "sum of squares reaches %5 and squares above 65504 (|x| > 256) overflow outright, while the "
                    "subtraction of two close large numbers cancels the digits that matter. Mixed-precision training "
                    "and inference therefore keep LayerNorm and softmax statistics in fp32.")
                         .arg(numberText(w->varHalf))
                         .arg(numberText(w->var32))
                         .arg(numberText(w->varHalfx16))
                         .arg(numberText(w->var32x16))
                         .arg(numberText(w->sumSquaresHalfx16))});
  return s;
}

}  // namespace

std::vector<VariantStep> variantWalkSteps(const av::VariantRun& run, const attn::AttentionInput& input, int head,
                                          int row, QString* error) {
  if (head < 0 || head >= run.numHeads()) {
    if (error) *error = tr("head %1 is out of range").arg(head + 1);
    return {};
  }
  if (run.xl) return xlSteps(run, head, row, error);
  if (!run.span.empty()) return spanSteps(run, head, row, error);
  if (run.dynconv) return dynconvSteps(run, head, row, error);
  if (!run.hops.empty()) return hopSteps(run, head, row, error);
  if (run.precision) return precisionSteps(run, input, head, row, error);
  return {};
}

QString variantDisplayName(av::VariantKind kind) {
  switch (kind) {
    case av::VariantKind::SegmentMemory: return tr("Segment memory (Transformer-XL)");
    case av::VariantKind::AdaptiveSpan: return tr("Adaptive span");
    case av::VariantKind::DynamicConv: return tr("Dynamic convolution");
    case av::VariantKind::MultiHop: return tr("Multi-hop attention");
    case av::VariantKind::Precision: return tr("Reduced precision / INT8");
  }
  return {};
}

QString variantToolTip(av::VariantKind kind) {
  switch (kind) {
    case av::VariantKind::SegmentMemory:
      return tr("Dai et al. 2019: each segment attends over the cached previous tokens (memory, drawn in orange) and "
                "itself, with relative positions and the u, v biases.");
    case av::VariantKind::AdaptiveSpan:
      return tr("Sukhbaatar et al. 2019: each head keeps keys within a learned span z, softly cut by "
                "m(x) = clamp((R + z − x)/R, 0, 1), then renormalises.");
    case av::VariantKind::DynamicConv:
      return tr("Wu et al. 2019: a softmax-normalised kernel over a window, predicted from each token alone; drawn as "
                "the equivalent banded attention map.");
    case av::VariantKind::MultiHop:
      return tr("Sukhbaatar et al. 2015 (memory networks): attention applied k times, the query updated by each hop's "
                "output; one map and entropy per hop.");
    case av::VariantKind::Precision:
      return tr("fp16/bf16 or INT8 Q/K (or projections) against fp32: the error map, KL and top-1 agreement, and where "
                "an fp16 softmax without max subtraction overflows.");
  }
  return {};
}

}  // namespace attn::ui
