package dialect

import (
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
)

// NullTime is t as the lab stores a time (clock.ISO text), or NULL when t is zero.
func NullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return clock.ISO(t)
}

// NullString is s, or NULL when s is empty.
func NullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// ParseNullTime reads a time stored by NullTime: NULL is the zero time.
func ParseNullTime(ns sql.NullString) (time.Time, error) {
	if !ns.Valid {
		return time.Time{}, nil
	}
	t, err := time.Parse(clock.ISOLayout, ns.String)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse stored time %q: %w", ns.String, err)
	}
	return t, nil
}
