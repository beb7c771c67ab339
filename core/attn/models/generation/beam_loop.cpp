#include "attn/models/generation/beam_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/models/generation/token_sampler.h"
#include "attn/models/seq2seq/greedy_search.h"

namespace attn::models {
namespace {

/// The `k` best cells of `scores`, best first (ties: the smaller index, as torch.topk on CPU).
std::vector<int> bestBeamCells(const std::vector<float>& scores, int k) {
  std::vector<int> idx(scores.size());
  std::iota(idx.begin(), idx.end(), 0);
  k = std::min<int>(k, static_cast<int>(idx.size()));
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&scores](int a, int b) {
    const float sa = scores[static_cast<size_t>(a)], sb = scores[static_cast<size_t>(b)];
    return sa > sb || (sa == sb && a < b);
  });
  idx.resize(static_cast<size_t>(k));
  return idx;
}

/// Beam sampling (transformers' beam search with do_sample): `k` cells drawn without
/// replacement from the softmax over every beam's warped scores plus its running score (one
/// uniform per draw, drawToken over the cells not yet drawn, as torch.multinomial(probs, k)
/// draws them), then sorted best score first. Fewer than `k` when fewer cells have mass.
std::vector<int> sampledBeamCells(const std::vector<float>& scores, int k, SamplingRng& rng) {
  std::vector<double> probs = softmaxDouble(scores.data(), scores.size());
  std::vector<int> cells;
  for (int i = 0; i < k; ++i) {
    if (std::none_of(probs.begin(), probs.end(), [](double p) { return p > 0; })) break;
    const int cell = drawToken(probs, rng.uniform());
    cells.push_back(cell);
    probs[static_cast<size_t>(cell)] = 0.0;
  }
  std::stable_sort(cells.begin(), cells.end(), [&scores](int a, int b) {
    return scores[static_cast<size_t>(a)] > scores[static_cast<size_t>(b)];
  });
  return cells;
}

struct OpenBeam {
  std::vector<int> ids;  // the prompt first; the last one not yet fed to its state
  float score = 0.0f;
};

}  // namespace

void logSoftmaxRow(const float* x, int n, float* out) {
  const float m = *std::max_element(x, x + n);
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += std::exp(x[i] - m);
  const float lse = m + std::log(sum);
  for (int i = 0; i < n; ++i) out[i] = x[i] - lse;
}

std::string describeSearch(const GenerationSettings& g, int beams, const BeamSettings& b) {
  if (beams <= 1) return g.sampling.enabled ? describeSampling(g.sampling) : std::string("greedy");
  const std::string beam =
      fmt::format("{} beams, length_penalty {}, early_stopping {}", beams, b.lengthPenalty, b.earlyStopping);
  if (!g.sampling.enabled) return fmt::format("beam search ({})", beam);
  const SamplingSettings& s = g.sampling;
  return fmt::format("beam sampling ({}, top_k {}, top_p {}, temperature {}, seed {})", beam, s.topK, s.topP,
                     s.temperature, s.seed);
}

void BeamHypotheses::add(const std::vector<int>& ids, double sumLogprobs, int generated) {
  const double score = sumLogprobs / std::pow(static_cast<double>(generated), lengthPenalty_);
  if (static_cast<int>(kept_.size()) >= beams_ && score <= worst_) return;
  kept_.emplace_back(score, ids);
  if (static_cast<int>(kept_.size()) > beams_) {  // drop the worst (the first of equal ones)
    std::vector<size_t> order(kept_.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [this](size_t a, size_t b) { return kept_[a].first < kept_[b].first; });
    worst_ = kept_[order[1]].first;
    kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(order[0]));
  } else {
    worst_ = std::min(score, worst_);
  }
}

bool BeamHypotheses::isDone(double bestSum, int generated) const {
  if (static_cast<int>(kept_.size()) < beams_) return false;
  if (earlyStopping_) return true;
  return worst_ >= bestSum / std::pow(static_cast<double>(generated), lengthPenalty_);
}

const std::vector<int>& BeamHypotheses::best() const {
  size_t best = 0;
  for (size_t i = 1; i < kept_.size(); ++i)
    if (kept_[i].first >= kept_[best].first) best = i;  // stable sort's last among ties
  return kept_[best].second;
}

