#include "attn/cpu/cpu_level.h"

#include <cstdlib>
#include <string_view>

#ifdef ATTNSCOPE_CPU_DISPATCH
#include <dlfcn.h>
#include <unistd.h>
#endif

namespace attn::cpu {
namespace {

#ifdef ATTNSCOPE_CPU_DISPATCH
// Set when ATTNSCOPE_CPU made this process restart itself (restartAtRequestedLevel).
bool g_restarted = false;
#endif

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

#ifdef ATTNSCOPE_CPU_DISPATCH
std::string availableList() {
  std::string out;
  for (Level l : availableLevels()) {
    if (!out.empty()) out += ", ";
    out += levelName(l);
  }
  return out;
}
#endif

// The level ATTNSCOPE_CPU asks for, when this process runs it, else the default
// with a warning saying why. Per-level build (cmake/CpuLevels.cmake): the
// dynamic loader chose the copy running now, so its level is the default, and
// a request it can follow was followed before main() by restarting the
// program (restartAtRequestedLevel). One static engine: the highest available
// level the CPU runs.
Choice choose() {
  Choice c;
#ifdef ATTNSCOPE_CPU_DISPATCH
  c.level = compiledLevel();
#else
  for (Level l : availableLevels())
    if (supports(l)) c.level = l;
#endif
  const char* env = std::getenv("ATTNSCOPE_CPU");
  if (!env || !*env) return c;
  auto wanted = parseLevel(env);
  const std::string using_ = "; using " + std::string(levelName(c.level));
  if (!wanted)
    c.warning = std::string("ATTNSCOPE_CPU: unknown level '") + env + "' (baseline, avx2 or avx512)" + using_;
  else if (*wanted == c.level)
    return c;
  else if (!supports(*wanted))
    c.warning = std::string("ATTNSCOPE_CPU: this CPU has no ") + env + using_;
#ifdef ATTNSCOPE_CPU_DISPATCH
  else if (!available(*wanted))
    c.warning = std::string("ATTNSCOPE_CPU: this installation has no ") + env + " engine (it has " + availableList() +
                ")" + using_;
  else
    c.warning = std::string("ATTNSCOPE_CPU: the dynamic loader did not load the ") + env + " engine" +
                (g_restarted ? " after a restart" : " (the program could not restart itself)") + using_;
#else
  else if (!available(*wanted))
    c.warning = std::string("ATTNSCOPE_CPU: this build has no ") + env + " kernels (compiled for " +
                std::string(levelName(compiledLevel())) + ")" + using_;
  else
    c.level = *wanted;
#endif
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

#ifdef ATTNSCOPE_CPU_DISPATCH
namespace {

// The glibc-hwcaps subdirectory (under the baseline library's directory) that
// holds the copy for a level.
const char* hwcapsDir(Level level) {
  switch (level) {
    case Level::Avx2: return "glibc-hwcaps/x86-64-v3";
    case Level::Avx512: return "glibc-hwcaps/x86-64-v4";
    case Level::Baseline: break;
  }
  return "";
}

// Directory and file name of the engine library running now; the baseline
// directory is two levels up from a glibc-hwcaps copy.
bool engineLocation(std::string& baseDir, std::string& file) {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&compiledLevel), &info) || !info.dli_fname) return false;
  std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return false;
  baseDir = path.substr(0, slash);
  file = path.substr(slash + 1);
  const std::string_view own = hwcapsDir(compiledLevel());
  if (!own.empty() && baseDir.size() > own.size() &&
      std::string_view(baseDir).substr(baseDir.size() - own.size()) == own)
    baseDir.resize(baseDir.size() - own.size() - 1);
  return true;
}

constexpr const char* kRestartedVar = "ATTNSCOPE_CPU_RESTARTED";  // the level a restart asked for
constexpr const char* kSavedTunablesVar = "ATTNSCOPE_CPU_SAVED_TUNABLES";  // the caller's GLIBC_TUNABLES, if any

// Runs when the engine library is loaded, before main(): with ATTNSCOPE_CPU
// naming a level the loader did not choose (and this CPU and installation
// have), the program executes itself again with glibc's hwcaps tunable hiding
// the higher levels, so the loader picks the wanted copy. Once: the restarted
// process puts the caller's environment back, so the programs it starts choose
// for themselves again. glibc passes (argc, argv, envp) to library constructors.
__attribute__((constructor)) void restartAtRequestedLevel(int, char** argv, char**) {
  if (std::getenv(kRestartedVar)) {
    g_restarted = true;
    if (const char* saved = std::getenv(kSavedTunablesVar)) ::setenv("GLIBC_TUNABLES", saved, 1);
    else ::unsetenv("GLIBC_TUNABLES");
    ::unsetenv(kRestartedVar);
    ::unsetenv(kSavedTunablesVar);
    return;
  }
  const char* env = std::getenv("ATTNSCOPE_CPU");
  if (!env || !*env || !argv) return;
  const auto wanted = parseLevel(env);
  if (!wanted || *wanted == compiledLevel() || !supports(*wanted) || !available(*wanted)) return;
  const char* existing = std::getenv("GLIBC_TUNABLES");
  if (existing) ::setenv(kSavedTunablesVar, existing, 1);
  ::setenv(kRestartedVar, env, 1);
  ::setenv("GLIBC_TUNABLES", restartTunables(*wanted, existing).c_str(), 1);
  ::execv("/proc/self/exe", argv);
  // Could not restart: run on at the loader's level (choose() says why).
  if (existing) ::setenv("GLIBC_TUNABLES", existing, 1);
  else ::unsetenv("GLIBC_TUNABLES");
  ::unsetenv(kRestartedVar);
  ::unsetenv(kSavedTunablesVar);
}

}  // namespace

std::vector<Level> availableLevels() {
  static const std::vector<Level> levels = [] {
    std::vector<Level> out{Level::Baseline};
    std::string dir, file;
    if (!engineLocation(dir, file)) return std::vector<Level>{compiledLevel()};
    for (Level l : {Level::Avx2, Level::Avx512}) {
      const std::string copy = dir + "/" + hwcapsDir(l) + "/" + file;
      if (l == compiledLevel() || ::access(copy.c_str(), R_OK) == 0) out.push_back(l);
    }
    return out;
  }();
  return levels;
}
#else
std::vector<Level> availableLevels() { return {compiledLevel()}; }
#endif

Level activeLevel() { return choice().level; }
const std::string& levelWarning() { return choice().warning; }

std::string restartTunables(Level level, const char* existing) {
  std::string out;
  std::string_view rest = existing ? existing : "";
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string_view item = rest.substr(0, colon);
    if (!item.empty() && item.rfind("glibc.cpu.hwcaps=", 0) != 0) {
      if (!out.empty()) out += ':';
      out += item;
    }
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
  const char* mask = level == Level::Baseline ? "glibc.cpu.hwcaps=-AVX2,-AVX512F"
                     : level == Level::Avx2   ? "glibc.cpu.hwcaps=-AVX512F"
                                              : nullptr;
  if (mask) {
    if (!out.empty()) out += ':';
    out += mask;
  }
  return out;
}

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
