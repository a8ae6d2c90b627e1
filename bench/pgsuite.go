package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"

	"outboxlab/core/pgdb"
	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
)

// pgRun is the PostgreSQL half of the bench: each contender's median
// messages/s over the rounds, and the ratios the targets judge, each the
// median of one ratio per round (the contenders take turns in every round).
type pgRun struct {
	err        error // the server could not start: nothing measured
	rounds     int
	contenders []pgContender
	rates      [][]float64 // [contender][round]; NaN where the round failed
	failures   [][]string  // [contender]: what each failed round reported
	medians    []float64
	scales     []scaleRun // claim latency at -small-rows and -large-rows
	// per contender and round, the machine's CPU (worker and server) per
	// message and how many of its cores were busy, from machineBusy; NaN
	// where not measured
	cpuPer, cores [][]float64
	waits         []waitProfile // Step claim 1 with 1 and 4 workers, sampled
}

// pgContenders are the lab's drain (Step claim 1, StepBatch claim K) and
// River's pgx driver, each with 1 and 4 workers.
func pgContenders(batch int) []pgContender {
	var cs []pgContender
	for _, w := range []int{1, 4} {
		cs = append(cs,
			pgContender{name: fmt.Sprintf("outboxlab Step, claim 1, %s", report.Plural(w, "worker")), workers: w,
				run: pgLabDrain(true, 1)},
			pgContender{name: fmt.Sprintf("outboxlab StepBatch, claim %d, %s", batch, report.Plural(w, "worker")), workers: w,
				run: pgLabDrain(false, batch)},
			pgContender{name: fmt.Sprintf("River v0.51.2 (riverpgxv5), MaxWorkers %d, %s", batch, report.Plural(w, "client")),
				workers: w, run: pgRiverDrain(batch)})
	}
	return cs
}

