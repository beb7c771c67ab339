// releaseIdleWorkers (worker_threads.h): after it, the OpenMP workers of the
// last parallel region use no CPU while the caller works alone (libgomp's
// workers otherwise spin about 8 ms, LLVM libomp's up to 200 ms), and the next
// parallel region runs as before.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <chrono>
#include <ctime>

#include "attn/engine/parallel_product.h"
#include "attn/engine/system_info.h"
#include "attn/engine/worker_threads.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

double cpuSeconds(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// CPU time of every thread of the process but the calling one.
double otherThreadsCpu() { return cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - cpuSeconds(CLOCK_THREAD_CPUTIME_ID); }

// Serial work on the calling thread for about `seconds` of wall time.
void workAlone(double seconds) {
  const auto start = std::chrono::steady_clock::now();
  volatile double x = 0;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) x = x + 1;
}

TEST(WorkerThreads, ReleasedWorkersUseNoCpuWhileTheCallerWorksAlone) {
  if (systemInfo().threads < 2) GTEST_SKIP() << "one OpenMP thread: no workers to release";
  // LLVM's libomp (it exports kmp_set_blocktime; libgomp does not) keeps its
  // workers spinning after a soft pause (worker_threads.h).
  if (dlsym(RTLD_DEFAULT, "kmp_set_blocktime") != nullptr) GTEST_SKIP() << "LLVM libomp: a soft pause does not stop its spinning";
  const Mat a = Mat::Random(1024, 256), b = Mat::Random(256, 256);  // 134 MFLOP: split over the threads
  const Mat expected = a * b;
  for (int round = 0; round < 3; ++round) {
    EXPECT_MATRIX_NEAR(parallelProduct(a, b), expected, 1e-4);
    releaseIdleWorkers();
    const double before = otherThreadsCpu();
    workAlone(0.05);
    // A spinning worker would have used several ms of the 50 (a busy machine
    // only lowers the figure).
    EXPECT_LT(otherThreadsCpu() - before, 0.002) << "round " << round;
  }
}

}  // namespace
}  // namespace attn
