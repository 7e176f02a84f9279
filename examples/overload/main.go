package main

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// defaultQueueDeadline is the real mode's queue deadline: the client's 100 ms
// less the backend wait (10 ms) and the work, with a margin for scheduling. A
// request of a tenant under its share may wait that long and still finish in
// time; a tenant over its share gets the 10 ms standing-queue deadline anyway.
const defaultQueueDeadline = 80 * time.Millisecond

// unitCPU is the CPU a request of cost 1 is assumed to need, to express the
// simulation's measured decision time as a share of the work (the real mode
// measures that share directly).
const unitCPU = 100 * time.Microsecond

func main() {
	if maybeSpin() {
		return
	}
	os.Exit(command())
}

// command is the command; it returns the exit code, so that deferred clean-up
// (the autogroup's niceness) runs on every path.
func command() int {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	undo, err := setPriority(o.real.RT, o.real.Nice)
	if err != nil {
		fmt.Fprintln(os.Stderr, "overload:", err)
		return 2
	}
	defer undo()
	if code := simulate(o, os.Stdout); code != 0 {
		return code
	}
	if o.realMode {
		return realMode(o.real, o.tracePath)
	}
	return 0
}

// options are the command's flags.
type options struct {
	d         time.Duration // virtual duration of the simulation
	plotPath  string        // "": no plot
	loop      bool          // also run the closed-loop model
	loopSeed  uint64
	realMode  bool
	real      realConfig // the real mode's settings but Trace (from tracePath)
	burst     string     // the real mode's burst, at:for:procs
	tracePath string     // the real mode's trace file ("": none)
}

// parseFlags reads the command line, printing usage and errors to errOut. An
// argument that is not a flag is refused rather than ignored: flag parsing
// stops at the first one, so "overload -d 10ms real -rd 5s" would otherwise
// run the simulation alone, at the default -rd.
func parseFlags(args []string, errOut io.Writer) (options, error) {
	fs := flag.NewFlagSet("overload", flag.ContinueOnError)
	fs.SetOutput(errOut)
	var o options
	r := &o.real
	fs.DurationVar(&o.d, "d", 20*time.Second, "virtual duration of the simulation (positive, at most 2m: every arrival is held in memory)")
	fs.StringVar(&o.plotPath, "plot", "overload.svg", "plot file, in the format its name ends in: .svg, .png or .pdf; empty for none")
	fs.BoolVar(&o.realMode, "real", false, "also run the real mode (goroutines, CPU burn, aimd)")
	fs.DurationVar(&r.Duration, "rd", 20*time.Second, "real mode: measured duration (positive)")
	fs.DurationVar(&r.Warmup, "warmup", 5*time.Second, "real mode: warm-up and calibration before the measured run (positive)")
	fs.DurationVar(&r.Recal, "recal", 0, "real mode: repeat the calibration for this long after the measured run, and print goodput against both (0: off)")
	fs.StringVar(&r.Profile, "cpuprofile", "", "real mode: write a CPU profile of the measured run here, and print the shed+aimd share")
	fs.IntVar(&r.ProfileHz, "profilehz", defaultProfileHz, "real mode: the CPU profile's samples per second of CPU (above 100, the runtime prints that it cannot set the rate; it is set)")
	fs.StringVar(&r.MutexProfile, "mutexprofile", "", "real mode: write a mutex contention profile of the measured run here")
	fs.Float64Var(&r.Target, "target", 0.9, "real mode: CPU utilization aimd holds (positive)")
	fs.DurationVar(&r.Work, "work", 200*time.Microsecond, "real mode: CPU per request (positive)")
	fs.DurationVar(&r.Backend, "backend", 10*time.Millisecond, "real mode: backend wait per request (positive)")
	fs.DurationVar(&r.QueueDeadline, "qd", defaultQueueDeadline, "real mode: the shedder's queue deadline (positive)")
	fs.Float64Var(&r.Cores, "cores", 0, "real mode: CPU budget in cores the target is relative to (0: GOMAXPROCS, at most GOMAXPROCS); use less on a shared machine")
	fs.BoolVar(&o.loop, "loop", false, "also run the closed-loop model of the real mode under each disturbance (HISTORY.md)")
	fs.Int64Var(&r.NoisyCost, "noisycost", 1, "real mode: cost of a noisy tenant's request in the measured run (the issue's variants: 1 and 4; at least 1, at most the cost whose work, cost x -work, fills the client's 100 ms deadline: 500 at the default -work)")
	fs.DurationVar(&r.SchedTarget, "sched", 20*time.Millisecond, "real mode: also hold the Go scheduler's p99 latency below this (0: CPU only)")
	fs.Uint64Var(&o.loopSeed, "loopseed", 1, "closed-loop model: seed of the arrivals and the signal noise")
	fs.StringVar(&o.tracePath, "trace", "", "real mode: write one line per control period of the measured run here")
	fs.StringVar(&o.burst, "burst", "", "real mode: inject an outside CPU burst, at:for:procs into the measured run (e.g. 10s:300ms:1: one busy process for 300ms, 10s in)")
	fs.BoolVar(&r.Recover, "recover", false, "real mode: turn on aimd's fast recovery after cuts (aimd.Config.Recover)")
	fs.IntVar(&r.Nice, "nice", 0, "run at this scheduling niceness (-20..19; 0: leave it) so that the machine's other processes take less CPU from the experiment; below the current one needs root (Linux)")
	fs.IntVar(&r.RT, "rt", 0, "run in the real-time round-robin scheduling policy at this priority (1-99; 0: the normal policy) so that the machine's other processes cannot take CPU from the experiment while it is runnable; needs root (Linux)")
	fs.BoolVar(&r.AtDeadline, "atdeadline", false, "real mode: shed the floods' excess at its queue deadline, not on arrival (shed.Config.ShedOnArrival off)")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q: settings are flags (-real, -d 10ms, -plot '', ...; -h lists them)", fs.Arg(0))
		fmt.Fprintln(errOut, "overload:", err)
		return options{}, err
	}
	var err error
	if o.real.Burst, err = parseBurst(o.burst); err != nil {
		fmt.Fprintln(errOut, "overload:", err)
		return options{}, err
	}
	if err := checkFlags(o); err != nil {
		fmt.Fprintln(errOut, "overload:", err)
		return options{}, err
	}
	if err := modeFlags(fs, o); err != nil {
		fmt.Fprintln(errOut, "overload:", err)
		return options{}, err
	}
	if err := profileFlags(fs, o.real); err != nil {
		fmt.Fprintln(errOut, "overload:", err)
		return options{}, err
	}
	return o, nil
}

