// End-to-end: attnscope-cli info --system prints the version (as --version does),
// the kernel level (the one /proc/cpuinfo allows, or the one ATTNSCOPE_CPU forces),
// the thread count OMP_NUM_THREADS sets, the backends and the Eigen version.
// The level expected is the highest the binary has kernels for ("Kernel levels")
// that /proc/cpuinfo's flags allow.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <vector>

#include "cli_runner.h"
#include "proc_cpu_flags.h"

namespace attn::test {
namespace {

std::string field(const std::string& out, const std::string& name) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name + ":", 0) == 0) {
      auto v = line.substr(name.size() + 1);
      return v.substr(v.find_first_not_of(' '));
    }
  return "<missing " + name + ">";
}

// The level the CPU's flags allow, read independently of the program (cpuid via the kernel).
std::string levelFromProcCpuinfo() {
  const std::set<std::string> flags = procCpuFlags();
  auto has = [&](const char* flag) { return flags.count(flag) > 0; };
  if (has("avx512f") && has("avx512bw") && has("avx512dq") && has("avx512vl") && has("avx2") && has("fma"))
    return "avx512";
  if (has("avx2") && has("fma")) return "avx2";
  return "baseline";
}

int rank(const std::string& level) { return level == "avx512" ? 2 : level == "avx2" ? 1 : 0; }

std::vector<std::string> listed(const std::string& value) {
  std::vector<std::string> out;
  std::istringstream in(value);
  for (std::string w; std::getline(in >> std::ws, w, ',');) out.push_back(w);
  return out;
}

// The highest of the binary's levels that this CPU runs.
std::string expectedLevel(const std::string& infoOut) {
  std::string best = "baseline";
  for (const auto& l : listed(field(infoOut, "Kernel levels")))
    if (rank(l) <= rank(levelFromProcCpuinfo()) && rank(l) >= rank(best)) best = l;
  return best;
}

struct EnvGuard {
  std::string name;
  EnvGuard(std::string n, const char* value) : name(std::move(n)) {
    if (value) ::setenv(name.c_str(), value, 1);
    else ::unsetenv(name.c_str());
  }
  ~EnvGuard() { ::unsetenv(name.c_str()); }
};

TEST(CliSystemInfo, PrintsVersionLevelThreadsBackendsAndEigen) {
  EnvGuard cpu("ATTNSCOPE_CPU", nullptr);
  EnvGuard omp("OMP_NUM_THREADS", "3");
  auto version = runCli({"--version"});
  ASSERT_EQ(version.status, 0);
  auto r = runCli({"info", "--system"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string v = version.out.substr(0, version.out.find('\n'));
  EXPECT_EQ(field(r.out, "AttnScope"), v);
  EXPECT_EQ(field(r.out, "Kernel level"), expectedLevel(r.out) + " (the highest installed level this CPU supports)");
  EXPECT_EQ(field(r.out, "Threads"), "3");
  EXPECT_EQ(field(r.out, "Backends").rfind("cpu", 0), 0u) << r.out;
  const std::string eigen = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                            std::to_string(EIGEN_MINOR_VERSION);
  EXPECT_EQ(field(r.out, "Eigen").rfind(eigen + " (", 0), 0u) << r.out;
  const std::string qt = field(r.out, "Qt");
  EXPECT_TRUE(qt == "not in this build" || qt.find(".") != std::string::npos) << r.out;
}

TEST(CliSystemInfo, AttnscopeCpuForcesALevelAndNamesABadOne) {
  {
    EnvGuard cpu("ATTNSCOPE_CPU", "baseline");
    auto r = runCli({"info", "--system"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto levels = listed(field(r.out, "Kernel levels"));
    const std::string want = expectedLevel(r.out);
    if (std::find(levels.begin(), levels.end(), "baseline") != levels.end())
      EXPECT_EQ(field(r.out, "Kernel level"), "baseline (forced by ATTNSCOPE_CPU)");
    else  // a -march=native build has only its own level: the request is refused, by name
      EXPECT_EQ(field(r.out, "Kernel level"), want + " (ATTNSCOPE_CPU: this build has no baseline kernels (compiled for " +
                                                  field(r.out, "Compiled for") + "); using " + want + ")");
  }
  {
    EnvGuard cpu("ATTNSCOPE_CPU", "avx9000");
    auto r = runCli({"info", "--system"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string want = expectedLevel(r.out);
    EXPECT_EQ(field(r.out, "Kernel level"),
              want + " (ATTNSCOPE_CPU: unknown level 'avx9000' (baseline, avx2 or avx512); using " + want + ")");
  }
}

// Largest |a - b| / (1 + |b|) over the numbers of two JSON documents of the same shape.
double largestDifference(const nlohmann::json& a, const nlohmann::json& b, std::string& where) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return std::abs(x - y) / (1.0 + std::abs(y));
  }
  if (a.type() != b.type() || a.size() != b.size()) {
    where = "shape differs: " + a.dump().substr(0, 80) + " vs " + b.dump().substr(0, 80);
    return 1e9;
  }
  double worst = 0;
  if (a.is_object())
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) {
        where = "missing " + it.key();
        return 1e9;
      }
      worst = std::max(worst, largestDifference(it.value(), b.at(it.key()), where));
    }
  else if (a.is_array())
    for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, largestDifference(a[i], b[i], where));
  else if (a != b) {
    where = "differs: " + a.dump() + " vs " + b.dump();
    return 1e9;
  }
  return worst;
}

// The same command at every level this installation has gives the same numbers
// (float rounding only: the levels differ in vector width and FMA contraction).
TEST(CliSystemInfo, EveryLevelComputesTheSameMetrics) {
  EnvGuard unset("ATTNSCOPE_CPU", nullptr);
  const auto info = runCli({"info", "--system"});
  ASSERT_EQ(info.status, 0) << info.err;
  const std::vector<std::string> args{"metrics", "--text",
                                      "the quick brown fox jumps over the lazy dog while the cat sleeps in the sun",
                                      "--heads", "4", "--mask", "causal", "--json"};
  const auto reference = runCli(args);
  ASSERT_EQ(reference.status, 0) << reference.err;
  const auto want = nlohmann::json::parse(reference.out);
  for (const auto& level : listed(field(info.out, "Kernel levels"))) {
    if (rank(level) > rank(levelFromProcCpuinfo())) continue;
    EnvGuard cpu("ATTNSCOPE_CPU", level.c_str());
    const auto forced = runCli({"info", "--system"});
    EXPECT_EQ(field(forced.out, "Kernel level").rfind(level + " (", 0), 0u) << forced.out;
    const auto r = runCli(args);
    ASSERT_EQ(r.status, 0) << level << ": " << r.err;
    std::string where;
    EXPECT_LT(largestDifference(nlohmann::json::parse(r.out), want, where), 1e-5) << level << ": " << where;
  }
}

TEST(CliSystemInfo, InfoWithoutFileOrSystemIsAnError) {
  auto r = runCli({"info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("give a FILE (or --system"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attn::test
