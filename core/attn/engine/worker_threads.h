#pragma once
// The OpenMP worker threads between parallel regions. libgomp's idle workers
// busy-wait (spin) for a while after each region before they sleep (GOMP_SPINCOUNT; LLVM's libomp spins up to 200 ms, KMP_BLOCKTIME),
// which burns a core while the caller goes on alone (for instance while
// attnscope-cli metrics writes its report).

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
