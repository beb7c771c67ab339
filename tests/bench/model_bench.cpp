// Model forward pass speed. Two modes:
//  - `model_bench --model DIR --tokens N [--runs R]`: opens a Hugging Face folder
//    (timed), runs the full forward (every layer's attention maps, q/k/v,
//    next-token top-5 from lm_head) R times on N token ids and prints the
//    median, then one JSON line {"open_s", "forward_s", "peak_rss_bytes", ...}
//    that tests/bench/compare_models.py reads. Targets: GPT-2 small, 128 tokens,
//    <= 0.5 s and open < 1 s; Llama 1B-sized (BF16), <= 4 s, peak RSS < 2.5x the file.
//  - `model_bench --model DIR --tokens N --streamed`: a long prompt's streamed forward
//    (RunOptions::streamed, nothing N x N, the LM head at the last position only) three
//    ways in one process: the forward alone (no attention outputs), with every head's
//    measures (`metrics --model`), and with the measures and the F16 q/k store (the
//    window's long-text run); prints each one's wall and CPU time, the measures' cost as a
//    ratio to the forward alone (target <= 1.25 at N = 8192 on the Llama-1B shape), the
//    forward's GFLOP/s against a same-run GEMM ceiling, and peak RSS against the files.
//  - `model_bench --model DIR --ceiling`: the same-run GEMM ceiling alone (gemmCeiling below) as
//    one JSON line {"gemm_ceiling_gflops": ...}, for tests/bench/compare_forward.py.
//  - otherwise Google Benchmark: a GPT-2-shaped model (random F32 weights written
//    to a temporary folder; 4 layers, 12 heads, d 768) forward at N = 128, the
//    GEMM of the MLP on its shapes, Eigen with column split vs a single call, GPT-2's
//    c_fc in its Conv1D layout and transposed, and a long prompt's map recomputed
//    from kept q/k (the window's overview and zoomed views).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/engine/random.h"
#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/models/nn_ops.h"
#include "attn/models/streamed/head_maps.h"
#include "attn/models/transformer_forward.h"

namespace {

using namespace attn;
using namespace attn::models;

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// User + system seconds of every thread: on a shared machine wall time mostly measures the others.
double cpuSeconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  const auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

int64_t peakRssBytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  return 0;
}

int64_t folderWeightBytes(const std::string& dir) {
  int64_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".safetensors") n += static_cast<int64_t>(e.file_size(ec));
  return n;
}

/// `tokens` ids spread over the tokenizer's vocabulary (a fixed pattern, no text needed).
Encoding patternEncoding(const Model& m, int tokens) {
  Encoding enc;
  const int limit = std::max(1, std::min(m.tokenizer().idLimit(), m.info().vocabSize));
  for (int i = 0; i < tokens; ++i) {
    const int id = static_cast<int>((static_cast<int64_t>(i) * 7919 + 13) % limit);
    enc.ids.push_back(id);
    enc.tokens.push_back(m.tokenizer().idToToken(id));
  }
  return enc;
}

int modelMain(const std::string& path, int tokens, int runs) {
  const double t0 = seconds();
  auto model = Model::open(path);
  const double openS = seconds() - t0;
  if (!model) {
    std::fprintf(stderr, "%s\n", model.error().message.c_str());
    return 1;
  }
  const Model& m = **model;
  const ModelInfo& info = m.info();
  const Encoding enc = patternEncoding(m, tokens);
  RunOptions opt;  // q/k/v kept, top-5 next tokens: what the views show
  std::vector<double> times, cpus;
  for (int r = 0; r < runs + 1; ++r) {  // the first run warms caches and page tables
    const double t = seconds(), c = cpuSeconds();
    auto run = m.run(enc, opt);
    const double dt = seconds() - t, dc = cpuSeconds() - c;
    if (!run) {
      std::fprintf(stderr, "%s\n", run.error().message.c_str());
      return 1;
    }
    if (r > 0) times.push_back(dt), cpus.push_back(dc);
  }
  std::sort(times.begin(), times.end());
  std::sort(cpus.begin(), cpus.end());
  const double median = times[times.size() / 2], cpuMedian = cpus[cpus.size() / 2];
  const int64_t rss = peakRssBytes(), file = folderWeightBytes(info.dir);
  std::printf("model: %s (%s, %d layers x %d heads, kv %d, d %d, vocab %d, %s, %.1fM parameters)\n",
              info.name.c_str(), std::string(familyName(info.family)).c_str(), info.layers, info.heads, info.kvHeads,
              info.dModel, info.vocabSize, info.dtype.c_str(), static_cast<double>(info.parameters) / 1e6);
  std::printf("open: %.3f s\n", openS);
  std::printf("forward: %.1f ms (median of %d, %d tokens; min %.1f, max %.1f)\n", median * 1e3, runs, tokens,
              times.front() * 1e3, times.back() * 1e3);
  std::printf("forward CPU: %.2f s (user + system, all threads, median; wall on an idle 2-core machine is about half)\n",
              cpuMedian);
  std::printf("peak RSS: %.0f MB for %.0f MB of weight files (%.2fx)\n", static_cast<double>(rss) / 1e6,
              static_cast<double>(file) / 1e6, file > 0 ? static_cast<double>(rss) / static_cast<double>(file) : 0.0);
  std::printf("{\"open_s\": %.6f, \"forward_s\": %.6f, \"peak_rss_bytes\": %lld, \"file_bytes\": %lld, "
              "\"tokens\": %d, \"runs\": %d, \"forward_cpu_s\": %.6f}\n",
              openS, median, static_cast<long long>(rss), static_cast<long long>(file), tokens, runs, cpuMedian);
  return 0;
}

