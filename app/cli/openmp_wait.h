#pragma once
// Passive OpenMP waiting when the machine is already busy (end-to-end speed under load).
//
// libgomp's default lets an idle worker spin for up to ~300,000 iterations after every region
// and at every barrier before it sleeps. On idle cores that is free and saves a wake-up; when
// other processes keep every core busy, the spinning thread takes the time slice the thread it
// waits for needed (a ViT-B forward, load average 5-7 on two cores: 1.1-2.1 s spinning by
// default against 0.26-0.68 s with OMP_WAIT_POLICY=passive, docs/performance.md). libgomp reads
// the policy once, in its constructor before main(), so the CLI restarts itself with it.
namespace attn::cli {

/// Call first in main(). When neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set and another task
/// is runnable right now or the 1-minute load average exceeds the online CPUs (/proc/loadavg),
/// sets OMP_WAIT_POLICY=passive and
/// re-executes /proc/self/exe with the same arguments (it then finds the policy set and goes
/// on). Returns normally whenever it does not (or cannot) restart; ATTNSCOPE_WAIT_POLICY=default
/// turns it off.
void passiveOpenMpUnderLoad(char** argv);

}  // namespace attn::cli
