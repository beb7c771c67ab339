#pragma once
// What a bug report needs first: the engine's build and run-time choices
// (kernel level, threads, backends, Eigen). attnscope-cli info --system and
// the GUI's Help > About print it; the programs add their own version and Qt's.
#include <string>
#include <utility>
#include <vector>

namespace attn {

struct SystemInfo {
  std::string kernelLevel;      // level the hot kernels run at: baseline, avx2, avx512
  bool kernelLevelForced = false;  // chosen by ATTNSCOPE_CPU, not detected
  std::string kernelLevelWarning;  // why ATTNSCOPE_CPU was not followed; empty when it was or is unset
  std::string compiledLevel;    // level the rest of the engine was compiled for
  std::vector<std::string> availableLevels;  // levels this binary has kernels for
  std::string cpuFeatures;      // detected, e.g. "sse4.2 avx avx2 fma avx512f ..."
  int threads = 1;              // OpenMP threads across heads (OMP_NUM_THREADS)
  std::vector<std::string> backends;  // usable backends, e.g. {"cpu", "cuda (CUDA: NVIDIA H200, 141 GB)"}
  std::vector<std::string> missingBackends;  // known but unusable, with why, e.g. {"cuda: not in this build: ..."}
  std::string eigenVersion;     // e.g. "3.4.0"
  std::string eigenSimd;        // Eigen's instruction sets in use for the engine
  std::string compiler;         // e.g. "GCC 12.2.0"
};

SystemInfo systemInfo();

/// "name: value" lines, `extra` (e.g. {"AttnScope", "0.1.0"}, {"Qt", "6.4.2"}) first.
std::string describeSystem(const SystemInfo& info,
                           const std::vector<std::pair<std::string, std::string>>& extra = {});

}  // namespace attn