// --- Streamed long-prompt mode ---------------------------------------------

/// Products and attention of one causal forward on n tokens (multiply-adds x 2): every
/// layer's projections and MLP, the LM head at the last position, and Q K^T and P V over
/// the causal half (n (n + 1) / 2 cells a head).
double forwardFlop(const ModelInfo& i, int n) {
  const double d = i.dModel, hd = i.headDim, qkv = (i.heads + 2.0 * i.kvHeads) * hd;
  const double mlpMats = i.family == Family::Llama ? 3.0 : 2.0;  // Llama: gate, up, down; others: up, down
  const double perToken = d * qkv + i.heads * hd * d + mlpMats * d * i.intermediate;
  const double cells = 0.5 * n * (n + 1.0);
  return 2.0 * i.layers * (perToken * n + 2.0 * i.heads * hd * cells) + 2.0 * d * i.vocabSize;
}

/// GFLOP/s of `linear` with F32 weights on the forward's largest product, x [1024, d] times
/// W [intermediate, d]^T (a chunked-prefill block through the MLP): the best of 3.
double gemmCeiling(const ModelInfo& i) {
  const int64_t rows = 1024, in = i.dModel, out = std::max(i.intermediate, i.dModel);
  Mat x = Mat::Random(rows, in), w = Mat::Random(out, in), y;
  LinearWeight l;
  l.w.data = w.data();
  l.w.rows = out;
  l.w.cols = in;
  double best = 1e30;
  for (int r = 0; r < 4; ++r) {
    const double t = seconds();
    linear(x, l, y);
    if (r > 0) best = std::min(best, seconds() - t);  // the first warms the pages
  }
  return 2.0 * static_cast<double>(rows * in * out) / best / 1e9;
}

struct StreamedTiming {
  double wall = 0, cpu = 0;
  int64_t qkBytes = 0;
};

Result<StreamedTiming> timeStreamed(const Model& m, const Encoding& enc, bool measures, bool keepQk) {
  RunOptions opt;
  opt.streamed = true;
  opt.keepAttention = measures;  // streamed: false leaves out the measures as well
  opt.keepStreamedQk = keepQk;
  opt.keepQkv = false;
  opt.topKEveryPosition = false;  // the LM head at the last position, as the window's long runs
  const double t = seconds(), c = cpuSeconds();
  auto run = m.run(enc, opt);
  if (!run) return run.error();
  StreamedTiming r{seconds() - t, cpuSeconds() - c, run->qk ? run->qk->bytes() : 0};
  if (measures && run->streamedLayers.size() != static_cast<size_t>(m.info().layers))
    return Error{"the streamed run kept no measures"};
  return r;
}

int ceilingMain(const std::string& path) {
  auto model = Model::open(path);
  if (!model) {
    std::fprintf(stderr, "%s\n", model.error().message.c_str());
    return 1;
  }
  const ModelInfo& info = (*model)->info();
  std::printf("{\"gemm_ceiling_gflops\": %.3f, \"rows\": 1024, \"in\": %d, \"out\": %d}\n", gemmCeiling(info),
              info.dModel, std::max(info.intermediate, info.dModel));
  return 0;
}

