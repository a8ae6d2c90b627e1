package workers

import (
	"strings"
	"testing"
	"time"
)

// The work budgets are arithmetic on the flags: the defaults are well inside
// them, and what they count grows with the flags that make more work.
func TestWorkBudgets(t *testing.T) {
	def := parse(t)
	d, w := def.drainWork(), def.plan().work(def)
	// 9 rounds: seven of 28 messages, two of 27. 4 worker counts (1, 2, 4, 8)
	// × 2 × 250 transactions with claims of 1, 4 × 2 × 18 with claims of 25
	// (two claims a round), and an empty claim per worker per round in each:
	// 15 × 9 for each claim size.
	if d.tx != 4*2*250+15*9+4*2*18+15*9 || d.waits != 0 {
		t.Errorf("default drain work %+v, want 2414 write transactions and no waits", d)
	}
	// 50 ticks: each the producer's transaction, and each of the 2 consumers'
	// claim and settlement (the queue is never empty before the last).
	if w.ticks != 50 || w.tx != 50*5 {
		t.Errorf("default overload work %+v, want 50 ticks and 250 write transactions", w)
	}
	// The default run is meant to take about a second: by the cost model
	// (a loaded two-core machine) well under two.
	if d.work+w.total > 1500*time.Millisecond {
		t.Errorf("defaults cost %s + %s by the model: more than a quick run", d.work, w.total)
	}
	slow := parse(t, "--handler-delay", "1ms")
	// The busiest worker of each round. Claims of 1: 28 (27), 14, 7 and 4 of a
	// round of 28 (27); claims of 25, two claims a round: one worker handles
	// the round, more the first claim's 25. Each wait costs the delay and its slack.
	if got, want := slow.drainWork().waits, (7*53+2*52+7*103+2*102)*(time.Millisecond+sleepSlack); got != want {
		t.Errorf("--handler-delay 1ms: %s of waits, want %s", got, want)
	}
	// Nothing queues up: every tick the first consumer takes 20 of the tick's
	// 30 messages and the second the other 10, each a claim and a settlement.
	idle := parse(t, "--produce-rate", "300")
	if w := idle.plan().work(idle); w.ticks != 40 || w.tx != 40*(1+2*2) {
		t.Errorf("--produce-rate 300: %+v, want 40 ticks and 200 write transactions", w)
	}
	// Each flag at its extreme, the others at their defaults, is accepted.
	for _, args := range [][]string{{"--messages", "4000"}, {"--produce-for", "30s"}, {"--produce-rate", "1000"},
		{"--workers", "16"}, {"--handler-delay", "5ms"}, {"--batch", "1000"}, {"--repeats", "15"}, {"--repeats", "1"},
		{"--workers", "1,1"}} {
		if err := parse(t, args...).Validate(); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// On PostgreSQL a commit waits for a WAL flush, so the same flags cost more
// than on SQLite: the defaults, the golden run and the largest --messages
// are accepted there, more workers on top of the largest size are refused
// with a line naming the limit, and SQLite is not affected.
func TestPostgresWorkBudget(t *testing.T) {
	for _, args := range [][]string{nil, {"--messages", "2000", "--batch", "100", "--produce-for", "10s"}, {"--messages", "4000"}} {
		if err := parse(t, args...).ValidateOn("postgres"); err != nil {
			t.Errorf("%v refused on PostgreSQL: %v", args, err)
		}
	}
	big := parse(t, "--messages", "3000", "--workers", "1,2,3,4,6,8")
	if err := big.Validate(); err != nil {
		t.Fatalf("refused on SQLite: %v", err)
	}
	if err := big.ValidateOn("sqlite"); err != nil {
		t.Errorf("refused by ValidateOn(sqlite): %v", err)
	}
	err := big.ValidateOn("postgres")
	if err == nil || !strings.Contains(err.Error(), "the limit is 1m0s") || strings.Contains(err.Error(), "\n") {
		t.Errorf("--messages 3000 --workers 1,2,3,4,6,8 on PostgreSQL: %v, want one line naming the 1m0s limit", err)
	}
}
