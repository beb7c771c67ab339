#include "openmp_wait.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <unistd.h>
#endif

namespace attn::cli {

#if defined(__linux__)
namespace {

/// Another task runnable right now (the 4th field of /proc/loadavg counts this process too), or
/// the 1-minute load average over the CPUs: either way a spinning worker would take the time
/// slice a working thread needs. (One other compiler on two cores, load average 1.4-2.2, made a
/// ViT-B F32 run 1.1-1.5 s spinning instead of 0.4-0.5 s.)
bool machineBusy() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  double load = 0;
  long running = 0, total = 0;
  FILE* f = std::fopen("/proc/loadavg", "r");
  if (!f) return false;
  const int got = std::fscanf(f, "%lf %*f %*f %ld/%ld", &load, &running, &total);
  std::fclose(f);
  if (got != 3 || cpus < 1) return false;
  return running > 1 || load > static_cast<double>(cpus);
}

}  // namespace
#endif

void passiveOpenMpUnderLoad(char** argv) {
#if defined(__linux__)
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
  const char* off = std::getenv("ATTNSCOPE_WAIT_POLICY");
  if (off && std::strcmp(off, "default") == 0) return;
  if (!machineBusy()) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 0) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: go on with the default policy
  unsetenv("OMP_WAIT_POLICY");
#else
  (void)argv;
#endif
}

}  // namespace attn::cli