int streamedMain(const std::string& path, int tokens) {
  auto model = Model::open(path);
  if (!model) {
    std::fprintf(stderr, "%s\n", model.error().message.c_str());
    return 1;
  }
  const Model& m = **model;
  const ModelInfo& info = m.info();
  const Encoding enc = patternEncoding(m, tokens);
  // A short forward first: the weights' first touch (page tables, staged reads) is not the
  // long prompt's cost, and the first way timed would pay it alone.
  if (auto st = timeStreamed(m, patternEncoding(m, std::min(tokens, 16)), true, true); !st) {
    std::fprintf(stderr, "%s\n", st.error().message.c_str());
    return 1;
  }
  const double ceiling = gemmCeiling(info), flop = forwardFlop(info, tokens);
  std::printf("model: %s (%d layers x %d heads, kv %d, d %d, %s), %d tokens, streamed\n", info.name.c_str(),
              info.layers, info.heads, info.kvHeads, info.dModel, info.dtype.c_str(), tokens);
  std::printf("GEMM ceiling (linear, F32 weights, 1024 x %d x %d): %.0f GFLOP/s\n", info.dModel,
              std::max(info.intermediate, info.dModel), ceiling);
  const struct {
    const char* name;
    bool measures, qk;
  } ways[] = {{"forward alone", false, false},
              {"+ every head's measures (metrics --model)", true, false},
              {"+ measures and the F16 q/k store (the window)", true, true}};
  double base = 0;
  std::string json =
      "{\"tokens\": " + std::to_string(tokens) + ", \"gemm_ceiling_gflops\": " + std::to_string(ceiling);
  for (const auto& w : ways) {
    auto t = timeStreamed(m, enc, w.measures, w.qk);
    if (!t) {
      std::fprintf(stderr, "%s\n", t.error().message.c_str());
      return 1;
    }
    if (base == 0) base = t->wall;
    const double rate = flop / t->wall / 1e9;
    std::printf(
        "%-48s %8.1f s wall %8.1f s CPU  %6.0f tokens/s  %5.0f GFLOP/s (%.0f%% of the ceiling)  x%.2f",
        w.name, t->wall, t->cpu, tokens / t->wall, rate, 100.0 * rate / ceiling, t->wall / base);
    if (t->qkBytes) std::printf("  q/k store %.0f MiB", static_cast<double>(t->qkBytes) / (1 << 20));
    std::printf("  peak RSS so far %.2f GiB\n", static_cast<double>(peakRssBytes()) / (1 << 30));
    json += fmt::format(", \"{}_s\": {:.3f}", w.qk ? "qk" : w.measures ? "measures" : "forward", t->wall);
  }
  const int64_t file = folderWeightBytes(info.dir);
  std::printf("peak RSS %.2f GiB for %.2f GiB of weight files (+%.2f GiB)\n",
              static_cast<double>(peakRssBytes()) / (1 << 30), static_cast<double>(file) / (1 << 30),
              static_cast<double>(peakRssBytes() - file) / (1 << 30));
  std::printf("%s, \"peak_rss_bytes\": %lld, \"file_bytes\": %lld}\n", json.c_str(),
              static_cast<long long>(peakRssBytes()), static_cast<long long>(file));
  return 0;
}

// --- Google Benchmark mode -------------------------------------------------

void putLe64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

