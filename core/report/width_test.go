package report

import (
	"strings"
	"testing"
)

// TestTitleUnderlineIsItsWidth: a title is underlined with "=" as wide as it
// shows, so a wide character (two columns) gets two; counting runes gave a
// short underline. The width is the one Width every line is held to.
func TestTitleUnderlineIsItsWidth(t *testing.T) {
	for _, tt := range []struct {
		title string
		width int
	}{
		{"Day 13 — BEFORE", 15},
		{"決済 — AFTER", 12},
		{"Retries 🔁", 10},
	} {
		r := New("x", After)
		r.Title(tt.title)
		_, underline, _ := strings.Cut(strings.TrimSuffix(r.Body(), "\n"), "\n")
		if got := len(underline); got != tt.width || strings.Trim(underline, "=") != "" {
			t.Errorf("Title(%q) underline %q: %d columns, want %d", tt.title, underline, got, tt.width)
		}
		if Width(tt.title) != tt.width {
			t.Errorf("Width(%q) = %d, want %d", tt.title, Width(tt.title), tt.width)
		}
	}
}
