package clock

import (
	"testing"
	"time"
)

func TestClockStartsAtNineAndOnlyMovesForward(t *testing.T) {
	c := New()
	if got, want := ISO(c.Now()), "2026-01-16T09:00:00.000Z"; got != want {
		t.Fatalf("start = %s, want %s", got, want)
	}
	c.Advance(200 * time.Millisecond)
	c.Advance(-time.Second)
	if got, want := Stamp(c.Now()), "09:00:00.200Z"; got != want {
		t.Fatalf("after Advance = %s, want %s", got, want)
	}
	c.AdvanceTo(Start.Add(601 * time.Millisecond))
	c.AdvanceTo(Start) // earlier: ignored
	if got, want := Stamp(c.Now()), "09:00:00.601Z"; got != want {
		t.Fatalf("after AdvanceTo = %s, want %s", got, want)
	}
}

func TestMillis(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{200 * time.Millisecond, "200 ms"},
		{1600 * time.Millisecond, "1600 ms"},
		{0, "0 ms"},
	}
	for _, tt := range tests {
		if got := Millis(tt.d); got != tt.want {
			t.Errorf("Millis(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestDayStampNamesTheDayPastTheFirst(t *testing.T) {
	tests := []struct {
		after time.Duration
		want  string
	}{
		{0, "09:00:00.000Z"},
		{15*time.Hour - time.Millisecond, "23:59:59.999Z"},
		{15 * time.Hour, "00:00:00.000Z+1d"},
		{24*time.Hour + time.Millisecond, "09:00:00.001Z+1d"},
		{30 * 24 * time.Hour, "09:00:00.000Z+30d"},
	}
	for _, tt := range tests {
		if got := DayStamp(Start.Add(tt.after)); got != tt.want {
			t.Errorf("DayStamp(start + %v) = %s, want %s", tt.after, got, tt.want)
		}
	}
}
