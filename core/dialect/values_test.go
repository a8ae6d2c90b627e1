package dialect

import (
	"database/sql"
	"testing"
	"time"
)

func TestStoredTimesRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 16, 9, 0, 0, 201_000_000, time.UTC)
	if got := NullTime(at); got != "2026-01-16T09:00:00.201Z" {
		t.Errorf("NullTime(%v) = %v, want 2026-01-16T09:00:00.201Z", at, got)
	}
	if got := NullTime(time.Time{}); got != nil {
		t.Errorf("NullTime(zero) = %v, want nil", got)
	}
	if got := NullString(""); got != nil {
		t.Errorf(`NullString("") = %v, want nil`, got)
	}
	back, err := ParseNullTime(sql.NullString{String: "2026-01-16T09:00:00.201Z", Valid: true})
	if err != nil || !back.Equal(at) {
		t.Errorf("ParseNullTime = %v, %v; want %v", back, err, at)
	}
	if back, err := ParseNullTime(sql.NullString{}); err != nil || !back.IsZero() {
		t.Errorf("ParseNullTime(NULL) = %v, %v; want the zero time", back, err)
	}
	if _, err := ParseNullTime(sql.NullString{String: "yesterday", Valid: true}); err == nil {
		t.Error(`ParseNullTime("yesterday") succeeded`)
	}
}
