// CPU against CUDA on metrics-only attention: 12 heads x 64,
// scaled dot, the tiled path without weights (what `metrics` and long maps
// run), N = 512 .. 65536. Prints one table row per N: wall time of
// runAttention on each backend (median of --runs), the CUDA rate in TFLOP/s
// (4 N^2 d flops per head: QK^T and AV) and its share of --peak-tflops, and
// the largest output and entropy differences against the CPU where both ran.
// `gpu_bench [--sizes 512,4096,16384,65536] [--cpu-max 16384] [--runs 3]
//            [--peak-tflops 67]`  (67: H100/H200 SXM fp32 without tensor cores)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attn/attn.h"
#include "attn/backend.h"

namespace {

using namespace attn;

constexpr int kGpuBenchHeads = 12, kGpuBenchDim = 64;

AttentionInput randomProjected(int n, uint32_t seed) {
  AttentionInput in;
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  auto fill = [&](int rows) {
    Mat m(rows, kGpuBenchDim);
    for (Eigen::Index c = 0; c < m.size(); ++c) m.data()[c] = nd(rng);
    return m;
  };
  for (int h = 0; h < kGpuBenchHeads; ++h) {
    in.q.push_back(fill(n));
    in.k.push_back(fill(n));
    in.v.push_back(fill(n));
  }
  return in;
}

AttentionSpec metricsOnly(BackendKind backend) {
  AttentionSpec s;
  s.mechanism = Mechanism::ScaledDot;
  s.heads = kGpuBenchHeads;
  s.exec = ExecPath::Tiled;
  s.weightsHead = -2;
  s.backend = backend;
  s.memoryBudget = int64_t{1} << 40;
  return s;
}

struct Timed {
  double ms = 0;
  AttentionResult result;
  std::string error;
};

Timed timeRuns(const AttentionInput& in, BackendKind backend, int runs) {
  Timed t;
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto res = runAttention(in, metricsOnly(backend));
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!res) {
      t.error = res.error().message;
      return t;
    }
    if (!res->warnings.empty()) t.error = res->warnings.front();
    t.result = std::move(res).value();
  }
  std::sort(ms.begin(), ms.end());
  t.ms = ms[ms.size() / 2];
  return t;
}

std::vector<int> parseSizes(const char* text) {
  std::vector<int> sizes;
  for (const char* p = text; *p;) {
    sizes.push_back(std::atoi(p));
    const char* comma = std::strchr(p, ',');
    if (!comma) break;
    p = comma + 1;
  }
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {512, 4096, 16384, 65536};
  int cpuMax = 16384, runs = 3;
  double peak = 67.0;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string opt = argv[a];
    if (opt == "--sizes") sizes = parseSizes(argv[a + 1]);
    else if (opt == "--cpu-max") cpuMax = std::atoi(argv[a + 1]);
    else if (opt == "--runs") runs = std::max(1, std::atoi(argv[a + 1]));
    else if (opt == "--peak-tflops") peak = std::atof(argv[a + 1]);
  }
  const BackendInfo cuda = backendsFound()[1];
  fmt::print("CUDA: {}\n", cuda.available ? cuda.label : "unavailable (" + cuda.reason + ")");
  fmt::print("12 heads x 64, scaled dot, tiled, metrics only (no weights); median of {} runs; wall ms\n\n", runs);
  fmt::print("| N | CPU ms | CUDA ms | CPU / CUDA | CUDA TFLOP/s | % of {:.0f} TFLOP/s | max |out diff| | max |entropy diff| |\n",
             peak);
  fmt::print("|---|---|---|---|---|---|---|---|\n");
  if (cuda.available) timeRuns(randomProjected(256, 1), BackendKind::Cuda, 1);  // context and module load
  for (int n : sizes) {
    const AttentionInput in = randomProjected(n, static_cast<uint32_t>(n));
    Timed cpu, gpu;
    if (n <= cpuMax) cpu = timeRuns(in, BackendKind::Cpu, runs);
    if (cuda.available) gpu = timeRuns(in, BackendKind::Cuda, runs);
    const double flops = 4.0 * n * static_cast<double>(n) * kGpuBenchDim * kGpuBenchHeads;
    auto cell = [](const Timed& t, bool ran) {
      return !ran ? std::string("—") : t.error.empty() ? fmt::format("{:.1f}", t.ms) : "error: " + t.error;
    };
    std::string ratio = "—", rate = "—", share = "—", outDiff = "—", entDiff = "—";
    if (cuda.available && gpu.error.empty()) {
      rate = fmt::format("{:.2f}", flops / (gpu.ms * 1e-3) / 1e12);
      share = fmt::format("{:.0f}%", 100.0 * flops / (gpu.ms * 1e-3) / 1e12 / peak);
      if (n <= cpuMax && cpu.error.empty()) {
        ratio = fmt::format("{:.1f}×", cpu.ms / gpu.ms);
        double od = 0, ed = 0;
        for (int h = 0; h < kGpuBenchHeads; ++h) {
          od = std::max(od, static_cast<double>((gpu.result.heads[h].output - cpu.result.heads[h].output).cwiseAbs().maxCoeff()));
          ed = std::max(ed, static_cast<double>((gpu.result.heads[h].entropy - cpu.result.heads[h].entropy).cwiseAbs().maxCoeff()));
        }
        outDiff = fmt::format("{:.2e}", od);
        entDiff = fmt::format("{:.2e}", ed);
      }
    }
    fmt::print("| {} | {} | {} | {} | {} | {} | {} | {} |\n", n, cell(cpu, n <= cpuMax), cell(gpu, cuda.available),
               ratio, rate, share, outDiff, entDiff);
    std::fflush(stdout);
  }
  return 0;
}
