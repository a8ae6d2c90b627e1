// Command bench measures the lab's drain against its peers in one run on one
// machine: outboxlab's outbox, maragu.dev/goqite and River's SQLite driver on
// the same driver, pragmas, file system and message count; the raw
// write-transaction ceiling; the claim's latency at 10k and 1M rows; on one
// throwaway PostgreSQL server with initdb's defaults, the lab's drain (Step
// claim 1, StepBatch claim K) and River's pgx driver with 1 and 4 workers;
// and the whole suite's wall time and peak memory. Ratios against goqite and
// River are medians of alternating runs (-rounds, at least 5). It lives in its own module so the
// lab itself never depends on its peers. Run it with make bench.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"outboxlab/bench/internal/labbin"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

type options struct {
	messages, batch       int
	smallRows, largeRows  int
	samples, ceilingCount int
	labDir                string
	skipRiver, skipSuite  bool
	rounds, pgMessages    int
	skipPostgres          bool
	pgProfile             string
	roundMessages         int
	start                 time.Time
}

func main() {
	if len(os.Args) > 2 && os.Args[1] == rusageOf {
		os.Exit(measureChild(os.Args[2:]))
	}
	var o options
	flag.IntVar(&o.messages, "messages", 20000, "messages each contender sends and drains")
	flag.IntVar(&o.batch, "batch", 100, "outboxlab's claim size in the batched drain")
	flag.IntVar(&o.smallRows, "small-rows", 10_000, "outbox rows of the small claim-latency table")
	flag.IntVar(&o.largeRows, "large-rows", 1_000_000, "outbox rows of the large claim-latency table")
	flag.IntVar(&o.samples, "samples", 2000, "claims timed per table")
	flag.IntVar(&o.ceilingCount, "ceiling", 5000, "single-row transactions timed for the raw ceiling")
	flag.StringVar(&o.labDir, "lab", "..", "the lab's repository (for the suite run)")
	flag.BoolVar(&o.skipRiver, "skip-river", false, "leave River out")
	flag.BoolVar(&o.skipSuite, "skip-suite", false, "leave the suite run out")
	flag.IntVar(&o.roundMessages, "round-messages", 10000, "messages each contender drains in an alternating SQLite round")
	flag.IntVar(&o.rounds, "rounds", 5, "alternating runs behind each ratio against goqite and River (at least 5)")
	flag.IntVar(&o.pgMessages, "pg-messages", 1000, "messages each PostgreSQL contender drains per round")
	flag.BoolVar(&o.skipPostgres, "skip-postgres", false, "leave the PostgreSQL contenders out")
	flag.StringVar(&o.pgProfile, "pg-cpuprofile", "", "write a CPU profile of the PostgreSQL rounds to this file")
	flag.Parse()
	if o.rounds < 5 {
		fmt.Fprintln(os.Stderr, "bench: -rounds must be at least 5")
		os.Exit(2)
	}
	o.start = time.Now()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	dir, err := os.MkdirTemp("", "outboxlab-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Printf("outboxlab bench: %d cores (runtime.NumCPU), GOMAXPROCS %d, %s %s/%s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Printf("Every contender: modernc.org/sqlite, WAL, synchronous=NORMAL, busy_timeout=10000, BEGIN IMMEDIATE, files in %s, %d messages.\n",
		os.TempDir(), o.messages)
	fmt.Println("Ratios compare figures measured in this same run; absolute figures move with the machine's load.")
	fmt.Println()

	progress("raw ceiling")
	ceil, _, err := ceiling(ctx, dir, o.ceilingCount)
	if err != nil {
		return fmt.Errorf("raw ceiling: %w", err)
	}
	drains, riverErr, err := runDrains(ctx, dir, o)
	if err != nil {
		return err
	}
	printDrains(drains, ceil, riverErr)
	alt, err := alternate(ctx, dir, o)
	if err != nil {
		return err
	}
	fmt.Printf("outboxlab Step, claim 1 against goqite, %d alternating runs of %d messages: %.2f× (median; %s)\n",
		o.rounds, o.roundMessages, median(alt.stepVsGoqite), formatRatios(alt.stepVsGoqite))
	fmt.Printf("outboxlab StepBatch, claim %d against the raw ceiling, the same runs: %.2f× (median; %s)\n",
		o.batch, median(alt.batchVsCeiling), formatRatios(alt.batchVsCeiling))
	fmt.Printf("Its floor, the engine's claim and settlement run bare (prepared, no worker), the same runs:\n"+
		"  %.2f× the raw ceiling (median; %s);\n  StepBatch reaches %.2f of it (median; %s)\n",
		median(alt.floorVsCeiling), formatRatios(alt.floorVsCeiling), median(alt.batchVsFloor), formatRatios(alt.batchVsFloor))
	fmt.Printf("By CPU time (user+sys, medians of the same runs): StepBatch %.1fµs a message, bare %.1fµs,\n"+
		"  the ceiling %.1fµs a transaction: StepBatch %.2f× and its floor %.2f× the ceiling in CPU\n",
		median(alt.batchCPU), median(alt.floorCPU), median(alt.ceilingCPU),
		median(alt.ceilingCPU)/median(alt.batchCPU), median(alt.ceilingCPU)/median(alt.floorCPU))
	fmt.Printf("The least any drain can do on this schema (rowFloor: each row's two rewrites, by id range, no gate,\n"+
		"  no fencing, no RETURNING, no worker), the same runs: %.2f× the raw ceiling (median; %s),\n"+
		"  %.2f× reading the claimed messages too (median; %s); by CPU %.1fµs and %.1fµs a message\n\n",
		median(alt.writesVsCeiling), formatRatios(alt.writesVsCeiling), median(alt.readVsCeiling), formatRatios(alt.readVsCeiling),
		median(alt.writesCPU), median(alt.readCPU))

	sizes := []int{o.smallRows, o.largeRows}
	var files []string
	for _, n := range sizes {
		files = append(files, filepath.Join(dir, fmt.Sprintf("scale-%d.db", n)))
	}
	scales, err := claimLatency(ctx, files, sizes, o.samples)
	if err != nil {
		return fmt.Errorf("claim latency: %w", err)
	}
	printScale("SQLite", scales, o.samples)

	var suite, alone suiteRun
	if !o.skipSuite {
		progress("suite")
		bin, err := labbin.Build(ctx, o.labDir, dir)
		if err != nil {
			return err
		}
		if suite, err = runLab(ctx, bin, o.labDir, "all", "--no-report"); err != nil {
			return err
		}
		if alone, err = runLab(ctx, bin, o.labDir, "worker-throughput", "--no-report"); err != nil {
			return err
		}
		printSuite(suite, alone)
	}
	pg := &pgRun{err: fmt.Errorf("left out (-skip-postgres)")}
	if !o.skipPostgres {
		if pg, err = runPostgres(ctx, o); err != nil {
			return err
		}
	}
	pg.print(o.pgMessages)
	if pg.scales != nil {
		printScale("PostgreSQL", pg.scales, o.samples)
	}
	printTargets(alt, scales, pg, o, suite, alone)
	return nil
}

// rounds are the SQLite targets' alternating runs: in each, the raw
// ceiling, outboxlab's StepBatch (claim K), its Step (claim 1) and goqite
// in turn, so that the machine's load drifts over all of them alike.
type rounds struct {
	stepVsGoqite   []float64 // Step claim 1's messages/s over goqite's, per round
	batchVsCeiling []float64 // StepBatch claim K's messages/s over the ceiling's transactions/s
	floorVsCeiling []float64 // the engine's statements run bare (floorDrain), over the ceiling
	batchVsFloor   []float64 // StepBatch claim K over that floor
	// the schema's own row writes (rowFloor), alone and with the read, over the ceiling
	writesVsCeiling, readVsCeiling []float64
	// CPU time: StepBatch's and the floor's per message, the ceiling's per
	// transaction (µs), per round
	batchCPU, floorCPU, ceilingCPU []float64
	writesCPU, readCPU             []float64
}

// alternate runs the SQLite targets' contenders in turn, o.rounds times,
// and returns each round's ratios.
func alternate(ctx context.Context, dir string, o options) (rounds, error) {
	var rs rounds
	for round := range o.rounds {
		progress(fmt.Sprintf("SQLite round %d/%d: raw ceiling, outboxlab StepBatch claim %d, its statements bare, "+
			"the schema's row writes, Step claim 1, goqite", round+1, o.rounds, o.batch))
		sub, err := os.MkdirTemp(dir, "round-")
		if err != nil {
			return rs, err
		}
		ceil, ceilCPU, err := ceiling(ctx, sub, o.ceilingCount)
		if err != nil {
			return rs, err
		}
		batched, err := labDrain(ctx, sub, o.roundMessages, o.batch)
		if err != nil {
			return rs, err
		}
		floor, err := floorDrain(ctx, sub, o.roundMessages, o.batch)
		if err != nil {
			return rs, err
		}
		writes, err := rowFloor(ctx, sub, o.roundMessages, o.batch, false)
		if err != nil {
			return rs, err
		}
		withRead, err := rowFloor(ctx, sub, o.roundMessages, o.batch, true)
		if err != nil {
			return rs, err
		}
		lab, err := labStepDrain(ctx, sub, o.roundMessages, 1)
		if err != nil {
			return rs, err
		}
		gq, err := goqiteDrain(ctx, sub, o.roundMessages)
		if err != nil {
			return rs, err
		}
		rs.stepVsGoqite = append(rs.stepVsGoqite, lab.rate()/gq.rate())
		rs.batchVsCeiling = append(rs.batchVsCeiling, batched.rate()/ceil)
		rs.floorVsCeiling = append(rs.floorVsCeiling, floor.rate()/ceil)
		rs.batchVsFloor = append(rs.batchVsFloor, batched.rate()/floor.rate())
		rs.writesVsCeiling = append(rs.writesVsCeiling, writes.rate()/ceil)
		rs.readVsCeiling = append(rs.readVsCeiling, withRead.rate()/ceil)
		rs.writesCPU = append(rs.writesCPU, micros(writes.cpuPer()))
		rs.readCPU = append(rs.readCPU, micros(withRead.cpuPer()))
		rs.batchCPU = append(rs.batchCPU, micros(batched.cpuPer()))
		rs.floorCPU = append(rs.floorCPU, micros(floor.cpuPer()))
		rs.ceilingCPU = append(rs.ceilingCPU, micros(ceilCPU))
		os.RemoveAll(sub)
	}
	return rs, nil
}

func formatRatios(rs []float64) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%.2f×", r)
	}
	return "rounds " + strings.Join(parts, ", ")
}

func runDrains(ctx context.Context, dir string, o options) (drains []result, riverErr error, err error) {
	steps := []struct {
		what string
		fn   func() (result, error)
	}{
		{"outboxlab StepBatch, claim K", func() (result, error) { return labDrain(ctx, dir, o.messages, o.batch) }},
		{"outboxlab StepBatch, claim 1", func() (result, error) { return labDrain(ctx, dir, o.messages, 1) }},
		{"outboxlab Step, claim 1", func() (result, error) { return labStepDrain(ctx, dir, o.messages, 1) }},
		{"goqite", func() (result, error) { return goqiteDrain(ctx, dir, o.messages) }},
	}
	for _, s := range steps {
		progress(s.what)
		r, err := s.fn()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.what, err)
		}
		drains = append(drains, r)
	}
	if o.skipRiver {
		return drains, fmt.Errorf("left out (-skip-river)"), nil
	}
	progress("River")
	r, err := riverDrain(ctx, dir, o.messages, o.batch)
	if err != nil {
		return drains, err, nil
	}
	return append(drains, r), nil, nil
}

func progress(what string) {
	fmt.Fprintf(os.Stderr, "bench: %s %s\n", time.Now().Format("15:04:05"), what)
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