// modeFlags refuses a flag set for a mode the command line does not run: a
// real-mode flag without -real, -loopseed without -loop. Each was accepted
// and ignored: "overload -rd 60s -cpuprofile cpu.pprof -trace t.tsv" ran the
// simulation alone, wrote neither file and exited 0.
func modeFlags(fs *flag.FlagSet, o options) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch {
		case err != nil:
		case !o.realMode && strings.HasPrefix(f.Usage, "real mode:"):
			err = fmt.Errorf("-%s is a setting of the real mode, which runs with -real only", f.Name)
		case !o.loop && strings.HasPrefix(f.Usage, "closed-loop model:"):
			err = fmt.Errorf("-%s is a setting of the closed-loop model, which runs with -loop only", f.Name)
		}
	})
	return err
}

// profileFlags refuses -profilehz without -cpuprofile: it sets the rate of
// the CPU profile that -cpuprofile writes, and with none it was accepted and
// ignored ("overload -real -profilehz 1000" wrote no profile and said
// nothing).
func profileFlags(fs *flag.FlagSet, r realConfig) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "profilehz" && r.Profile == "" {
			err = errors.New("-profilehz sets the rate of the CPU profile that -cpuprofile writes: give -cpuprofile too")
		}
	})
	return err
}

// maxSimDuration bounds -d. The simulation draws every arrival of its
// virtual time before it runs (135% of 32,000 units a second: about 43,000
// requests) and holds them, with each policy's copy, for the whole run: a
// typo such as -d 20m for 20s drew some 52 million arrivals per variant and
// ran the machine out of memory instead of refusing.
const maxSimDuration = 2 * time.Minute

