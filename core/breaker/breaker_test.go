package breaker

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, time.January, 16, 9, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// Each row is one step: record a result (or only look) at a time, then the
// state the breaker must be in.
func TestBreakerStates(t *testing.T) {
	type step struct {
		ms     int
		record string // "ok", "fail" or "" (only look)
		want   State
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"failures below the threshold keep it closed", []step{
			{0, "fail", Closed}, {1, "fail", Closed}, {2, "ok", Closed}, {3, "fail", Closed}, {4, "fail", Closed},
		}},
		{"the third consecutive failure opens it", []step{
			{0, "fail", Closed}, {1, "fail", Closed}, {2, "fail", Open},
		}},
		{"open until the cooldown is over, then half-open", []step{
			{0, "fail", Closed}, {1, "fail", Closed}, {2, "fail", Open}, {10001, "", Open}, {10002, "", HalfOpen},
		}},
		{"a failed probe reopens it for a full cooldown", []step{
			{0, "fail", Closed}, {1, "fail", Closed}, {2, "fail", Open}, {10002, "fail", Open}, {20001, "", Open}, {20002, "", HalfOpen},
		}},
		{"a good probe closes it and forgets the failures", []step{
			{0, "fail", Closed}, {1, "fail", Closed}, {2, "fail", Open}, {10002, "ok", Closed}, {10003, "fail", Closed}, {10004, "fail", Closed},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(3, 10*time.Second)
			for i, s := range tt.steps {
				switch s.record {
				case "ok":
					b.Record(true, at(s.ms))
				case "fail":
					b.Record(false, at(s.ms))
				}
				if got := b.State(at(s.ms)); got != s.want {
					t.Fatalf("step %d (%s at +%d ms): state %s, want %s", i+1, s.record, s.ms, got, s.want)
				}
			}
		})
	}
}

func TestBreakerAllowsAndTransitions(t *testing.T) {
	b := New(2, time.Second)
	b.Record(false, at(0))
	b.Record(false, at(100))
	if b.Allows(at(500)) {
		t.Error("Allows during the cooldown = true, want false")
	}
	if got := b.ReopensAt(); !got.Equal(at(1100)) {
		t.Errorf("ReopensAt = %v, want %v", got, at(1100))
	}
	if !b.Allows(at(1100)) {
		t.Error("Allows at the end of the cooldown = false, want the probe through")
	}
	b.Record(true, at(1100))
	var got []string
	for _, tr := range b.Transitions() {
		got = append(got, string(tr.From)+"→"+string(tr.To)+"@"+tr.At.Format("05.000"))
	}
	if want := "closed→open@00.100 open→half-open@01.100 half-open→closed@01.100"; strings.Join(got, " ") != want {
		t.Errorf("transitions %q, want %q", strings.Join(got, " "), want)
	}
}