// runPostgres starts a throwaway server with initdb's defaults (fsync and
// synchronous_commit on) and runs every contender rounds times, in turn.
func runPostgres(ctx context.Context, o options) (*pgRun, error) {
	run := &pgRun{rounds: o.rounds, contenders: pgContenders(o.batch)}
	progress("PostgreSQL server")
	server, err := pgtest.StartDurable()
	if err != nil {
		run.err = err
		return run, nil
	}
	defer server.Stop()
	if err := pgbenchInit(ctx, server); err != nil {
		return nil, err
	}
	run.contenders = append(run.contenders,
		pgContender{name: "pgbench simple-update (transactions/s), 1 client", workers: 1, run: pgbenchRun(server)},
		pgContender{name: "pgbench simple-update (transactions/s), 4 clients", workers: 4, run: pgbenchRun(server)})
	if o.pgProfile != "" {
		f, err := os.Create(o.pgProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	run.rates = make([][]float64, len(run.contenders))
	run.cpuPer = make([][]float64, len(run.contenders))
	run.cores = make([][]float64, len(run.contenders))
	run.failures = make([][]string, len(run.contenders))
	for round := range o.rounds {
		for i, c := range run.contenders {
			progress(fmt.Sprintf("PostgreSQL round %d/%d: %s", round+1, o.rounds, c.name))
			// A round whose drain is wrong (a message handled twice, say)
			// is reported beside the figures, not dropped silently.
			r, err := c.run(ctx, server.URL, o.pgMessages, c.workers)
			rate := r.rate()
			if err != nil {
				rate = math.NaN()
				run.failures[i] = append(run.failures[i], fmt.Sprintf("round %d: %v", round+1, err))
				progress(fmt.Sprintf("PostgreSQL round %d/%d: %s FAILED: %v", round+1, o.rounds, c.name, err))
			}
			run.rates[i] = append(run.rates[i], rate)
			cpuPer, cores := math.NaN(), math.NaN()
			if err == nil && r.busy > 0 {
				cpuPer, cores = micros(r.busy)/float64(r.n), r.busy.Seconds()/r.drain.Seconds()
			}
			run.cpuPer[i], run.cores[i] = append(run.cpuPer[i], cpuPer), append(run.cores[i], cores)
		}
	}
	// Where the sessions' time goes, for the scaling target's why: one more
	// drain each with one and four workers, sampled (the sampler costs the
	// drain some of its speed, so these runs are not timed).
	for _, workers := range []int{1, 4} {
		progress(fmt.Sprintf("PostgreSQL: where Step's sessions wait, %s", report.Plural(workers, "worker")))
		p, err := pgWaits(ctx, server.URL, o.pgMessages, workers)
		if err != nil {
			return nil, fmt.Errorf("sample the sessions' waits: %w", err)
		}
		run.waits = append(run.waits, p)
	}
	for _, rates := range run.rates {
		run.medians = append(run.medians, median(rates))
	}
	sizes := []int{o.smallRows, o.largeRows}
	var schemas []string
	for range sizes {
		s, err := pgdb.CreateRunSchema(ctx, server.URL, "bench-scale")
		if err != nil {
			return nil, err
		}
		defer s.Drop(ctx)
		schemas = append(schemas, s.URL)
	}
	if run.scales, err = claimLatency(ctx, schemas, sizes, o.samples); err != nil {
		return nil, fmt.Errorf("postgres claim latency: %w", err)
	}
	return run, nil
}

// latencyTarget judges the claim's latency on the large table against the small one.
func (p *pgRun) latencyTarget() []string {
	const name = "PostgreSQL, claim latency at the large table ≤ 1.5× the small"
	if p.err != nil || p.scales == nil {
		return []string{name, "not measured", met(false)}
	}
	small, large := p.scales[0], p.scales[len(p.scales)-1]
	worst := max(ratio(large.claimTx, small.claimTx), ratio(large.batcher, small.batcher))
	return []string{fmt.Sprintf("PostgreSQL, claim latency at %d rows ≤ 1.5× at %d", large.rows, small.rows),
		fmt.Sprintf("%.2f× (worse of the two claims)", worst), met(worst <= 1.5)}
}

// ratio is the median over the rounds of contender a's messages/s over b's.
func (p *pgRun) ratio(a, b int) float64 {
	rs := make([]float64, p.rounds)
	for i := range rs {
		rs[i] = p.rates[a][i] / p.rates[b][i]
	}
	return median(rs)
}

// median is the median of xs without its NaNs (failed rounds); NaN when
// every round failed.
func median(xs []float64) float64 {
	s := slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
	if len(s) == 0 {
		return math.NaN()
	}
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (p *pgRun) print(n int) {
	fmt.Printf("PostgreSQL drain: %d messages, median of %d rounds, one throwaway server with initdb's defaults\n", n, p.rounds)
	if p.err != nil {
		fmt.Printf("PostgreSQL: not measured: %v\n\n", p.err)
		return
	}
	var rows [][]string
	var failed []string
	for i, c := range p.contenders {
		ok := slices.DeleteFunc(slices.Clone(p.rates[i]), math.IsNaN)
		spread := "—"
		if len(ok) > 0 {
			spread = fmt.Sprintf("%.0f to %.0f", slices.Min(ok), slices.Max(ok))
		}
		rows = append(rows, []string{c.name, fmt.Sprintf("%.0f", p.medians[i]), spread,
			fmt.Sprintf("%d of %d", len(p.failures[i]), p.rounds)})
		for _, f := range p.failures[i] {
			failed = append(failed, c.name+", "+f)
		}
	}
	fmt.Print(report.RenderTable([]string{"Contender", "Messages/s (median)", "Range over the rounds", "Failed rounds"}, rows))
	for _, f := range failed {
		fmt.Println("FAILED: " + f)
	}
	fmt.Println()
	printWaits(p.waits, n)
}

// pgTargets are the PostgreSQL targets: 4 workers against 1 with claims of
// 1, absolutely and against pgbench's own 1→4 client scaling on the same
// server, and the batched drain against River at each worker count. The
// contenders come in threes per worker count (Step, StepBatch, River), then
// pgbench with 1 and 4 clients.
func (p *pgRun) targets(batch int) [][]string {
	if p.err != nil {
		return [][]string{{"PostgreSQL targets", "not measured: " + p.err.Error(), "NOT met"}}
	}
	const one, four, bench1, bench4 = 0, 3, 6, 7
	scale, server := p.ratio(four, one), p.ratio(bench4, bench1)
	ok := len(p.failures[one])+len(p.failures[four]) == 0
	rows := [][]string{
		{"PostgreSQL, 4 workers, claim 1 ≥ 1.8× one worker", fmt.Sprintf("%.2f× (median of %d)", scale, p.rounds),
			met(scale >= 1.8 && ok)},
		{"PostgreSQL, 4 workers, claim 1: scaling ≥ 0.9× pgbench's 1→4 clients",
			fmt.Sprintf("%.2f of pgbench's %.2f× (medians of %d)", scale/server, server, p.rounds),
			met(scale >= 0.9*server && ok && len(p.failures[bench1])+len(p.failures[bench4]) == 0)}}
	for _, base := range []int{one, four} {
		r := p.ratio(base+1, base+2)
		rows = append(rows, []string{fmt.Sprintf("PostgreSQL, claim %d, %s ≥ 1.5× River", batch, report.Plural(p.contenders[base].workers, "worker")),
			fmt.Sprintf("%.2f× (median of %d)", r, p.rounds), met(r >= 1.5 && len(p.failures[base+1])+len(p.failures[base+2]) == 0)})
	}
	return rows
}

// why explains, from this run's figures, a PostgreSQL target not met: the
// 4-worker scaling against pgbench's, as commits per second against
// pgbench's; the batched drain of one worker under 1.5× River: a claim and a
// settlement are two commits per batch, each waiting for the WAL's flush
// (synchronous_commit stays on), so one worker drains at most batch / 2
// messages per commit time, and pgbench's 1-client transactions/s is the
// server's commit rate for one session.
func (p *pgRun) why(batch int) []string {
	if p.err != nil {
		return nil
	}
	var lines []string
	const four, bench4 = 3, 7
	if scale, server := p.ratio(four, 0), p.ratio(bench4, 6); scale < 0.9*server {
		lines = append(lines, p.whyScaling(scale, server)...)
	}
	const one, bench1 = 0, 6
	r := p.ratio(one+1, one+2)
	if r >= 1.5 {
		return lines
	}
	commits := p.medians[bench1]
	bound := commits * float64(batch) / 2
	return append(lines,
		fmt.Sprintf("Why PostgreSQL claim %d, 1 worker, is %.2f× River and not 1.5×:", batch, r),
		"  one worker pays two commits per batch (claim, then settlement; synchronous_commit on);",
		fmt.Sprintf("  one session commits %.0f times/s on this server (pgbench, 1 client), a bound of about",
			commits),
		fmt.Sprintf("  %.0f messages/s: it drained %.0f (%.0f%% of that bound), River %.0f (%.0f%%).",
			bound, p.medians[one+1], 100*p.medians[one+1]/bound, p.medians[one+2], 100*p.medians[one+2]/bound),
		"  The rest of a batch is the server's work and the round trips of its statements (see the",
		"  CPU profile, -pg-cpuprofile). Tried: statements prepared once per connection; the",
		"  settlement one UPDATE ... FROM unnest, the owner and shared values bound once. Claim and",
		"  settlement stay two transactions (no provider call inside one); River's completer",
		"  settles several fetches' jobs in one commit, so it pays commits less often.",
	)
}

// whyScaling explains Step's 1→4 worker scaling under pgbench's from this
// run's figures: the round trips and commits of a message against a pgbench
// transaction's, where the sampled sessions spent their time, and how much
// of the machine's CPU the four workers and their sessions used.
func (p *pgRun) whyScaling(scale, server float64) []string {
	const one, four, bench1, bench4 = 0, 3, 6, 7
	lines := []string{fmt.Sprintf("Why PostgreSQL claim 1, 4 workers, scales %.2f× and pgbench %.2f×:", scale, server),
		"  a Step is two statements and two commits a message: the claim, then the settlement, each a",
		"  transaction of its own (on PostgreSQL without BEGIN and COMMIT); a pgbench transaction is five",
		"  round trips and one commit.",
		fmt.Sprintf("  One worker commits %.0f times/s, %.0f%% of pgbench's one client; four %.0f, %.0f%% of its four.",
			2*p.medians[one], 100*2*p.medians[one]/p.medians[bench1], 2*p.medians[four], 100*2*p.medians[four]/p.medians[bench4])}
	if len(p.waits) == 2 && p.waits[0].samples > 0 && p.waits[1].samples > 0 {
		w1, w4 := p.waits[0].share, p.waits[1].share
		lines = append(lines,
			fmt.Sprintf("  Sampled (the table above): with 1 worker its session spent %.0f%% waiting for the worker inside", 100*w1[waitClientInTx]),
			fmt.Sprintf("  a transaction, %.0f%% for the WAL and %.0f%% running; with 4 workers, %.0f%%, %.0f%% and %.0f%%.",
				100*w1[waitWAL], 100*w1[waitRunning], 100*w4[waitClientInTx], 100*w4[waitWAL], 100*w4[waitRunning]))
	}
	if busy4, per4, perBench := median(p.cores[four]), median(p.cpuPer[four]), median(p.cpuPer[bench4]); !math.IsNaN(busy4) {
		lines = append(lines,
			fmt.Sprintf("  Four workers kept %.1f of the machine's %d cores busy at %.0fµs of CPU a message, worker and", busy4, runtime.NumCPU(), per4),
			fmt.Sprintf("  server together; pgbench's four clients kept %.1f busy at %.0fµs a transaction. A message costs", median(p.cores[bench4]), perBench),
			fmt.Sprintf("  %.1f× a pgbench transaction in CPU, and four workers share the cores with their sessions.", per4/perBench))
	}
	return append(lines,
		"  Done: statements prepared once per connection; the claim of one message and a completion",
		"  without business writes each one statement without BEGIN and COMMIT, from which one worker",
		"  gains more than four (see the README's Benchmarks). Claim and settlement stay two commits.")
}

// waitShare formats the share of kind in the sampled profile i (1 worker,
// then 4) with format, or nothing when it was not sampled.
func (p *pgRun) waitShare(i int, kind, format string) string {
	if i >= len(p.waits) || p.waits[i].samples == 0 {
		return ""
	}
	return fmt.Sprintf(format, 100*p.waits[i].share[kind])
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}