// checkFlags refuses the values that leave a run without a window to divide
// by: a simulation or a measured run of no length has no arrivals and no
// capacity, and its goodput printed as NaN.
func checkFlags(o options) error {
	if o.d <= 0 {
		return fmt.Errorf("-d %v: the simulation's duration must be positive", o.d)
	}
	if o.d > maxSimDuration {
		return fmt.Errorf("-d %v: at most %v of virtual time (every arrival is drawn up front and held, about 43,000 per virtual second)", o.d, maxSimDuration)
	}
	if o.real.Duration <= 0 {
		return fmt.Errorf("-rd %v: the measured run's duration must be positive", o.real.Duration)
	}
	if c := o.real.NoisyCost; c == 0 { // realConfig takes 0 for its default, 1; the flag has no such meaning
		return errors.New("-noisycost 0: a request costs at least 1")
	}
	if err := zeroRefused(o.real); err != nil {
		return err
	}
	if err := plotFormat(o.plotPath); err != nil {
		return err
	}
	// The kernel clamps a niceness to -20..19 without a word (the run then
	// stopped on "renice to 50: thread N is at 19"), and refuses a real-time
	// priority outside 1..99 only when the policy is applied.
	if n := o.real.Nice; n < -20 || n > 19 {
		return fmt.Errorf("-nice %d: a niceness is -20..19 (0: leave it)", n)
	}
	if p := o.real.RT; p < 0 || p > 99 {
		return fmt.Errorf("-rt %d: a real-time priority is 1..99 (0: the normal policy)", p)
	}
	if c := o.real.Cores; c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
		return fmt.Errorf("-cores %v: the CPU budget must be a finite number of cores (0: GOMAXPROCS)", c)
	}
	return o.real.check()
}

// plotFormat refuses a -plot name whose extension is none of the formats
// the plot is written in (the plot library picks the format by the name's
// extension, case-insensitively). Such a name ran the whole simulation, then
// failed to save, leaving an empty file behind.
func plotFormat(path string) error {
	if path == "" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg", ".png", ".pdf":
		return nil
	}
	return fmt.Errorf("-plot %s: the plot's format follows its name, which must end in .svg, .png or .pdf", path)
}

// zeroRefused refuses a zero for the flags whose realConfig field takes 0 for
// its default: -work 0 ran 200µs of work, -backend 0 waited 10 ms, and the
// report printed the defaults for a run asked at zero. None of these flags
// has a "0: default".
func zeroRefused(r realConfig) error {
	for _, f := range []struct {
		flag, what string
		zero       bool
	}{
		{"-work", "a request burns some CPU", r.Work == 0},
		{"-warmup", "the warm-up calibrates the capacity", r.Warmup == 0},
		{"-backend", "the modeled backend waits", r.Backend == 0},
		{"-qd", "the shedder's queue deadline is positive", r.QueueDeadline == 0},
		{"-target", "aimd holds a positive CPU utilization", r.Target == 0},
		{"-profilehz", "the CPU profile samples at a positive rate", r.ProfileHz == 0},
	} {
		if f.zero {
			return fmt.Errorf("%s 0: %s (the flag has no \"0: default\")", f.flag, f.what)
		}
	}
	return nil
}

// setPriority puts the process in the real-time policy at priority rt and at
// niceness nice (0: leaves each as it is). The returned undo gives the
// autogroup its niceness back, and an interrupt does so too before it exits.
func setPriority(rt, nice int) (undo func(), err error) {
	if rt != 0 {
		if err := setRealtime(rt); err != nil {
			return nil, err
		}
	}
	if nice == 0 {
		return func() {}, nil
	}
	restore, err := setNice(nice)
	if err != nil {
		return nil, err
	}
	// The autogroup is the session's: an interrupted run gives it back too.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		_ = restore()
		os.Exit(130)
	}()
	return func() {
		if err := restore(); err != nil {
			fmt.Fprintln(os.Stderr, "overload:", err)
		}
	}, nil
}

// simulate runs the simulation and prints its table to w, writes its plot
// and, with -loop, runs the closed-loop model. It returns the exit code.
func simulate(o options, w io.Writer) int {
	res := experiment(o.d)
	printTable(w, res)
	fmt.Fprintf(w, "\nresult hash (deterministic part): %x\n", resultHash(res))
	if o.plotPath != "" {
		if err := plotResults(o.plotPath, res); err != nil {
			fmt.Fprintln(os.Stderr, "overload: plot:", err)
			return 1
		}
		fmt.Fprintln(w, "plot written to", o.plotPath)
	}
	if o.loop {
		if err := loopTable(w, o.loopSeed); err != nil {
			fmt.Fprintln(os.Stderr, "overload: closed loop:", err)
			return 1
		}
	}
	return 0
}

