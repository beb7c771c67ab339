#include "attn/engine/memory_budget.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>

namespace attn {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t saturatingMul(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0) return 0;
  return a > kMax / b ? kMax : a * b;
}

/// cgroup v2 (memory.max) or v1 (memory.limit_in_bytes); 0 when none is set.
int64_t cgroupLimitBytes() {
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream f(path);
    std::string s;
    if (!(f >> s) || s == "max") continue;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    // v1 reports "no limit" as a huge page-rounded number.
    if (end && *end == '\0' && v > 0 && v < (1ull << 60)) return static_cast<int64_t>(v);
  }
  return 0;
}

}  // namespace

int64_t availableMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGE_SIZE);
  int64_t phys = (pages > 0 && pageSize > 0) ? saturatingMul(pages, pageSize) : 0;
  const int64_t cg = cgroupLimitBytes();
  if (cg > 0 && (phys == 0 || cg < phys)) phys = cg;
  return phys;
}

int64_t defaultMemoryBudget() {
  if (const char* env = std::getenv("ATTNSCOPE_MEMORY_BUDGET"); env && *env)
    if (auto b = parseByteSize(env); b.ok() && *b > 0) return *b;
  const int64_t avail = availableMemoryBytes();
  return avail > 0 ? avail / 2 : int64_t{4} << 30;
}

Result<int64_t> parseByteSize(const std::string& text) {
  const auto bad = [&] {
    return Error{fmt::format("'{}' is not a byte size (expected e.g. 512M, 2G, 1500000)", text)};
  };
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0 || i > 30) return bad();
  char* end = nullptr;
  const std::string num = text.substr(0, i);
  const double v = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size() || !std::isfinite(v)) return bad();
  std::string unit = text.substr(i);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.ends_with("IB")) unit.erase(unit.size() - 2);
  else if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  double scale = 1;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024;
  else if (unit == "G") scale = 1024.0 * 1024 * 1024;
  else if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  else return bad();
  const double bytes = v * scale;
  if (bytes >= 9.2e18) return bad();
  return static_cast<int64_t>(bytes);
}

std::string formatBytes(int64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 6) {
    v /= 1024.0;
    ++u;
  }
  return fmt::format("{:.1f} {}", v, units[u]);
}

int64_t materializedMatrices(ExecPath path, int64_t heads, int weightsHead, bool logitBias) {
  int64_t perRequest = 0;
  switch (path) {
    case ExecPath::Tiled:
    case ExecPath::Sparse:
      // weights and scaled logits of each head whose map is materialized
      perRequest = 2 * (weightsHead == -1 ? heads : (weightsHead >= 0 && weightsHead < heads ? 1 : 0));
      break;
    case ExecPath::Performer:
    case ExecPath::LinearElu:
    case ExecPath::Linformer:
      perRequest = 5 * heads;  // the naive reference's four, and the approximation's weights
      break;
    case ExecPath::Naive:
    case ExecPath::Auto:
      perRequest = 4 * heads;
      break;
  }
  return perRequest + (logitBias ? heads : 0);
}

int64_t matrixBytes(int64_t matrices, int64_t nq, int64_t nk) {
  return saturatingMul(saturatingMul(saturatingMul(matrices, nq), nk), static_cast<int64_t>(sizeof(float)));
}

Status checkAttentionMemory(const AttentionSpec& spec, ExecPath path, int64_t heads, int64_t nq, int64_t nk) {
  const int64_t budget = spec.memoryBudget > 0 ? spec.memoryBudget : defaultMemoryBudget();
  const bool bias = spec.positional != PositionalEncoding::None;
  const int64_t need = matrixBytes(materializedMatrices(path, heads, spec.weightsHead, bias), nq, nk);
  if (need <= budget) return okStatus();
  const bool metricsOnly = (path == ExecPath::Tiled || path == ExecPath::Sparse) && spec.weightsHead == -2;
  return Error{fmt::format(
      "{} x {} attention with {} head(s) needs about {} for its N x N matrices, over the memory "
      "budget of {}; {}use fewer tokens or heads, or raise the budget (--memory-budget)",
      nq, nk, heads, formatBytes(need), formatBytes(budget),
      metricsOnly ? "" : "use --exec tiled for metrics without the full matrices, ")};
}

}  // namespace attn
