package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// cell is one measured figure against a target.
type cell struct {
	text string
	ok   bool
	na   bool // the target does not apply (a baseline has no classifier)
}

// targetRow is one target of the issue measured for every controller.
type targetRow struct {
	target string
	cells  []cell
}

func fmtCell(ok bool, format string, args ...any) cell {
	return cell{text: fmt.Sprintf(format, args...), ok: ok}
}

// balancerTargets evaluates the balancer targets for each controller, in the order
// of balControllers.
func balancerTargets(rs []balResult) (ctls []string, rows []targetRow) {
	by := map[string]map[string]balResult{}
	for _, r := range rs {
		if by[r.ctl] == nil {
			by[r.ctl] = map[string]balResult{}
			ctls = append(ctls, r.ctl)
		}
		by[r.ctl][r.scenario] = r
	}
	add := func(target string, f func(m map[string]balResult) cell) {
		row := targetRow{target: target}
		for _, c := range ctls {
			row.cells = append(row.cells, f(by[c]))
		}
		rows = append(rows, row)
	}
	add("max/mean <= 1.06, every scenario (worst, settled)", func(m map[string]balResult) cell {
		worst := 0.0
		for _, r := range m {
			worst = math.Max(worst, r.MaxMean)
		}
		return fmtCell(worst <= 1.06, "%.3f", worst)
	})
	add("keyspace moved <= 0.1%/run once settled (worst mean)", func(m map[string]balResult) cell {
		worst := 0.0
		for _, r := range m {
			worst = math.Max(worst, r.Moved)
		}
		return fmtCell(worst <= 0.001, "%.3f%%", 100*worst)
	})
	add("flat-initial: settled <= 3 runs, no host > 100%", func(m map[string]balResult) cell {
		r := m["flat-initial"]
		return fmtCell(r.FlatSettled >= 0 && r.FlatSettled <= 3 && r.Over100 == 0, "run %d, %d over", r.FlatSettled, r.Over100)
	})
	add("task churn: p95 max/mean <= 1.10", func(m map[string]balResult) cell {
		r := m["task-churn"]
		return fmtCell(r.P95 <= 1.10, "%.3f", r.P95)
	})
	add("classifier >= 95% right from 3 runs after a change", func(m map[string]balResult) cell {
		worst := 1.0
		for _, r := range m {
			if math.IsNaN(r.Accuracy) {
				return cell{text: "no classifier", na: true}
			}
			worst = math.Min(worst, r.Accuracy)
		}
		return fmtCell(worst >= 0.95, "%.1f%%", 100*worst)
	})
	return ctls, rows
}

// failoverTargets evaluates the failover targets for each router.
func failoverTargets(rs []failResult, k knobResult) (ctls []string, rows []targetRow) {
	for _, r := range rs {
		ctls = append(ctls, r.ctl)
	}
	add := func(target string, f func(i int, r failResult) cell) {
		row := targetRow{target: target}
		for i, r := range rs {
			row.cells = append(row.cells, f(i, r))
		}
		rows = append(rows, row)
	}
	add("no region > 90% while global headroom >= 15% (region-min)", func(_ int, r failResult) cell {
		return fmtCell(r.Over90 == 0, "%d (peak %.2f)", r.Over90, r.PeakCPU)
	})
	add("spill >= 2 runs before a 90% crossing (min lead)", func(_ int, r failResult) cell {
		if r.Crossings == 0 { // no crossing, no lead to measure
			return cell{text: "no crossing", na: true}
		}
		if r.MinLead < 0 {
			return fmtCell(false, "not spilling")
		}
		return fmtCell(r.MinLead >= 2, "%d runs", r.MinLead)
	})
	add("cross-region <= 1% when nothing is wrong", func(_ int, r failResult) cell {
		return fmtCell(r.CrossIdle <= 0.01, "%.2f%%", 100*r.CrossIdle)
	})
	add("<= 1 reversal per hour", func(_ int, r failResult) cell {
		return fmtCell(r.ReversalsPerHour <= 1, "%.2f/h", r.ReversalsPerHour)
	})
	add("receiving region peak CPU (no target; lower is safer)", func(_ int, r failResult) cell {
		if r.RecvPeak == 0 {
			return cell{text: "never received", na: true}
		}
		return cell{text: fmt.Sprintf("%.2f", r.RecvPeak), na: true}
	})
	add("ring a2->a1 share within 2 points of 70%", func(i int, r failResult) cell {
		if i == 0 && math.IsNaN(k.RingA1) { // no run with an uncapped ring spill
			return cell{text: "no ring spill", na: true}
		}
		if i == 0 {
			return fmtCell(math.Abs(k.RingA1-70) <= 2, "%.1f%%", k.RingA1)
		}
		if math.IsNaN(r.RingA1) {
			return cell{text: "no spill", na: true}
		}
		return fmtCell(math.Abs(100*r.RingA1-70) <= 2, "%.1f%% (no rings)", 100*r.RingA1)
	})
	add("knob (60%) realized within 1 point", func(i int, _ failResult) cell {
		if i == 0 && k.Runs == 0 { // b2 never wanted to spill at a measured run
			return cell{text: "not measured", na: true}
		}
		if i == 0 {
			return fmtCell(math.Abs(k.Realized-k.Knob) <= 1, "%.1f%%", k.Realized)
		}
		return cell{text: "no knob", na: true}
	})
	return ctls, rows
}

func printTargets(w io.Writer, title string, ctls []string, rows []targetRow) {
	fmt.Fprintf(w, "\n%s\n", title)
	fmt.Fprintf(w, "%-58s", "target")
	for _, c := range ctls {
		fmt.Fprintf(w, " | %-22s", c)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, strings.Repeat("-", 58+25*len(ctls)))
	for _, r := range rows {
		fmt.Fprintf(w, "%-58s", r.target)
		for _, c := range r.cells {
			mark := "ok  "
			switch {
			case c.na:
				mark = "    "
			case !c.ok:
				mark = "MISS"
			}
			fmt.Fprintf(w, " | %s %-17s", mark, c.text)
		}
		fmt.Fprintln(w)
	}
}
