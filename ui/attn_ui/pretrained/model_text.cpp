#include "attn_ui/pretrained/model_text.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include "attn_ui/common/core_text.h"

namespace attn::ui {
namespace {

// lupdate reads ModelText::tr("...") calls into the context "ModelText".
class ModelText {
  Q_DECLARE_TR_FUNCTIONS(ModelText)
};

}  // namespace

QString parameterCountText(long long parameters) {
  const double p = static_cast<double>(parameters);
  if (parameters >= 1'000'000'000LL) return ModelText::tr("%1 B").arg(p / 1e9, 0, 'f', 2);
  if (parameters >= 1'000'000LL) return ModelText::tr("%1 M").arg(p / 1e6, 0, 'f', 1);
  if (parameters >= 1'000LL) return ModelText::tr("%1 K").arg(p / 1e3, 0, 'f', 1);
  return QString::number(parameters);
}

QString modelShapeText(const attn::models::ModelInfo& info) {
  // Two plural forms (%n), so a one-layer model reads "1 layer", not "1 layers".
  const QString layers = ModelText::tr("%n layer(s)", nullptr, info.layers);
  const QString heads = ModelText::tr("%n head(s) of %1", nullptr, info.heads).arg(info.headDim);
  QString s = ModelText::tr("%1 × %2", "layers × heads").arg(layers, heads);
  if (info.kvHeads > 0 && info.kvHeads != info.heads) s += ModelText::tr(" (%1 KV heads)").arg(info.kvHeads);
  return s;
}

QString modelFamilyText(const attn::models::ModelInfo& info) {
  const QString family = qs(attn::models::familyName(info.family));
  const QString type = QString::fromStdString(info.modelType);
  if (type.isEmpty() || QString(family).remove(QLatin1Char('-')).compare(type, Qt::CaseInsensitive) == 0)
    return family;
  return ModelText::tr("%1 (%2)").arg(family, type);
}

QString modelWeightsText(const attn::models::ModelInfo& info) {
  const QString q = QString::fromStdString(info.quantization);
  if (q.isEmpty()) return QString::fromStdString(info.dtype);
  // The core writes "Q4_K_M, 4.8 bits/weight" (as `info` prints it); the unit is translated here.
  static const QRegularExpression summary(QStringLiteral("^(.+), ([0-9.]+) bits/weight$"));
  const QRegularExpressionMatch m = summary.match(q);
  return m.hasMatch() ? ModelText::tr("%1, %2 bits/weight").arg(m.captured(1), m.captured(2)) : q;
}

FixedByModel fixedByModel(const attn::models::ModelInfo& info) {
  const QString name = QString::fromStdString(info.name);
  FixedByModel f;
  f.mechanism = ModelText::tr("Fixed by the model: %1 scores with scaled dot-product attention, softmax(q·k / √d_k).").arg(name);
  f.sizes = ModelText::tr("Fixed by the model: %1's %2 heads of %3 (d_model %4, %5 layers).")
                .arg(name, QString::number(info.heads), QString::number(info.headDim),
                     QString::number(info.dModel), QString::number(info.layers));
  f.temperature = ModelText::tr("Fixed by the model: %1 applies softmax at temperature 1, as it was trained.").arg(name);
  f.init = ModelText::tr("Fixed by the model: its weights are read from the model folder, not drawn from a seed.");
  f.mask = info.causal
               ? ModelText::tr("Fixed by the model: %1 is causal; each token attends to itself and the tokens before it.").arg(name)
               : ModelText::tr("Fixed by the model: %1 is bidirectional; every token attends to every token.").arg(name);
  f.positional = info.family == attn::models::Family::Llama
                     ? ModelText::tr("Fixed by the model: %1 rotates q and k by position (RoPE).").arg(name)
                     : ModelText::tr("Fixed by the model: %1 adds its learned position embeddings to the tokens.").arg(name);
  f.execution = ModelText::tr(
                    "Fixed by the model: %1 runs its own forward pass and keeps every head's weights "
                    "(Backend picks the CPU or the GPU).")
                    .arg(name);
  f.keyText = info.family == attn::models::Family::Bert
                  ? ModelText::tr("The second segment of a sentence pair (token type 1), as BERT reads \"[CLS] A [SEP] B [SEP]\".")
                  : ModelText::tr("%1 reads one text; a second segment applies to BERT-style models only.").arg(name);
  return f;
}

}  // namespace attn::ui
