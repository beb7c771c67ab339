#pragma once
// x86-64 instruction-set levels for the engine's kernels. The kernels run at
// the highest level this binary has kernels for and this CPU supports;
// ATTNSCOPE_CPU=baseline|avx2|avx512 forces one (a level the CPU lacks, or the
// binary has no kernels for, falls back with a warning). Today every kernel is
// compiled once, for compiledLevel() (-march=native in dev builds, baseline
// x86-64 in the package), so that is the only level available.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn::cpu {

enum class Level { Baseline, Avx2, Avx512 };  // x86-64, x86-64-v3 (AVX2+FMA), x86-64-v4 (AVX-512 F/BW/DQ/VL)

std::string_view levelName(Level level);
std::optional<Level> parseLevel(std::string_view name);

/// The highest level this CPU supports (cpuid).
Level detectedLevel();
/// The level the rest of the engine was compiled for (its -march flags).
Level compiledLevel();
/// The levels this binary has kernels for, lowest first.
std::vector<Level> availableLevels();
/// The level the kernels run at: ATTNSCOPE_CPU when set, available and
/// supported, else the highest available one the CPU supports. Decided once.
Level activeLevel();
/// Why ATTNSCOPE_CPU was not followed (unknown name, above this CPU); empty when it was or is unset.
const std::string& levelWarning();
/// The CPU features that decide the level, e.g. "sse4.2 avx2 fma avx512f".
std::string detectedFeatures();

}  // namespace attn::cpu
