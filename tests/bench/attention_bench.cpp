// Attention throughput on this machine's shapes of interest: 12 heads x 64
// (d_model 768), N = 512 and 4096, fp32. Targets: weights + entropy
// for all heads <= 4 ms at 512; metrics-only path <= 250 ms and < 10 MB extra
// at 4096; the head on screen <= 40 ms at 4096; attention GEMM rate >= 80% of
// Eigen's own GEMM on the same shapes (BM_EigenGemmSameShapes, same run).
#include <benchmark/benchmark.h>
#include <omp.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

#include "attn/cpu/tiled_attention.h"
#include "attn/engine.h"
#include "attn/metrics.h"
#include "attn/engine/random.h"

namespace {

using attn::Mat;
constexpr int kHeads = 12, kDim = 64;

Mat gaussian(int rows, int cols, uint64_t seed) {
  attn::SeededRng rng(seed);
  Mat m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = static_cast<float>(rng.normal());
  return m;
}

struct Heads {
  std::vector<Mat> q, k, v;
  explicit Heads(int n) {
    for (int h = 0; h < kHeads; ++h) {
      q.push_back(gaussian(n, kDim, 3 * h + 1));
      k.push_back(gaussian(n, kDim, 3 * h + 2));
      v.push_back(gaussian(n, kDim, 3 * h + 3));
    }
  }
  attn::HeadView view(int h) const {
    return {&q[h], &k[h], &v[h], 1.0f / std::sqrt(float(kDim)), nullptr, nullptr};
  }
};

double residentMB() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

double processCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

// CPU time of all threads per iteration divided by the thread count: what the
// wall time would be on an idle machine with the work evenly split. The
// shared machine's wall time is inflated by other people's compilers; report
// both, compare ratios from one run.
struct CpuClock {
  benchmark::State& st;
  int threads;
  double start = processCpuMs();
  CpuClock(benchmark::State& s, int t) : st(s), threads(t) {}
  ~CpuClock() {
    st.counters["cpu_ms_per_thread"] =
        benchmark::Counter((processCpuMs() - start) / threads, benchmark::Counter::kAvgIterations);
  }
};

// QK^T and PV: 2 GEMMs of 2 N^2 d flops each, per head.
double attentionFlops(int n) { return 4.0 * n * double(n) * kDim * kHeads; }

void setFlops(benchmark::State& st, int n) {
  st.counters["GFLOP/s"] = benchmark::Counter(attentionFlops(n) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// Weights (materialized, row-normalized) + output + row entropy for every
// head; buffers are preallocated per head and reused, as the GUI does.
void BM_WeightsEntropyAllHeads(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  const Heads in(n);
  std::vector<Mat> w(kHeads, Mat(n, n)), out(kHeads, Mat(n, kDim));
  std::vector<attn::RowStats> stats(kHeads);
  CpuClock clock(st, omp_get_max_threads());
  for (auto _ : st) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int h = 0; h < kHeads; ++h)
      attn::blockedAttentionWithWeights(in.view(h), attn::TileConfig{}, w[h], out[h], stats[h], 1);
    benchmark::DoNotOptimize(stats[kHeads - 1].entropy.data());
  }
  setFlops(st, n);
}
double minOf(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

BENCHMARK(BM_WeightsEntropyAllHeads)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime()->ComputeStatistics("min", minOf);

// Outputs + entropy + row max for every head, no N x N storage anywhere.
void BM_MetricsOnlyAllHeads(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  const Heads in(n);
  std::vector<Mat> out(kHeads, Mat(n, kDim));
  std::vector<attn::RowStats> stats(kHeads);
  for (auto& s : stats) s.entropy.resize(n), s.max.resize(n), s.sum.resize(n);
  const double before = residentMB();
  double peak = before;
  double scratchBytes = 0;
  CpuClock clock(st, omp_get_max_threads());
  for (auto _ : st) {
    scratchBytes = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(max : scratchBytes)
    for (int h = 0; h < kHeads; ++h) {
      static thread_local attn::TileScratch scratch;
      attn::flashAttention(in.view(h), attn::TileConfig{}, scratch, out[h], stats[h]);
      scratchBytes = std::max(scratchBytes, double(scratch.bytes()));
    }
    peak = std::max(peak, residentMB());
  }
  setFlops(st, n);
  // Resident growth over the run (run this benchmark alone for a clean figure:
  // pages freed by an earlier benchmark are reused) and the scratch the
  // kernel holds, all threads (outputs are preallocated, O(N d)).
  st.counters["rss_growth_MB"] = peak - before;
  st.counters["scratch_MB"] = scratchBytes * omp_get_max_threads() / 1048576.0;
}
BENCHMARK(BM_MetricsOnlyAllHeads)->Arg(512)->Arg(2048)->Arg(4096)->Arg(16384)->Unit(benchmark::kMillisecond)->UseRealTime()->ComputeStatistics("min", minOf);

// The head on screen at large N: its full weights map, entropy and output,
// the query blocks shared by both cores (the only parallel level here).
void BM_HeadOnScreen(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  const Heads in(n);
  Mat w(n, n), out(n, kDim);
  attn::RowStats stats;
  const int threads = omp_get_max_threads();
  CpuClock clock(st, omp_get_max_threads());
  for (auto _ : st) {
    attn::blockedAttentionWithWeights(in.view(0), attn::TileConfig{}, w, out, stats, threads);
    benchmark::DoNotOptimize(w.data());
  }
  st.counters["GFLOP/s"] = benchmark::Counter(attentionFlops(n) / kHeads / 1e9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_HeadOnScreen)->Arg(512)->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime()->ComputeStatistics("min", minOf);

// Eigen's own GEMM on the same shapes (S = Q K^T, then S V, per head, the
// heads across threads like the kernels) with no softmax: the rate ceiling.
// Key blocks of 512 keep S in cache as the tiled kernel does; per-thread
// buffers are reused.
void BM_EigenGemmSameShapes(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  const Heads in(n);
  std::vector<Mat> out(kHeads, Mat(n, kDim));
  CpuClock clock(st, omp_get_max_threads());
  for (auto _ : st) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int h = 0; h < kHeads; ++h) {
      static thread_local Mat s;
      const int bq = std::min(256, n), bk = std::min(512, n);
      if (s.rows() < bq || s.cols() < bk) s.resize(bq, bk);
      out[h].setZero();
      for (int i0 = 0; i0 < n; i0 += bq)
        for (int j0 = 0; j0 < n; j0 += bk) {
          auto tile = s.topLeftCorner(std::min(bq, n - i0), std::min(bk, n - j0));
          tile.noalias() = in.q[h].middleRows(i0, tile.rows()) * in.k[h].middleRows(j0, tile.cols()).transpose();
          out[h].middleRows(i0, tile.rows()).noalias() += tile * in.v[h].middleRows(j0, tile.cols());
        }
    }
    benchmark::DoNotOptimize(out[0].data());
  }
  setFlops(st, n);
}
BENCHMARK(BM_EigenGemmSameShapes)->Arg(512)->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime()->ComputeStatistics("min", minOf);

// The whole engine call as a front end makes it: seeded embeddings projected
// by W_Q/W_K/W_V (768 x 768 each), attention, W_O; results allocated per call.
void BM_EngineRun(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  attn::AttentionInput input;
  input.x = gaussian(n, kHeads * kDim, 7);
  attn::AttentionSpec spec;
  spec.heads = kHeads;
  spec.dModel = kHeads * kDim;
  spec.exec = attn::ExecPath::Tiled;
  spec.weightsHead = n <= 512 ? -1 : 0;  // every map at 512; the head on screen only at 4096
  CpuClock clock(st, omp_get_max_threads());
  for (auto _ : st) {
    auto res = attn::runAttention(input, spec);
    if (!res) st.SkipWithError(res.error().message.c_str());
    benchmark::DoNotOptimize(res);
  }
}
BENCHMARK(BM_EngineRun)->Arg(512)->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime()->ComputeStatistics("min", minOf);

// What the explorer runs at N = 512 after every slider move: `auto` picks the
// naive path there (every intermediate kept for the step-through view).
void BM_EngineRunAuto(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  attn::AttentionInput input;
  input.x = gaussian(n, kHeads * kDim, 7);
  attn::AttentionSpec spec;
  spec.heads = kHeads;
  spec.dModel = kHeads * kDim;
  spec.exec = attn::ExecPath::Auto;
  CpuClock clock(st, omp_get_max_threads());
  for (auto _ : st) {
    auto res = attn::runAttention(input, spec);
    if (!res) st.SkipWithError(res.error().message.c_str());
    benchmark::DoNotOptimize(res);
  }
}
BENCHMARK(BM_EngineRunAuto)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime()->ComputeStatistics("min", minOf);

// The Metrics dock's work after an engine call, as the explorer's worker does
// it (ui/attn_ui/metrics/metrics_panel.cpp): analyzeResult over the result the engine
// call above produces (every map at 512, the head on screen at 4096), head
// similarity only while heads^2/2 x cells <= 1e8 as the panel decides. Compare
// with BM_EngineRun of the same N (the heatmap's data) for the GUI targets.
void BM_MetricsDockAnalysis(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  attn::AttentionInput input;
  input.x = gaussian(n, kHeads * kDim, 7);
  attn::AttentionSpec spec;
  spec.heads = kHeads;
  spec.dModel = kHeads * kDim;
  spec.exec = n <= 512 ? attn::ExecPath::Auto : attn::ExecPath::Tiled;
  spec.weightsHead = n <= 512 ? -1 : 0;
  auto res = attn::runAttention(input, spec);
  if (!res) {
    st.SkipWithError(res.error().message.c_str());
    return;
  }
  attn::AnalysisOptions opt;
  const double cells = static_cast<double>(n) * n;
  opt.headSimilarity = kHeads * (kHeads - 1) / 2.0 * cells <= 1e8;
  CpuClock clock(st, omp_get_max_threads());
  for (auto _ : st) {
    auto an = attn::analyzeResult(*res, opt);
    benchmark::DoNotOptimize(an);
  }
  st.counters["similarity"] = opt.headSimilarity ? 1 : 0;
}
BENCHMARK(BM_MetricsDockAnalysis)->Arg(512)->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime()->ComputeStatistics("min", minOf);

}  // namespace

// As the explorer does at start-up (ui/attn_ui/window/process_tuning.cpp): freed
// N x N results stay in the heap and are reused, instead of being unmapped and
// faulted in again (about 11 us per 4 KB page here) on every engine call.
int main(int argc, char** argv) {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
