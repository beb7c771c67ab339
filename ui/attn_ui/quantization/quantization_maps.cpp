#include "attn_ui/quantization/quantization_maps.h"

#include <QCoreApplication>
#include <QStringList>

namespace attn::ui {

std::shared_ptr<const attn::models::ModelRun> quantizationEffectRun(
    const std::shared_ptr<const attn::models::ModelRun>& base,
    const attn::models::QuantizationEffect& effect) {
  if (!base || base->layers.size() != effect.quantized.layers.size() ||
      base->firstLayer != effect.quantized.firstLayer)
    return nullptr;
  auto run = std::make_shared<attn::models::ModelRun>(*base);
  for (size_t l = 0; l < run->layers.size(); ++l) {
    auto& heads = run->layers[l].heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      attn::Mat delta = attn::models::quantizationDelta(effect, l, h);
      if (delta.rows() != heads[h].weights.rows() || delta.cols() != heads[h].weights.cols()) return nullptr;
      heads[h].weights = std::move(delta);
    }
  }
  return run;
}

QString quantizationEffectNote(const attn::models::QuantizationEffect& effect) {
  QStringList types;
  for (const auto& t : effect.types) types << QString::fromStdString(t);
  QString note = QCoreApplication::translate(
                     "attn::ui::QuantizationMaps",
                     "Quantized − full precision: %1 products on 8-bit activations (as llama.cpp) minus the "
                     "dequantized weights in f32. Largest |Δ| %2 (layer %3, head %4).")
                     .arg(types.join(QStringLiteral(", ")))
                     .arg(static_cast<double>(effect.largestChange), 0, 'g', 3)
                     .arg(effect.largestLayer + 1)
                     .arg(effect.largestHead + 1);
  if (effect.comparison.causal)
    note +=
        QLatin1Char(' ') + QCoreApplication::translate("attn::ui::QuantizationMaps", "Next-token KL %1 nats.")
                               .arg(effect.comparison.kl, 0, 'g', 3);
  return note;
}

}  // namespace attn::ui