std::vector<BeamHypothesis> BeamHypotheses::ranked() const {
  std::vector<BeamHypothesis> sorted;
  for (const auto& [score, ids] : kept_) sorted.push_back({score, ids});
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const BeamHypothesis& a, const BeamHypothesis& b) { return a.score < b.score; });
  std::reverse(sorted.begin(), sorted.end());  // popped from the end
  return sorted;
}

Result<std::vector<BeamHypothesis>> runBeamSearch(BeamStepper& stepper, const std::vector<int>& prompt, int V,
                                                  const GenerationSettings& g, const BeamSettings& b,
                                                  int maxLength, const std::string& src,
                                                  const ProgressFn& progress) {
  const int B = b.beams, promptLen = static_cast<int>(prompt.size());
  std::vector<OpenBeam> beams(static_cast<size_t>(B), OpenBeam{prompt, 0.0f});
  for (int i = 1; i < B; ++i) beams[static_cast<size_t>(i)].score = -1e9f;  // the first step from beam 0
  BeamHypotheses hyps(B, b.lengthPenalty, b.earlyStopping);
  // transformers keeps max(2, 1 + the EOS ids) x beams candidates a step, so that EOS tokens
  // cannot leave fewer than `beams` open; beam sampling's warpers keep 1 + the EOS ids a row.
  int eosCount = static_cast<int>(g.eosTokenIds.size());  // a list holds eosTokenId too
  if (eosCount == 0 && g.eosTokenId >= 0) eosCount = 1;
  const int candidates = std::max(2, 1 + eosCount) * B;
  SamplingRng rng(g.sampling.seed);
  bool done = false;
  std::vector<float> scores(static_cast<size_t>(B) * static_cast<size_t>(V)), logits;
  while (static_cast<int>(beams[0].ids.size()) < maxLength) {
    if (progress && !progress(static_cast<double>(beams[0].ids.size()) / maxLength, "beam search"))
      return Error{src + ": cancelled"};
    for (int i = 0; i < B; ++i) {
      const OpenBeam& beam = beams[static_cast<size_t>(i)];
      if (auto st = stepper.feed(i, beam.ids.back(), logits); !st) return st.error();
      float* row = scores.data() + static_cast<size_t>(i) * static_cast<size_t>(V);
      logSoftmaxRow(logits.data(), V, row);
      processScores(row, V, beam.ids, g, maxLength);
      if (g.sampling.enabled) warpScores(row, V, g.sampling, 1 + eosCount);
      for (int t = 0; t < V; ++t) row[t] += beam.score;
    }
    const std::vector<int> top =
        g.sampling.enabled ? sampledBeamCells(scores, candidates, rng) : bestBeamCells(scores, candidates);
    if (top.empty()) return Error{fmt::format("{}: every next token was removed", src)};
    const int generated = static_cast<int>(beams[0].ids.size()) + 1 - promptLen;
    std::vector<OpenBeam> next;
    std::vector<int> parents;
    for (size_t rank = 0; rank < top.size() && static_cast<int>(next.size()) < B; ++rank) {
      const int cell = top[rank], from = cell / V, token = cell % V;
      const float score = scores[static_cast<size_t>(cell)];
      const OpenBeam& parent = beams[static_cast<size_t>(from)];
      if (g.isEos(token)) {
        if (static_cast<int>(rank) < B) hyps.add(parent.ids, score, generated);
        continue;
      }
      OpenBeam child{parent.ids, score};
      child.ids.push_back(token);
      next.push_back(std::move(child));
      parents.push_back(from);
    }
    done = done || hyps.isDone(scores[static_cast<size_t>(top[0])], generated);
    beams = std::move(next);
    stepper.reorder(parents);
    if (done || static_cast<int>(beams.size()) < B) break;
  }
  if (!done)
    for (const OpenBeam& beam : beams)
      hyps.add(beam.ids, beam.score, static_cast<int>(beam.ids.size()) - promptLen);
  if (hyps.size() == 0) return Error{fmt::format("{}: beam search closed no hypothesis", src)};
  std::vector<BeamHypothesis> out = hyps.ranked();
  for (BeamHypothesis& h : out)
    if (static_cast<int>(h.ids.size()) < maxLength && g.eosTokenId >= 0) h.ids.push_back(g.eosTokenId);
  return out;
}

}  // namespace attn::models
