// Training speed: the copy task of length 8 with d_model 32 should
// reach 99% accuracy within 3,000 Adam steps and run those steps in under 10 s
// on the 2-core machine. Prints steps per second per mechanism, and for the
// target config the step at which accuracy first reached 99% and the time for
// all 3,000 steps.
#include <benchmark/benchmark.h>

#include <chrono>

#include "attn/train/trainer.h"

namespace {

using namespace attn::train;

TrainConfig copyTarget(TrainMechanism m = TrainMechanism::ScaledDot) {
  TrainConfig c;  // the defaults are the config: copy, N 8, d_model 32, Adam
  c.task = Task::Copy;
  c.seqLen = 8;
  c.dModel = 32;
  c.mechanism = m;
  c.mapEvery = 100;
  return c;
}

void BM_TrainStep(benchmark::State& state) {
  auto t = Trainer::create(copyTarget(static_cast<TrainMechanism>(state.range(0))));
  for (auto _ : state) {
    if (t->stepCount() >= 5000) t->reset();
    benchmark::DoNotOptimize(t->step());
  }
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.SetLabel(std::string(trainMechanismName(static_cast<TrainMechanism>(state.range(0)))));
}
BENCHMARK(BM_TrainStep)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

void BM_CopyTo99Percent(benchmark::State& state) {
  for (auto _ : state) {
    auto t = Trainer::create(copyTarget());
    int first99 = -1;
    const auto t0 = std::chrono::steady_clock::now();
    (void)t->run(3000, nullptr, [&](const StepSnapshot& s) {
      if (first99 < 0 && s.accuracy >= 0.99) first99 = s.step;
      return true;
    });
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.counters["seconds_3000_steps"] = secs;
    state.counters["steps_per_s"] = 3000 / secs;
    state.counters["first_step_at_99pct"] = first99;
    state.counters["final_accuracy"] = t->latest().accuracy;
  }
}
BENCHMARK(BM_CopyTo99Percent)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
