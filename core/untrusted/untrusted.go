// Package untrusted makes text a student's program wrote safe to show on the
// lab's terminal: a worker is hostile input, so what it prints can neither
// drive the terminal (clear it, retitle it, write the clipboard through OSC
// 52, hide text behind bidirectional overrides) nor show a secret the lab
// handed it (its token, a database password), nor flood the screen with one
// endless line.
package untrusted

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Redacted stands where a secret was.
const Redacted = "xxxxx"

// Shown is how Show treats a text: the secrets it must never show, and the
// longest line it keeps whole.
type Shown struct {
	Secrets  []string // each replaced by Redacted, raw and URL-escaped; empty ones are ignored
	MaxLine  int      // characters a line keeps before it is cut; 0: 200
	MaxLines int      // the last lines kept; 0: all
}

// Show returns text as it may reach a terminal: secrets replaced, every
// control character, invalid byte and bidirectional control spelled out
// (`\x1b`, `\r`, `\u202e`), tabs and newlines kept, each line cut at MaxLine
// characters with a count of what was cut, and only the last MaxLines lines.
func (s Shown) Show(text string) string {
	text = s.redact(text)
	maxLine := s.MaxLine
	if maxLine <= 0 {
		maxLine = 200
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if s.MaxLines > 0 && len(lines) > s.MaxLines {
		lines = lines[len(lines)-s.MaxLines:]
	}
	for i, l := range lines {
		lines[i] = cut(escape(l), maxLine)
	}
	return strings.Join(lines, "\n")
}

// redact replaces every secret, in the forms a URL or a log would carry it.
func (s Shown) redact(text string) string {
	for _, secret := range s.Secrets {
		if secret == "" {
			continue
		}
		query := url.QueryEscape(secret)
		for _, form := range []string{secret, query, strings.ReplaceAll(query, "+", "%20"), url.PathEscape(secret)} {
			text = strings.ReplaceAll(text, form, Redacted)
		}
	}
	return text
}

// escape spells out what a terminal would act on instead of showing.
func escape(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, line[i])
		case r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Cc, r) || isBidiControl(r) || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// isBidiControl reports whether r reorders the text around it (the
// embeddings, overrides and isolates of Unicode's bidirectional algorithm).
func isBidiControl(r rune) bool {
	return r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069' || r == '\u200e' || r == '\u200f' || r == '\u061c'
}

// cut keeps the first max characters of line and says how many it left out.
func cut(line string, max int) string {
	n := utf8.RuneCountInString(line)
	if n <= max {
		return line
	}
	runes := []rune(line)
	return string(runes[:max]) + fmt.Sprintf("… (%d more characters)", n-max)
}
