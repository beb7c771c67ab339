#include "openmp_wait.h"

#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <unistd.h>
#endif

namespace attn::cli {

void passiveOpenMpUnderLoad(char** argv) {
#if defined(__linux__)
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
  const char* off = std::getenv("ATTNSCOPE_WAIT_POLICY");
  if (off && std::strcmp(off, "default") == 0) return;
  double load[1] = {0};
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (getloadavg(load, 1) != 1 || cpus < 1 || load[0] <= static_cast<double>(cpus)) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 0) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: go on with the default policy
  unsetenv("OMP_WAIT_POLICY");
#else
  (void)argv;
#endif
}

}  // namespace attn::cli
