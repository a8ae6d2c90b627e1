package report

import "testing"

// TestNormalize: a copy through an editor or a mail client reads as the lab
// wrote it; an edit inside a line still shows.
func TestNormalize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\nb\n", "a\nb\n"},
		{"a\r\nb\r\n", "a\nb\n"},
		{"\uFEFFa\nb\n", "a\nb\n"},
		{"\uFEFFa\r\nb", "a\nb\n"},
		{"a\nb", "a\nb\n"},
		{"a\rb\r", "a\nb\n"},
		{"", ""},
		{"a \nb\n", "a \nb\n"},
		{"a\uFEFF\n", "a\uFEFF\n"},
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
