#pragma once
// x86-64 instruction-set levels of the engine. A packaged build holds one copy
// of the engine library per level (cmake/CpuLevels.cmake) and the dynamic
// loader picks the highest this CPU supports when a program starts
// (glibc-hwcaps); ATTNSCOPE_CPU=baseline|avx2 forces a lower one (the program
// restarts itself with glibc's hwcaps tunable hiding the higher levels). A
// native or sanitizer build has one static engine, compiled for one level: an
// ATTNSCOPE_CPU it cannot follow is named in levelWarning().
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
/// The level the engine library running now was compiled for (its -march flags).
Level compiledLevel();
/// The levels this installation has an engine for, lowest first (the copies
/// found next to the running library; the one level of a static engine).
std::vector<Level> availableLevels();
/// The level the engine runs at: with one library per level, the copy the
/// loader chose (after ATTNSCOPE_CPU's restart); with one static engine, its
/// level. Decided once.
Level activeLevel();
/// Why ATTNSCOPE_CPU was not followed (unknown name, above this CPU); empty when it was or is unset.
const std::string& levelWarning();
/// GLIBC_TUNABLES for a restart at `level`: `existing` (may be null) without
/// any glibc.cpu.hwcaps entry, then a mask hiding the features the higher
/// levels need, so the loader skips their glibc-hwcaps copies.
std::string restartTunables(Level level, const char* existing);
/// The CPU features that decide the level, e.g. "sse4.2 avx2 fma avx512f".
std::string detectedFeatures();

}  // namespace attn::cpu
