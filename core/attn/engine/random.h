#pragma once
// Deterministic, platform-independent random numbers: the same seed gives the
// same numbers with any standard library (std::normal_distribution does not).
#include <cmath>
#include <cstdint>
#include <string_view>

namespace attn {

/// SplitMix64 (Steele, Lea & Flood 2014) with uniform and Box–Muller normal draws.
class SeededRng {
 public:
  explicit SeededRng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  double normal() {
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t state_;
};

/// FNV-1a 64-bit hash, used to derive per-token and per-matrix streams.
inline uint64_t fnv1a(std::string_view s, uint64_t h = 0xcbf29ce484222325ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

/// Combines a user seed with a named stream ("w_q", "token:cat", ...).
inline uint64_t streamSeed(uint64_t seed, std::string_view stream) {
  SeededRng mix(seed ^ fnv1a(stream));
  return mix.next();
}

}  // namespace attn
