package workers

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

func parse(t *testing.T, args ...string) *throughputOptions {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o := bindThroughput(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestThroughputValidate(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string // empty: valid
	}{
		{nil, ""},
		{[]string{"--workers", "1,8", "--batch", "2", "--processes"}, ""},
		{[]string{"--produce-rate", "300"}, ""}, // not overloaded: legal, and its checks fail
		{[]string{"--consumers", "3"}, ""},
		{[]string{"--messages", "0"}, "--messages must be between 1 and 4000, got 0"},
		{[]string{"--messages", "4001"}, "--messages must be between 1 and 4000, got 4001"},
		{[]string{"--workers", "1,0"}, "--workers must be between 1 and 16, got 0"},
		{[]string{"--workers", "1,17"}, "--workers must be between 1 and 16, got 17"},
		{[]string{"--workers", "1,1"}, ""}, // two series of one count: the noise
		{[]string{"--workers", "2,1,2,2"}, "--workers lists 2 3 times; twice at most (two series of one count show the noise)"},
		{[]string{"--workers", "1,2,3,4,5,6,7,8,9"}, "--workers lists 9 counts; at most 8"},
		{[]string{"--batch", "1"}, "--batch must be between 2 and 1000 (the unbatched configurations claim 1), got 1"},
		{[]string{"--handler-delay", "-1ms"}, "--handler-delay must be between 0s and 5ms, got -1ms"},
		{[]string{"--handler-delay", "6ms"}, "--handler-delay must be between 0s and 5ms, got 6ms"},
		{[]string{"--handler-delay", "5ms"}, ""},
		{[]string{"--repeats", "0"}, "--repeats must be between 1 and 15, got 0"},
		{[]string{"--repeats", "16"}, "--repeats must be between 1 and 15, got 16"},
		{[]string{"--messages", "3", "--repeats", "15"}, ""}, // 3 rounds of 1
		{[]string{"--lease", "0s"}, "--lease must be between 1ms and 1h, got 0s"},
		{[]string{"--service-time", "200ms"}, "--service-time must be between 1ms and 100ms, got 200ms"},
		{[]string{"--tick", "50ms", "--service-time", "60ms"}, "--service-time must be at most one --tick (50ms), got 60ms"},
		{[]string{"--tick", "5500us"}, "--tick must be a whole number of milliseconds, got 5.5ms"},
		{[]string{"--produce-for", "999ms"}, "--produce-for must be between 1s and 30s, got 999ms"},
		{[]string{"--produce-for", "1000000h"}, "--produce-for must be between 1s and 30s, got 1000000h"},
		{[]string{"--max-age", "0s"}, "--max-age must be between 1ms and 1h, got 0s"},
		// Each flag within its range, together too much work.
		{[]string{"--messages", "4000", "--workers", "1,2,4,8,16"},
			"--messages 4000 over --workers 1,2,4,8,16, --batch 25, --repeats 9 and --handler-delay 0s is about 16s of drain work " +
				"(42178 write transactions) and 0s of handler waits; the limits are 15s and 25s"},
		{[]string{"--messages", "2500", "--handler-delay", "5ms"},
			"is about 8s of drain work (21134 write transactions) and 50.289s of handler waits; the limits are 15s and 25s"},
		{[]string{"--messages", "4000", "--workers", "12,14,16", "--processes", "--batch", "2"},
			"--messages 4000 over --workers 12,14,16 as processes, --batch 2, --repeats 9 and --handler-delay 0s is about "},
		{[]string{"--consumers", "64", "--tick", "5ms", "--service-time", "5ms"},
			"--produce-rate 500 for --produce-for 4s against --consumers 64 at --service-time 5ms per --tick 5ms " +
				"is about 9s of overload work (800 ticks, 54000 write transactions); the limit is 6s"},
	}
	for _, tt := range tests {
		t.Run(caseName(tt.args), func(t *testing.T) {
			err := parse(t, tt.args...).Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// drainFile drains a fresh backlog with cfg in one round and returns the
// run and its file.
func drainFile(t *testing.T, cfg drainConfig) (*drainRun, string) {
	t.Helper()
	return drainRounds(t, cfg, []int{cfg.Messages})
}

// drainRounds drains a fresh backlog with cfg in rounds of sizes and returns
// the run and its file.
func drainRounds(t *testing.T, cfg drainConfig, sizes []int) (*drainRun, string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "drain.db")
	c, err := newCrew(ctx, dialect.File(path), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range sizes {
		if err := c.round(ctx, n, &progress{}); err != nil {
			c.Close()
			t.Fatal(err)
		}
	}
	run, err := c.finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return run, path
}

func TestDrainInvariants(t *testing.T) {
	tests := []struct {
		name                       string
		cfg                        drainConfig
		sizes                      []int // the rounds; nil: one of cfg.Messages
		wantClaims, wantSettlement int
	}{
		// ⌈200/7⌉ = 29 batches: 29 settlements, 29 claims plus one empty claim per worker.
		{"goroutines", drainConfig{Messages: 200, Workers: 3, Batch: 7, Lease: time.Minute}, nil, 32, 29},
		{"one at a time", drainConfig{Messages: 60, Workers: 2, Batch: 1, Lease: time.Minute}, nil, 62, 60},
		{"processes", drainConfig{Messages: 150, Workers: 2, Batch: 10, Processes: true, Lease: time.Minute}, nil, 17, 15},
		// Rounds of 67, 67 and 66: ⌈67/7⌉ + ⌈67/7⌉ + ⌈66/7⌉ = 30 batches, and
		// each worker's empty claim in each of the 3 rounds.
		{"goroutines in rounds", drainConfig{Messages: 200, Workers: 3, Batch: 7, Lease: time.Minute}, rounds(200, 3), 39, 30},
		// Rounds of 75: ⌈75/10⌉ = 8 batches each.
		{"processes in rounds", drainConfig{Messages: 150, Workers: 2, Batch: 10, Processes: true, Lease: time.Minute},
			rounds(150, 2), 20, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sizes := tt.sizes
			if sizes == nil {
				sizes = []int{tt.cfg.Messages}
			}
			run, _ := drainRounds(t, tt.cfg, sizes)
			n := tt.cfg.Messages
			claims, settlements, calls, refused := run.totals()
			if claims != tt.wantClaims || settlements != tt.wantSettlement {
				t.Errorf("%d claims, %d settlements; want %d, %d", claims, settlements, tt.wantClaims, tt.wantSettlement)
			}
			if calls != n || refused != 0 {
				t.Errorf("%d handler calls, %d refused; want %d, 0", calls, refused, n)
			}
			want := ledgerMetrics{Total: n, Processed: n, Attempts: n, MaxTries: 1, Deliveries: n, Unique: n,
				Settlements: tt.wantSettlement, LargestSettlement: tt.cfg.Batch}
			if run.ledger != want {
				t.Errorf("ledger %+v, want %+v", run.ledger, want)
			}
			if len(run.tallies) != tt.cfg.Workers || len(run.rounds) != len(sizes) {
				t.Fatalf("%d tallies, %d rounds; want %d, %d", len(run.tallies), len(run.rounds), tt.cfg.Workers, len(sizes))
			}
			for i, r := range run.rounds {
				if r.messages != sizes[i] || r.wall <= 0 {
					t.Errorf("round %d: %d messages in %s; want %d and a positive time", i+1, r.messages, r.wall, sizes[i])
				}
			}
		})
	}
}

func TestRounds(t *testing.T) {
	for _, tt := range []struct {
		n, repeats int
		want       []int
	}{
		{250, 7, []int{36, 36, 36, 36, 36, 35, 35}},
		{250, 5, []int{50, 50, 50, 50, 50}},
		{3, 5, []int{1, 1, 1}},
		{1, 1, []int{1}},
	} {
		if got := rounds(tt.n, tt.repeats); !slices.Equal(got, tt.want) {
			t.Errorf("rounds(%d, %d) = %v, want %v", tt.n, tt.repeats, got, tt.want)
		}
	}
}

// The overload's metrics follow from the flags by arithmetic. The defaults
// (500/s against 400/s for 10 s) are the golden report's; these are smaller
// so that the race detector stays quick.
func TestOverloadMetrics(t *testing.T) {
	tests := []struct {
		args                  []string
		wantTicks, wantAtStop int
		wantStop, wantDrained string
		wantPeakAge           time.Duration
	}{
		// 10 produced and 5 finished per tick: +5 a tick for 20 ticks, then 20 ticks to drain.
		// At the last busy tick (3.9 s) the oldest message is number 196, created at 1.95 s.
		{[]string{"--produce-rate", "100", "--produce-for", "2s", "--consumers", "1", "--service-time", "20ms"},
			40, 100, "09:00:02.000Z", "09:00:04.000Z", 1950 * time.Millisecond},
		// 300/s against 200/s: +10 a tick; stored times keep milliseconds, so message 281's
		// 933.3 ms is 933 ms, and at 1.4 s it has waited 467 ms.
		{[]string{"--produce-rate", "300", "--produce-for", "1s", "--consumers", "1"},
			15, 100, "09:00:01.000Z", "09:00:01.500Z", 467 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(caseName(tt.args), func(t *testing.T) {
			o, over, _ := runOverload(t, tt.args...)
			stop, last := over.samples[over.stopTick], over.samples[len(over.samples)-1]
			if len(over.samples) != tt.wantTicks || stop.Depth != tt.wantAtStop {
				t.Errorf("%d ticks, %d queued at the stop; want %d, %d", len(over.samples), stop.Depth, tt.wantTicks, tt.wantAtStop)
			}
			if clock.Stamp(stop.At) != tt.wantStop || clock.Stamp(last.At) != tt.wantDrained {
				t.Errorf("stopped %s, drained %s; want %s, %s", clock.Stamp(stop.At), clock.Stamp(last.At), tt.wantStop, tt.wantDrained)
			}
			if got := peakAge(over); got != tt.wantPeakAge {
				t.Errorf("peak age %s, want %s", got, tt.wantPeakAge)
			}
			for i, s := range over.samples {
				if s.Depth != over.plan.depths[i] || s.Produced != s.Processed+s.Depth {
					t.Fatalf("tick %d: depth %d (arithmetic says %d), produced %d, processed %d",
						i+1, s.Depth, over.plan.depths[i], s.Produced, s.Processed)
				}
			}
			if l, n := over.ledger, o.total(); l.Total != n || l.Processed != n || l.Deliveries != n || l.Unique != n {
				t.Errorf("ledger %+v for %d produced", l, n)
			}
		})
	}
}

func TestThroughputReport(t *testing.T) {
	o := parse(t, "--messages", "100", "--workers", "1,2", "--batch", "50", "--repeats", "2",
		"--produce-rate", "300", "--produce-for", "1s", "--consumers", "1")
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := o.Run(context.Background(), scenarios.NewEnv(dir))
	if err != nil {
		t.Fatal(err)
	}
	body := r.Body()
	if os.Getenv("SHOW_REPORT") != "" {
		t.Log("\n" + body)
	}
	for _, want := range []string{
		"│ 2 workers, claim 50 │ 6        │ 2             │ 0.08       │ 100       │ 100 (100 distinct) │",
		"VERDICT: " + report.VerdictPass + " " + verdictHeld,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	checks := map[string]string{}
	for _, c := range report.BodyChecks(body) {
		checks[c.Name] = c.Detail
	}
	for name, detail := range map[string]string{
		"write transactions: a settlement per claim, ⌈n/claim⌉ a round with 1 worker, an empty claim each": "" +
			"claim 1, 1 worker: 102 claims, 100 ledger settlements of ≤ 1 message; " +
			"claim 50, 1 worker: 4 claims, 2 ledger settlements of ≤ 50 messages",
		"handler called once per message, every call settled": "100 calls, 100 ledger rows in all 4 configurations",
		"queue depth = produced − capacity, every tick":       "15/15 ticks match; 100 queued at 09:00:01.000Z, when production stopped",
		"oldest-message age within --max-age":                 "peak 467 ms, limit 5000 ms",
	} {
		if checks[name] != detail {
			t.Errorf("check %q reads %q, want %q", name, checks[name], detail)
		}
	}
	for _, l := range strings.Split(body, "\n") {
		if report.Width(l) > report.MaxWidth {
			t.Errorf("line of %d columns: %q", report.Width(l), l)
		}
	}
	if !r.Passed() {
		t.Errorf("checks failed:\n%s", body)
	}
}

// runOverload validates args and runs part 2 alone on a fresh database; it
// returns the options, the run and the database's location.
func runOverload(t *testing.T, args ...string) (*throughputOptions, *overloadRun, string) {
	t.Helper()
	o := parse(t, args...)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "overload.db")
	over, err := o.overload(context.Background(), dialect.File(path))
	if err != nil {
		t.Fatal(err)
	}
	return o, over, path
}

// caseName names a subtest after its flags; a "#" (the default for an empty
// name) would end up in t.TempDir and make an unusable database path.
func caseName(args []string) string {
	if len(args) == 0 {
		return "defaults"
	}
	return strings.Join(args, " ")
}
