package workers

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// beyond returns v one step past a limit: an integer ±1, a duration ±1ms.
func beyond(t *testing.T, typ, v string, dir int) string {
	t.Helper()
	if typ == "duration" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		return (d + time.Duration(dir)*time.Millisecond).String()
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(n + dir)
}

// Every declared limit is accepted alone, all minima and all maxima are
// accepted together (the work budgets included), and one step beyond each
// is refused with one line naming the flag and the limit.
func TestThroughputLimits(t *testing.T) {
	fs := pflag.NewFlagSet("limits", pflag.ContinueOnError)
	bindThroughput(fs)
	var allMin, allMax []string
	for _, l := range throughputLimits() {
		f := fs.Lookup(l.Flag)
		if f == nil {
			t.Fatalf("limit names --%s, which the scenario does not have", l.Flag)
		}
		lo, hi := "--"+l.Flag+"="+l.Min, "--"+l.Flag+"="+l.Max
		allMin, allMax = append(allMin, lo), append(allMax, hi)
		for _, arg := range []string{lo, hi} {
			if err := parse(t, arg).Validate(); err != nil {
				t.Errorf("%s: %v", arg, err)
			}
		}
		for i, v := range []string{beyond(t, f.Value.Type(), l.Min, -1), beyond(t, f.Value.Type(), l.Max, +1)} {
			arg := "--" + l.Flag + "=" + v
			err := parse(t, arg).Validate()
			limit := []string{l.Min, l.Max}[i]
			if err == nil || !strings.Contains(err.Error(), "--"+l.Flag+" ") || !strings.Contains(err.Error(), limit) ||
				strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: Validate() = %v, want one line naming --%s and %s", arg, err, l.Flag, limit)
			}
		}
	}
	for _, args := range [][]string{allMin, allMax} {
		if err := parse(t, args...).Validate(); err != nil {
			t.Errorf("%s: %v", strings.Join(args, " "), err)
		}
	}
}

// The work budgets are arithmetic on the flags: the defaults are well inside
// them, and what they count grows with the flags that make more work.
func TestWorkBudgets(t *testing.T) {
	def := parse(t)
	d, w := def.drainWork(), def.plan().work(def)
	// 3 worker counts × (2 × 1000 + workers) transactions with claims of 1,
	// 3 × (2 × 10 + workers) with claims of 100.
	if d.tx != 3*2000+7+3*20+7 || d.waits != 0 {
		t.Errorf("default drain work %+v, want 6074 write transactions and no waits", d)
	}
	// 125 ticks: each the producer's transaction, and each of the 2 consumers'
	// claim and settlement (the queue is never empty before the last).
	if w.ticks != 125 || w.tx != 125*5 {
		t.Errorf("default overload work %+v, want 125 ticks and 625 write transactions", w)
	}
	if d.total > drainBudget/2 || w.total > overloadBudget/2 {
		t.Errorf("defaults use %s of %s and %s of %s: too close to the budgets", d.total, drainBudget, w.total, overloadBudget)
	}
	slow := parse(t, "--handler-delay", "1ms")
	// Claims of 1: 1000 + 500 + 250 waits on the busiest worker; claims of 100:
	// 10, 5 and 3 batches of 100. Each wait costs the delay and its slack.
	if got, want := slow.drainWork().waits, 3550*(time.Millisecond+sleepSlack); got != want {
		t.Errorf("--handler-delay 1ms: %s of waits, want %s", got, want)
	}
	// Nothing queues up: every tick the first consumer takes 20 of the tick's
	// 30 messages and the second the other 10, each a claim and a settlement.
	idle := parse(t, "--produce-rate", "300")
	if w := idle.plan().work(idle); w.ticks != 100 || w.tx != 100*(1+2*2) {
		t.Errorf("--produce-rate 300: %+v, want 100 ticks and 500 write transactions", w)
	}
}
