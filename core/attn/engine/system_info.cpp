#include "attn/engine/system_info.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <Eigen/Core>
#include <cstdlib>

#include "attn/backend.h"
#include "attn/cpu/cpu_level.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {

SystemInfo systemInfo() {
  SystemInfo s;
  s.kernelLevel = std::string(cpu::levelName(cpu::activeLevel()));
  const char* forced = std::getenv("ATTNSCOPE_CPU");
  s.kernelLevelWarning = cpu::levelWarning();
  s.kernelLevelForced = forced && *forced && s.kernelLevelWarning.empty();
  s.compiledLevel = std::string(cpu::levelName(cpu::compiledLevel()));
  for (cpu::Level l : cpu::availableLevels()) s.availableLevels.emplace_back(cpu::levelName(l));
  s.cpuFeatures = cpu::detectedFeatures();
#ifdef _OPENMP
  s.threads = omp_get_max_threads();
#endif
  for (const BackendInfo& b : backendsFound()) {
    const std::string name(backendName(b.kind));
    if (b.available) s.backends.push_back(b.kind == BackendKind::Cpu ? name : name + " (" + b.label + ")");
    else s.missingBackends.push_back(name + ": " + b.reason);
  }
  s.eigenVersion = fmt::format("{}.{}.{}", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION);
  s.eigenSimd = Eigen::SimdInstructionSetsInUse();
#if defined(__clang__)
  s.compiler = fmt::format("Clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  s.compiler = fmt::format("GCC {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#endif
  return s;
}

std::string describeSystem(const SystemInfo& info, const std::vector<std::pair<std::string, std::string>>& extra) {
  std::string out;
  auto line = [&](std::string_view name, std::string_view value) {
    out += fmt::format("{:<14} {}\n", fmt::format("{}:", name), value);
  };
  for (const auto& [name, value] : extra) line(name, value);
  line("Kernel level", fmt::format("{} ({})", info.kernelLevel,
                                   !info.kernelLevelWarning.empty() ? info.kernelLevelWarning
                                   : info.kernelLevelForced         ? "forced by ATTNSCOPE_CPU"
                                                                    : "the highest installed level this CPU supports"));
  line("Kernel levels", fmt::format("{}", fmt::join(info.availableLevels, ", ")));
  line("Compiled for", info.compiledLevel);
  line("CPU features", info.cpuFeatures.empty() ? "(none detected)" : info.cpuFeatures);
  line("Threads", fmt::format("{}", info.threads));
  std::string backends = fmt::format("{}", fmt::join(info.backends, ", "));
  if (!info.missingBackends.empty())
    backends += fmt::format(" (unavailable: {})", fmt::join(info.missingBackends, "; "));
  line("Backends", backends);
  line("Eigen", fmt::format("{} ({})", info.eigenVersion, info.eigenSimd));
  line("Compiler", info.compiler);
  return out;
}

}  // namespace attn