/// A random GPT-2 folder (F32 safetensors + config.json), written once per process.
std::string syntheticGpt2(int layers, int d, int heads, int vocab) {
  const auto dir = std::filesystem::temp_directory_path() / ("attn_model_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<std::pair<std::string, std::vector<int64_t>>> ts = {{"wte.weight", {vocab, d}}, {"wpe.weight", {1024, d}},
                                                                  {"ln_f.weight", {d}}, {"ln_f.bias", {d}}};
  for (int l = 0; l < layers; ++l) {
    const std::string p = "h." + std::to_string(l) + ".";
    for (const char* n : {"ln_1", "ln_2"}) {
      ts.push_back({p + n + ".weight", {d}});
      ts.push_back({p + n + ".bias", {d}});
    }
    ts.push_back({p + "attn.c_attn.weight", {d, 3 * d}});
    ts.push_back({p + "attn.c_attn.bias", {3 * d}});
    ts.push_back({p + "attn.c_proj.weight", {d, d}});
    ts.push_back({p + "attn.c_proj.bias", {d}});
    ts.push_back({p + "mlp.c_fc.weight", {d, 4 * d}});
    ts.push_back({p + "mlp.c_fc.bias", {4 * d}});
    ts.push_back({p + "mlp.c_proj.weight", {4 * d, d}});
    ts.push_back({p + "mlp.c_proj.bias", {d}});
  }
  std::ostringstream hs;
  hs << "{";
  int64_t off = 0;
  for (const auto& [name, shape] : ts) {
    int64_t n = 1;
    hs << (off > 0 ? "," : "") << '"' << name << "\":{\"dtype\":\"F32\",\"shape\":[";
    for (size_t i = 0; i < shape.size(); ++i) hs << (i ? "," : "") << shape[i], n *= shape[i];
    hs << "],\"data_offsets\":[" << off << "," << off + 4 * n << "]}";
    off += 4 * n;
  }
  hs << "}";
  const std::string header = hs.str();
  std::ofstream f(dir / "model.safetensors", std::ios::binary);
  std::string len;
  putLe64(len, header.size());
  f << len << header;
  SeededRng rng(7);
  std::vector<float> buf;
  for (const auto& [name, shape] : ts) {
    int64_t n = 1;
    for (auto s : shape) n *= s;
    buf.resize(static_cast<size_t>(n));
    const bool norm = name.find("ln_") != std::string::npos && name.ends_with("weight");
    for (auto& x : buf) x = norm ? 1.0f : 0.05f * static_cast<float>(rng.normal());
    f.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(4 * n));
  }
  std::ofstream(dir / "config.json") << "{\"model_type\": \"gpt2\", \"n_layer\": " << layers << ", \"n_head\": "
                                     << heads << ", \"n_embd\": " << d << ", \"n_positions\": 1024, \"vocab_size\": "
                                     << vocab << "}";
  return dir.string();
}

struct Synthetic {
  ModelConfig config;
  ModelWeights weights;
  std::string dir;
  Synthetic() {
    dir = syntheticGpt2(4, 768, 12, 50257);
    config = *parseModelConfig(
        "{\"model_type\": \"gpt2\", \"n_layer\": 4, \"n_head\": 12, \"n_embd\": 768, \"vocab_size\": 50257}", "c");
    weights = loadModelWeights(dir, config).value();
  }
  ~Synthetic() { std::filesystem::remove_all(dir); }
};

Synthetic& synthetic() {
  static Synthetic s;
  return s;
}

