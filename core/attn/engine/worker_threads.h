#pragma once
// The OpenMP worker threads between parallel regions. libgomp's idle workers
// busy-wait (spin) for a while after each region before they sleep (about 8 ms
// of CPU here, GOMP_SPINCOUNT; LLVM's libomp spins up to 200 ms, KMP_BLOCKTIME),
// which burns a core while the caller goes on alone: attnscope-cli metrics at
// N = 2048 spent 4% of its CPU time spinning while it wrote its report.

namespace attn {

/// Tells the calling thread's idle OpenMP workers to stop waiting for work
/// (omp_pause_resource_all, soft). With GCC's libgomp (the shipped builds)
/// they exit and use no more CPU; the next parallel region starts them again
/// (well under a millisecond). LLVM's libomp (the clang sanitizer build) keeps
/// them spinning until its KMP_BLOCKTIME ends: a hard pause would stop them,
/// but it frees the runtime's named critical sections under later regions.
/// For callers whose parallel work is done, before a long stretch of serial
/// work. Does nothing inside a parallel region or in a build without OpenMP.
void releaseIdleWorkers();

}  // namespace attn
