package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// all runs scenarios side by side (allParallel at a time) but reports them in
// catalogue order, each with its own result: the same as one at a time.
func TestAllRunsSideBySideInCatalogueOrder(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"all", "--family", "retry", "--no-report", "--json"}, &stdout, &stderr); code != cmdutil.ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr.String())
	}
	var got []report.Result
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range scenarios.All() {
		if s.Family == "retry" {
			want = append(want, s.Name)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for i, r := range got {
		if r.Scenario != want[i] || !r.Passed || len(r.Checks) == 0 {
			t.Errorf("result %d: %s passed=%v with %d checks; want %s, passed", i, r.Scenario, r.Passed, len(r.Checks), want[i])
		}
	}
	// The same run alone prints the same result: each scenario's run alone
	// at its defaults is the golden tests' (sqliteDefault), read from its
	// report's record.
	for i := range got {
		s := scenarios.Lookup(want[i])
		if len(s.GoldenArgs) > 0 {
			t.Fatalf("%s's golden run is not its defaults (GoldenArgs %v), which all runs", s.Name, s.GoldenArgs)
		}
		alone := sqliteDefault(t, s).record
		a, _ := json.Marshal(alone.Metrics)
		b, _ := json.Marshal(got[i].Metrics)
		if string(a) != string(b) || alone.Verdict != got[i].Verdict {
			t.Errorf("%s alone: metrics %s verdict %q; beside the others: %s, %q", want[i], a, alone.Verdict, b, got[i].Verdict)
		}
	}
}

// gateOptions is a scenario that waits for its gate (if any) to open, then
// records one passing check.
type gateOptions struct {
	name string
	gate func() // nil: run at once
}

func (gateOptions) Validate() error { return nil }

func (g gateOptions) Run(context.Context, scenarios.Env) (*report.Report, error) {
	if g.gate != nil {
		g.gate()
	}
	r := report.New(g.name, report.Experiment)
	r.Check("ran", true, "yes")
	r.Checks("Checks")
	r.Verdict("RAN", "DID NOT RUN")
	return r, nil
}

// all prints a row as soon as that run and every run before it have
// finished: the first row is out while the second run still runs, and the
// third, which does not wait, still comes after the second.
func TestAllStreamsRowsInOrder(t *testing.T) {
	var (
		mu      sync.Mutex
		emitted []string
	)
	firstSeen := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(emitted, "session-99-first")
	}
	var firstOutEarly bool
	waitForFirst := func() {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if firstSeen() {
				firstOutEarly = true
				return
			}
		}
	}
	scenario := func(name string, gate func()) *scenarios.Scenario {
		return &scenarios.Scenario{Name: name, Family: "test", Kind: report.Experiment,
			Bind: func(*pflag.FlagSet) scenarios.Options { return gateOptions{name, gate} }}
	}
	list := []*scenarios.Scenario{
		scenario("session-99-first", nil),
		scenario("session-99-second", waitForFirst),
		scenario("session-99-third", nil),
	}
	var stderr bytes.Buffer
	err := runAll(context.Background(), list, commonOptions{NoReport: true}, "outboxlab all", &stderr, true,
		func(i int, out outcome) {
			mu.Lock()
			defer mu.Unlock()
			emitted = append(emitted, out.result.Scenario)
		})
	if err != nil {
		t.Fatal(err)
	}
	if !firstOutEarly {
		t.Error("the first row was not printed while the second run was still running")
	}
	if want := []string{"session-99-first", "session-99-second", "session-99-third"}; !slices.Equal(emitted, want) {
		t.Errorf("rows %v, want %v", emitted, want)
	}
	progress := stderr.String()
	// The second runs longest: some line says it is running after another finished.
	for _, want := range []string{"\r\x1b[K0/3 done, running session-99-", "/3 done, running session-99-second",
		"\r\x1b[K3/3 done"} {
		if !strings.Contains(progress, want) {
			t.Errorf("progress lacks %q: %q", want, progress)
		}
	}
	if !strings.HasSuffix(progress, "\r\x1b[K") {
		t.Errorf("the progress line is not cleared at the end: %q", progress)
	}
}

// Off a terminal all draws no progress: no carriage return, no escape code.
func TestAllShowsNoProgressOffATerminal(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"all", "--family", "retry", "--no-report"}, &stdout, &stderr); code != cmdutil.ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr.String())
	}
	if strings.ContainsAny(stdout.String()+stderr.String(), "\r\x1b") {
		t.Errorf("progress drawn into a pipe: stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	lines := strings.Split(stdout.String(), "\n")
	if !strings.HasPrefix(lines[0], "Scenario ") || !strings.HasPrefix(lines[1], "poison-counter ") ||
		!strings.HasPrefix(lines[2], "    ") {
		t.Errorf("rows do not start with the header, then poison-counter and its verdict:\n%s", stdout.String())
	}
	requireFits(t, "all --family retry", stdout.String())
}
