package workers

import (
	"testing"
	"time"
)

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
