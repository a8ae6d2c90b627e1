package workers

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/clock"
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
		{[]string{"--messages", "0"}, "--messages must be between 1 and 1000000, got 0"},
		{[]string{"--workers", "1,0"}, "--workers values must be between 1 and 64, got 0"},
		{[]string{"--workers", "2,2"}, "--workers lists 2 twice"},
		{[]string{"--batch", "1"}, "--batch must be at least 2"},
		{[]string{"--handler-delay", "-1ms"}, "--handler-delay must be between 0 and 1s"},
		{[]string{"--lease", "0s"}, "--lease must be positive"},
		{[]string{"--produce-rate", "400"}, "--produce-rate 400/s is not above the consumers' capacity of 400/s"},
		{[]string{"--consumers", "3"}, "--produce-rate 500/s is not above the consumers' capacity of 600/s"},
		{[]string{"--service-time", "200ms"}, "--service-time must be positive and at most one --tick (100ms)"},
		{[]string{"--tick", "1500us"}, "--tick must be a whole number of milliseconds"},
		{[]string{"--produce-for", "50ms"}, "--produce-for must be at least one --tick"},
		{[]string{"--produce-rate", "100000", "--produce-for", "20s"}, "keep it within 1000000 messages"},
		{[]string{"--max-age", "0s"}, "--max-age must be positive"},
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

func drainOnce(t *testing.T, cfg drainConfig) *drainRun {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	template := filepath.Join(dir, "backlog.db")
	if err := seedBacklog(ctx, template, cfg.Messages); err != nil {
		t.Fatal(err)
	}
	run, err := drain(ctx, template, filepath.Join(dir, "drain.db"), cfg, newProgress())
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestDrainInvariants(t *testing.T) {
	tests := []struct {
		name                       string
		cfg                        drainConfig
		wantClaims, wantSettlement int
	}{
		// ⌈200/7⌉ = 29 batches: 29 settlements, 29 claims plus one empty claim per worker.
		{"goroutines", drainConfig{Messages: 200, Workers: 3, Batch: 7, Lease: time.Minute}, 32, 29},
		{"one at a time", drainConfig{Messages: 60, Workers: 2, Batch: 1, Lease: time.Minute}, 62, 60},
		{"processes", drainConfig{Messages: 150, Workers: 2, Batch: 10, Processes: true, Lease: time.Minute}, 17, 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := drainOnce(t, tt.cfg)
			n := tt.cfg.Messages
			claims, settlements, calls, refused := run.totals()
			if claims != tt.wantClaims || settlements != tt.wantSettlement {
				t.Errorf("%d claims, %d settlements; want %d, %d", claims, settlements, tt.wantClaims, tt.wantSettlement)
			}
			if calls != n || refused != 0 {
				t.Errorf("%d handler calls, %d refused; want %d, 0", calls, refused, n)
			}
			want := ledgerFigures{Processed: n, Attempts: n, MaxTries: 1, Deliveries: n, Unique: n}
			if run.ledger != want {
				t.Errorf("ledger %+v, want %+v", run.ledger, want)
			}
			if len(run.tallies) != tt.cfg.Workers || run.wall <= 0 {
				t.Errorf("%d tallies, wall %s; want %d and a positive time", len(run.tallies), run.wall, tt.cfg.Workers)
			}
		})
	}
}

// The overload's figures follow from the flags by arithmetic. The defaults
// (500/s against 400/s for 10 s) are the golden report's; these are smaller
// so that the race detector stays quick.
func TestOverloadFigures(t *testing.T) {
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
			o := parse(t, tt.args...)
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			over, err := o.overload(context.Background(), filepath.Join(t.TempDir(), "overload.db"))
			if err != nil {
				t.Fatal(err)
			}
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
				if s.Depth != over.model[i] || s.Produced != s.Processed+s.Depth {
					t.Fatalf("tick %d: depth %d (arithmetic says %d), produced %d, processed %d",
						i+1, s.Depth, over.model[i], s.Produced, s.Processed)
				}
			}
			if l := over.ledger; l.Processed != over.produced || l.Deliveries != over.produced || l.Unique != over.produced {
				t.Errorf("ledger %+v for %d produced", l, over.produced)
			}
		})
	}
}

func TestThroughputReport(t *testing.T) {
	o := parse(t, "--messages", "100", "--workers", "1,2", "--batch", "50",
		"--produce-rate", "300", "--produce-for", "1s", "--consumers", "1")
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := o.Run(context.Background(), scenarios.Env{Dir: dir, DBPath: filepath.Join(dir, "outbox.db")})
	if err != nil {
		t.Fatal(err)
	}
	body := r.Body()
	if os.Getenv("SHOW_REPORT") != "" {
		t.Log("\n" + body)
	}
	for _, want := range []string{
		"│ 2 workers, claim 50 │ 4        │ 2             │ 0.06                 │ 100           │ 100       │ 100 (100 distinct) │ 100 (max 1)      │",
		"  PASS  write transactions: ⌈N/claim⌉ claims and settlements, plus 1 empty claim per worker → claim 1, 1 worker(s): 101 claims + 100 settlements; claim 50, 1 worker(s): 3 claims + 2 settlements",
		"  PASS  queue depth = produced − capacity, every tick → 15/15 ticks match; 100 queued when production stopped at 09:00:01.000Z",
		"  PASS  oldest-message age within --max-age → peak 467 ms, limit 5000 ms",
		"VERDICT: " + verdictHeld,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if !r.Passed() {
		t.Errorf("checks failed:\n%s", body)
	}
}

// caseName names a subtest after its flags; a "#" (the default for an empty
// name) would end up in t.TempDir and make an unusable database path.
func caseName(args []string) string {
	if len(args) == 0 {
		return "defaults"
	}
	return strings.Join(args, " ")
}
