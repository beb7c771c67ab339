#include "attn/cpu/cpu_level.h"

#include <cstdlib>

namespace attn::cpu {
namespace {

struct Choice {
  Level level = Level::Baseline;
  std::string warning;
};

bool supports(Level level) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();  // safe to call again; needed when first used before main()
  switch (level) {
    case Level::Baseline:
      return true;
    case Level::Avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Level::Avx512:
      return supports(Level::Avx2) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  }
  return false;
#else
  return level == Level::Baseline;
#endif
}

bool available(Level level) {
  for (Level l : availableLevels())
    if (l == level) return true;
  return false;
}

Choice choose() {
  Choice c;
  for (Level l : availableLevels())
    if (supports(l)) c.level = l;  // the highest available one this CPU runs
  const char* env = std::getenv("ATTNSCOPE_CPU");
  if (!env || !*env) return c;
  auto wanted = parseLevel(env);
  const std::string using_ = "; using " + std::string(levelName(c.level));
  if (!wanted)
    c.warning = std::string("ATTNSCOPE_CPU: unknown level '") + env + "' (baseline, avx2 or avx512)" + using_;
  else if (!supports(*wanted))
    c.warning = std::string("ATTNSCOPE_CPU: this CPU has no ") + env + using_;
  else if (!available(*wanted))
    c.warning = std::string("ATTNSCOPE_CPU: this build has no ") + env + " kernels (compiled for " +
                std::string(levelName(compiledLevel())) + ")" + using_;
  else
    c.level = *wanted;
  return c;
}

const Choice& choice() {
  static const Choice c = choose();
  return c;
}

}  // namespace

std::string_view levelName(Level level) {
  switch (level) {
    case Level::Baseline: return "baseline";
    case Level::Avx2: return "avx2";
    case Level::Avx512: return "avx512";
  }
  return "baseline";
}

std::optional<Level> parseLevel(std::string_view name) {
  for (Level l : {Level::Baseline, Level::Avx2, Level::Avx512})
    if (name == levelName(l)) return l;
  return std::nullopt;
}

Level detectedLevel() {
  for (Level l : {Level::Avx512, Level::Avx2})
    if (supports(l)) return l;
  return Level::Baseline;
}

Level compiledLevel() {
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
  return Level::Avx512;
#elif defined(__AVX2__) && defined(__FMA__)
  return Level::Avx2;
#else
  return Level::Baseline;
#endif
}

std::vector<Level> availableLevels() { return {compiledLevel()}; }

Level activeLevel() { return choice().level; }
const std::string& levelWarning() { return choice().warning; }

std::string detectedFeatures() {
  std::string out;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  auto add = [&](const char* name, bool has) {
    if (!has) return;
    if (!out.empty()) out += ' ';
    out += name;
  };
  add("sse4.2", __builtin_cpu_supports("sse4.2"));
  add("avx", __builtin_cpu_supports("avx"));
  add("avx2", __builtin_cpu_supports("avx2"));
  add("fma", __builtin_cpu_supports("fma"));
  add("avx512f", __builtin_cpu_supports("avx512f"));
  add("avx512bw", __builtin_cpu_supports("avx512bw"));
  add("avx512dq", __builtin_cpu_supports("avx512dq"));
  add("avx512vl", __builtin_cpu_supports("avx512vl"));
#endif
  return out;
}

}  // namespace attn::cpu
