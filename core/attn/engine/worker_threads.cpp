#include "attn/engine/worker_threads.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {

void releaseIdleWorkers() {
#ifdef _OPENMP
  if (omp_in_parallel()) return;
  omp_pause_resource_all(omp_pause_soft);
#endif
}

}  // namespace attn
