// Command overload reproduces the ZGateway article's isolation experiment: about
// 1,350 tenant buckets at more than 90% CPU, where only the 6 noisy neighbours
// should shed while the ~1,344 others run with zero rejections.
//
// The simulation runs the real shed drain core ([shed.Scheduler]) on a virtual
// clock, deterministically (seeded arrivals; the same output bit for bit on every
// run), next to baselines in the same harness: one global FIFO, per-tenant round
// robin by count, Kubernetes APF shuffle-sharded fair queuing (64 queues hand 8,
// 128/8, and 128/6 as APF ships its workload-low and global-default levels), and
// Netflix concurrency-limits percentage partitions; and a second shed row with
// the real mode's options. Two variants: every request costs 1, and noisy
// requests cost 4.
//
//	go run ./overload                 # 20 s of virtual time, table + plot
//	go run ./overload -d 60s          # longer
//	go run ./overload -real -rd 20s   # real mode: goroutines, CPU-burning handler, aimd at 90% CPU
//	go run ./overload -real -rt 1     # the same in the real-time policy (Linux, root), so that the
//	                                  # machine's other processes cannot take a core from it
//
// The simulation always runs (-d, at most 2m; -plot, "" for none); -loop adds the
// closed-loop model of the real mode on explicit time; -real adds the real mode,
// whose flags (-rd, -warmup, -target, -work, -backend, -cores, -burst, -trace,
// -cpuprofile, ...) are refused without it. A bad flag or argument is a usage
// error (exit 2); a run that fails (a plot or trace it cannot write) exits 1.
// examples/overload/README.md lists every flag and holds the results;
// HISTORY.md says how each was made.
//
// # When not to use it
//
// The simulation is a model, not a benchmark: its slots, costs and deadlines are
// virtual, and only its ns/decision (and the shedder CPU share derived from it)
// is a measured time. The real mode is
// an experiment on this process's own CPU, not a load tester for a server: its
// requests are goroutines that burn CPU and sleep for the backend, and it
// shares the machine with whatever else runs there (-cores, -nice and -rt
// reduce that; -burst injects it on purpose). For the gateway under real
// clients see examples/gateway and examples/cluster.
//
// # Concurrency
//
// The simulation and the closed-loop model run on main's goroutine. The real
// mode starts a goroutine per request (admission by shed, the CPU work, the
// backend wait), paced open loop by main's goroutine, and one control goroutine
// that ticks aimd and kicks the shedder every 100 ms; it waits for every
// request, then stops the control goroutine. -burst starts copies of this
// program (through a launcher), each in a session of its own, that spin for the
// burst's length and exit on their own. With -nice, SIGINT or SIGTERM gives the
// session's autogroup its niceness back and exits 130; otherwise it handles no
// signals.
//
// # Stats
//
// The simulation prints, per variant and policy, the normal tenants with a
// rejection, the normal requests served in deadline, the noisy tenants
// shedding, goodput, ns per decision and the shedder's CPU share, then a hash
// of the deterministic part, and writes the plot (overload.svg by default).
// The real mode prints its calibration and capacity, process CPU against the
// budget per 100 ms period, the aimd limit's range, offered, admitted and shed
// requests per class and shed reason, goodput, the warm-up's figures, the
// core-to-core round trip before and after, and, if asked, the shed+aimd share
// of a CPU profile. -trace writes one line per control period of the measured
// run, -cpuprofile and -mutexprofile the profiles.
package main
