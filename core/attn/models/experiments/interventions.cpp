#include "attn/models/experiments/interventions.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "attn/masks/mask.h"

namespace attn::models {
namespace {

bool parseInt(std::string_view s, int& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

Error badSpec(std::string_view spec, std::string_view why) {
  return Error{fmt::format(
      "--intervene '{}': {} (expected ablate:L.H, uniform:L.H, temperature:L.H=T or mask:L.H=SPEC, "
      "L and H from 1)",
      spec, why)};
}

}  // namespace

std::string_view interventionKindName(InterventionKind k) {
  switch (k) {
    case InterventionKind::Ablate: return "ablate";
    case InterventionKind::Uniform: return "uniform";
    case InterventionKind::Temperature: return "temperature";
    case InterventionKind::Mask: return "mask";
  }
  return "?";
}

Result<HeadIntervention> parseIntervention(std::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) return badSpec(spec, "no ':' after the kind");
  const std::string_view kind = spec.substr(0, colon);
  HeadIntervention iv;
  if (kind == "ablate") iv.kind = InterventionKind::Ablate;
  else if (kind == "uniform") iv.kind = InterventionKind::Uniform;
  else if (kind == "temperature") iv.kind = InterventionKind::Temperature;
  else if (kind == "mask") iv.kind = InterventionKind::Mask;
  else return badSpec(spec, fmt::format("unknown kind '{}'", kind));
  std::string_view rest = spec.substr(colon + 1);
  const size_t eq = rest.find('=');
  const std::string_view where = rest.substr(0, eq);
  const bool wantsValue = iv.kind == InterventionKind::Temperature || iv.kind == InterventionKind::Mask;
  if (wantsValue && eq == std::string_view::npos) return badSpec(spec, fmt::format("{} needs '=' and a value", kind));
  if (!wantsValue && eq != std::string_view::npos) return badSpec(spec, fmt::format("{} takes no '=' value", kind));
  const size_t dot = where.find('.');
  int layer = 0, head = 0;
  if (dot == std::string_view::npos || !parseInt(where.substr(0, dot), layer) ||
      !parseInt(where.substr(dot + 1), head))
    return badSpec(spec, fmt::format("'{}' is not LAYER.HEAD", where));
  if (layer < 1 || head < 1) return badSpec(spec, "layers and heads count from 1");
  iv.layer = layer - 1;
  iv.head = head - 1;
  if (iv.kind == InterventionKind::Temperature) {
    const std::string value(rest.substr(eq + 1));
    char* end = nullptr;
    const double t = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(t) || t <= 0)
      return badSpec(spec, fmt::format("temperature '{}' is not a positive number", value));
    iv.temperature = static_cast<float>(t);
  } else if (iv.kind == InterventionKind::Mask) {
    iv.mask = std::string(rest.substr(eq + 1));
    auto m = Mask::parse(iv.mask);
    if (!m) return badSpec(spec, fmt::format("mask '{}': {}", iv.mask, m.error().message));
    if (m->isNone()) return badSpec(spec, "the mask term is empty");
  }
  return iv;
}

std::string formatIntervention(const HeadIntervention& iv) {
  std::string s = fmt::format("{}:{}.{}", interventionKindName(iv.kind), iv.layer + 1, iv.head + 1);
  if (iv.kind == InterventionKind::Temperature) s += fmt::format("={}", iv.temperature);
  if (iv.kind == InterventionKind::Mask) s += "=" + iv.mask;
  return s;
}

Result<std::vector<std::vector<HeadEdit>>> headEdits(int layers, int heads, const Encoding& enc,
                                                     const std::vector<uint8_t>& modelKeep,
                                                     const std::vector<HeadIntervention>& interventions,
                                                     const std::string& source) {
  std::vector<std::vector<HeadEdit>> edits(static_cast<size_t>(std::max(layers, 0)));
  const int n = enc.size();
  for (const auto& iv : interventions) {
    const std::string what = formatIntervention(iv);
    if (iv.layer < 0 || iv.layer >= layers)
      return Error{fmt::format("{}: intervention '{}': layer {} does not exist (the model has layers 1 to {})",
                               source, what, iv.layer + 1, layers)};
    if (iv.head < 0 || iv.head >= heads)
      return Error{fmt::format("{}: intervention '{}': head {} does not exist (the model has heads 1 to {})", source,
                               what, iv.head + 1, heads)};
    auto& layer = edits[static_cast<size_t>(iv.layer)];
    if (layer.empty()) layer.resize(static_cast<size_t>(heads));
    HeadEdit& e = layer[static_cast<size_t>(iv.head)];
    switch (iv.kind) {
      case InterventionKind::Ablate: e.zero = true; break;
      case InterventionKind::Uniform: e.uniform = true; break;
      case InterventionKind::Temperature:
        if (!(iv.temperature > 0) || !std::isfinite(iv.temperature))
          return Error{fmt::format("{}: intervention '{}': the temperature must be a positive number", source, what)};
        e.invTemperature *= 1.0f / iv.temperature;
        break;
      case InterventionKind::Mask: {
        auto m = Mask::parse(iv.mask);
        if (m) m = m->bind(n, n, enc.tokens.size() == static_cast<size_t>(n) ? enc.tokens : std::vector<std::string>{});
        if (!m)
          return Error{fmt::format("{}: intervention '{}': mask '{}': {}", source, what, iv.mask, m.error().message)};
        std::vector<uint8_t> add = m->isNone() ? std::vector<uint8_t>{} : m->bitmap(n, n);
        if (add.empty()) break;
        if (e.keep.empty()) e.keep = modelKeep.empty() ? std::vector<uint8_t>(add.size(), 1) : modelKeep;
        for (size_t i = 0; i < add.size(); ++i) e.keep[i] = static_cast<uint8_t>(e.keep[i] != 0 && add[i] != 0);
        break;
      }
    }
  }
  return edits;
}

int firstEditedLayer(const std::vector<std::vector<HeadEdit>>& edits) {
  for (size_t l = 0; l < edits.size(); ++l)
    if (!edits[l].empty()) return static_cast<int>(l);
  return static_cast<int>(edits.size());
}

int reusableLayers(const ForwardCache* cache, const void* weights, const Encoding& enc, int layers, int firstEdited,
                   int firstStoredLayer) {
  if (!cache || firstEdited < 0 || cache->owner != weights || cache->ids != enc.ids ||
      cache->typeIds != enc.typeIds || cache->attention != enc.attention ||
      cache->layerInputs.size() != static_cast<size_t>(layers))
    return 0;
  int start = std::min(firstEdited, layers - 1);  // no edit at all: still run the last layer
  if (firstStoredLayer >= 0) start = std::min(start, firstStoredLayer);
  else start = 0;
  return std::max(start, 0);
}

}  // namespace attn::models