void BM_Gpt2ShapedForward(benchmark::State& state) {
  Synthetic& s = synthetic();
  const int n = static_cast<int>(state.range(0));
  Encoding enc;
  for (int i = 0; i < n; ++i) enc.ids.push_back((i * 7919) % 50257), enc.tokens.push_back("t");
  for (auto _ : state) {
    auto run = transformerForward(s.config, s.weights, enc, RunOptions{}, "bench", {});
    benchmark::DoNotOptimize(run);
  }
  state.counters["layers"] = s.config.layers;
}
BENCHMARK(BM_Gpt2ShapedForward)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MlpGemm(benchmark::State& state) {
  // x [128, 768] x W [768, 3072] (GPT-2's c_fc, Conv1D layout): the split linear vs one Eigen call.
  const bool split = state.range(0) != 0;
  Mat x = Mat::Random(128, 768), w = Mat::Random(768, 3072), y;
  LinearWeight l;
  l.w.data = w.data();
  l.w.rows = 768;
  l.w.cols = 3072;
  l.inOut = true;
  for (auto _ : state) {
    if (split) linear(x, l, y);
    else y.noalias() = x * w;
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * 128 * 768 * 3072, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MlpGemm)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Gpt2Conv1D(benchmark::State& state) {
  // GPT-2's c_fc at N tokens, x [N, 768]: W as the file stores it ([in, out], Conv1D: Eigen on
  // column shares) against the same W transposed to [out, in] (nn.Linear: the token-tile GEMM
  // on AVX-512). Arg 0: tokens, 1: transposed.
  const int64_t n = state.range(0);
  const bool transposed = state.range(1) != 0;
  Mat x = Mat::Random(n, 768), w = Mat::Random(768, 3072), wt = w.transpose(), y;
  LinearWeight l;
  l.w.data = transposed ? wt.data() : w.data();
  l.w.rows = transposed ? 3072 : 768;
  l.w.cols = transposed ? 768 : 3072;
  l.inOut = !transposed;
  for (auto _ : state) {
    linear(x, l, y);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(n) * 768 * 3072,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Gpt2Conv1D)
    ->ArgsProduct({{128, 1024}, {0, 1}})
    ->ArgNames({"tokens", "transposed"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_LlamaLinear(benchmark::State& state) {
  // Llama-1B's products at 128 tokens, x [128, in] W^T with W [out, in]: f32 weights
  // (one Eigen call per thread on a column share) vs BF16 weights (128-row panels
  // converted per thread, then Eigen). Arg 0: in, 1: out, 2: BF16.
  const int64_t in = state.range(0), out = state.range(1);
  const bool bf16 = state.range(2) != 0;
  Mat x = Mat::Random(128, in), w = Mat::Random(out, in), y;
  std::vector<uint16_t> half(static_cast<size_t>(out * in));
  for (int64_t i = 0; i < out * in; ++i) {
    uint32_t u = 0;
    std::memcpy(&u, w.data() + i, 4);
    half[static_cast<size_t>(i)] = static_cast<uint16_t>(u >> 16);
  }
  LinearWeight l;
  l.w.rows = out;
  l.w.cols = in;
  if (bf16) l.w.bf16 = reinterpret_cast<const char*>(half.data());
  else l.w.data = w.data();
  for (auto _ : state) {
    linear(x, l, y);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * 128 * static_cast<double>(in) * static_cast<double>(out), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_LlamaLinear)
    ->ArgsProduct({{2048}, {512, 2048, 8192}, {0, 1}})
    ->Args({8192, 2048, 0})
    ->Args({8192, 2048, 1})
    ->Args({2048, 128256, 0})
    ->Args({2048, 128256, 1})
    ->ArgNames({"in", "out", "bf16"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One head of a long prompt's kept q/k (F16, head_dim 64, causal), as the window holds it.
attn::models::QkStore randomQkStore(int n) {
  attn::models::QkStore store(1, n, 1, 1, 64, attn::models::QkPrecision::F16, Mask::causal());
  SeededRng rng(3);
  Mat q(n, 64), k(n, 64);
  for (int64_t i = 0; i < q.size(); ++i) {
    q.data()[i] = static_cast<float>(rng.normal());
    k.data()[i] = static_cast<float>(rng.normal());
  }
  store.setLayer(0, q, k, 0.125f);
  return store;
}

void BM_StreamedOverview(benchmark::State& state) {
  // The window's first picture of a head at long N: the whole map recomputed from q/k and
  // max-pooled to at most 1024 cells a side (target: within 0.5 s of the click at N = 8192).
  const int n = static_cast<int>(state.range(0)), block = (n + 1023) / 1024;
  const auto store = randomQkStore(n);
  for (auto _ : state) {
    auto m = attn::models::pooledMap(store, 0, 0, block, attn::models::Pooling::Max);
    if (!m) state.SkipWithError(m.error().message.c_str());
    benchmark::DoNotOptimize(m->data());
  }
  state.counters["cells/s"] =
      benchmark::Counter(static_cast<double>(n) * n, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StreamedOverview)->Arg(2048)->Arg(8192)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_StreamedZoomedRect(benchmark::State& state) {
  // A zoomed view's redraw: a side x side rectangle at the end of the map (its rows' softmax
  // over all N keys), as panning asks for (target: >= 30 redraws/s at N = 8192).
  const int n = static_cast<int>(state.range(0)), side = static_cast<int>(state.range(1));
  const auto store = randomQkStore(n);
  const attn::models::MapRect rect{n - side, n, n - side, n};
  for (auto _ : state) {
    auto m = attn::models::headMap(store, 0, 0, rect);
    if (!m) state.SkipWithError(m.error().message.c_str());
    benchmark::DoNotOptimize(m->data());
  }
  state.counters["redraws/s"] = benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StreamedZoomedRect)
    ->Args({8192, 128})
    ->Args({8192, 512})
    ->ArgNames({"tokens", "side"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  std::string model;
  int tokens = 128, runs = 5;
  bool streamed = false, ceiling = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--model" && i + 1 < argc) model = argv[++i];
    else if (a == "--tokens" && i + 1 < argc) tokens = std::atoi(argv[++i]);
    else if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--streamed")
      streamed = true;
    else if (a == "--ceiling")
      ceiling = true;
  }
  if (!model.empty() && ceiling) return ceilingMain(model);
  if (!model.empty() && streamed) return streamedMain(model, std::max(1, tokens));
  if (!model.empty()) return modelMain(model, std::max(1, tokens), runs);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