// realMode runs the real mode with cfg, writing its trace to tracePath (if
// not empty), and prints its results. It returns the exit code.
func realMode(cfg realConfig, tracePath string) int {
	var trace io.WriteCloser
	if tracePath != "" {
		f, err := os.Create(tracePath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "overload:", err)
			return 1
		}
		trace = f
	}
	r, err := runRealTraced(cfg, trace)
	if err != nil {
		fmt.Fprintln(os.Stderr, "overload: real mode:", err)
		return 1
	}
	r.print(os.Stdout)
	return 0
}

// runRealTraced is runReal with its trace written to trace (nil: none),
// which it closes. An error closing it fails the run as a write error does:
// a full disk or a network file system may report a lost write only then.
func runRealTraced(cfg realConfig, trace io.WriteCloser) (*realResult, error) {
	if trace == nil {
		return runReal(cfg)
	}
	cfg.Trace = trace
	r, err := runReal(cfg)
	if cerr := trace.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("trace: %w", cerr)
	}
	return r, err
}

// variant is one scenario of the experiment with its results per policy.
type variant struct {
	Name     string
	Scenario scenario
	Results  []outcome
}

// experiment runs every policy on both variants for d of virtual time.
func experiment(d time.Duration) []variant {
	var out []variant
	for _, v := range []struct {
		name string
		cost int64
	}{{"all requests cost 1", 1}, {"noisy requests cost 4", 4}} {
		s := defaultScenario(d, v.cost)
		reqs, names := s.arrivals()
		vr := variant{Name: v.name, Scenario: s}
		for _, p := range policies() {
			fresh := make([]request, len(reqs))
			copy(fresh, reqs)
			vr.Results = append(vr.Results, run(s, fresh, names, p))
		}
		out = append(out, vr)
	}
	return out
}

// metrics derived from an outcome.
func (o outcome) normalInDeadline() float64 { return pct(o.InDeadline[0], o.Offered[0]) }
func (o outcome) goodput() float64 {
	if o.CapacityCost <= 0 {
		return 0
	}
	return 100 * float64(o.UsefulCost) / o.CapacityCost
}
func (o outcome) nsPerDecision() float64 {
	if o.Decisions == 0 {
		return 0
	}
	return float64(o.DecisionNanos) / float64(o.Decisions)
}

// cpuShare is the decision time as a share of the served work, at unitCPU per
// unit of cost (0 when nothing was served).
func (o outcome) cpuShare() float64 {
	if o.BusyCost == 0 {
		return 0
	}
	return 100 * float64(o.DecisionNanos) / (float64(o.BusyCost) * float64(unitCPU))
}

func pct(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func printTable(w io.Writer, res []variant) {
	for _, v := range res {
		s := v.Scenario
		fmt.Fprintf(w, "\n%s: %d normal tenants (%.0f%% of capacity, lognormal sigma %.1f) + %d noisy at %.0f%% each (cost %d); %d slots x %v/unit; %v virtual; client deadline %v\n",
			v.Name, s.Normal, 100*s.NormalPct, s.Sigma, s.Noisy, 100*s.NoisyPct, s.NoisyCost, s.Slots, s.Unit, s.Duration, s.Deadline)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "policy\tnormal tenants w/ rejection\tnormal in deadline %\tnoisy tenants shedding\tgoodput %\tns/decision\tshedder CPU %\t")
		for _, o := range v.Results {
			fmt.Fprintf(tw, "%s\t%d / %d\t%.3f\t%d / %d\t%.2f\t%.0f\t%.3f\t\n", o.Policy,
				o.NormalRejected, s.Normal, o.normalInDeadline(), o.NoisyRejected, s.Noisy,
				o.goodput(), o.nsPerDecision(), o.cpuShare())
		}
		tw.Flush()
	}
}

// resultHash hashes everything deterministic in the results (all but the real
// time measurements).
func resultHash(res []variant) [32]byte {
	var b strings.Builder
	for _, v := range res {
		fmt.Fprintf(&b, "%s|%+v\n", v.Name, v.Scenario)
		for _, o := range v.Results {
			o.DecisionNanos = 0
			fmt.Fprintf(&b, "%+v\n", o)
		}
	}
	return sha256.Sum256([]byte(b.String()))
}
