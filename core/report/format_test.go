package report

import (
	"testing"
	"time"

	"outboxlab/core/clock"
)

func TestFormatters(t *testing.T) {
	type status string
	tests := []struct {
		name, got, want string
	}{
		{"Dash empty", Dash(""), "—"},
		{"Dash text", Dash("PAY-001"), "PAY-001"},
		{"StampOrDash zero", StampOrDash(time.Time{}), "—"},
		{"StampOrDash time", StampOrDash(clock.Start.Add(201 * time.Millisecond)), "09:00:00.201Z"},
		{"JoinInts none", JoinInts(nil), ""},
		{"JoinInts one", JoinInts([]int{7}), "7"},
		{"JoinInts many", JoinInts([]int{10, -1, 0}), "10, -1, 0"},
		{"JoinStrings none", JoinStrings([]status(nil)), ""},
		{"JoinStrings many", JoinStrings([]status{"sent", "failed"}), "sent, failed"},
		{"Plural one", Plural(1, "call"), "1 call"},
		{"Plural none", Plural(0, "call"), "0 calls"},
		{"Plural many", Plural(5, "call"), "5 calls"},
		{"Plural y", Plural(2, "extra delivery"), "2 extra deliveries"},
		{"Plural one y", Plural(1, "delivery"), "1 delivery"},
		{"Plural int64", Plural(int64(12), "bucket"), "12 buckets"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestAllEqual(t *testing.T) {
	tests := []struct {
		xs   []int
		want int
		ok   bool
	}{
		{nil, 0, false},
		{[]int{}, 3, false},
		{[]int{3}, 3, true},
		{[]int{3, 3, 3}, 3, true},
		{[]int{3, 4, 3}, 3, false},
		{[]int{4}, 3, false},
	}
	for _, tt := range tests {
		if got := AllEqual(tt.xs, tt.want); got != tt.ok {
			t.Errorf("AllEqual(%v, %d) = %v, want %v", tt.xs, tt.want, got, tt.ok)
		}
	}
}

func TestPluralNouns(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "call", "1 call"}, {0, "call", "0 calls"}, {5, "call", "5 calls"},
		{2, "delivery", "2 deliveries"}, {2, "key", "2 keys"}, {3, "replay", "3 replays"},
		{2, "batch", "2 batches"}, {2, "box", "2 boxes"}, {2, "status", "2 statuses"},
		{2, "push", "2 pushes"}, {1, "batch", "1 batch"}, {2, "dead letter", "2 dead letters"},
		{2, "extra delivery", "2 extra deliveries"},
	} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
