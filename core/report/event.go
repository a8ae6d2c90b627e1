package report

import (
	"regexp"
	"strings"
)

// eventStamp is the start of a timeline line: a scenario-clock stamp
// (09:00:00.602Z, with a day's suffix when there is one) and the two spaces
// after it, at the margin or a little in (grade's smallest case).
var eventStamp = regexp.MustCompile(`^ {0,4}\d\d:\d\d:\d\d\.\d{3}Z\S*  +`)

// clockStamp is a text starting with a scenario-clock stamp and a space: a
// moment of its own, as a setup line lists them.
var clockStamp = regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{3}Z\S* `)

// maxEventIndent is the deepest an event's text may start for its
// continuation lines to go under it; a column past it is text of its own.
const maxEventIndent = 40

// isEvent reports whether l is a timeline event's first line.
func isEvent(l string) bool { return eventStamp.MatchString(l) }

// EventIndent is where the text of a timeline event starts, under which
// its continuation lines go: past its stamp and each column after it that
// is one word followed by two spaces or more (a key, a worker, a partition
// and offset; the first may be two words, a worker and its key), as long as
// that is within maxEventIndent columns. "09:00:00.000Z  PAY-003  attempt
// 1/3  FAILED …" goes on at column 24, under "attempt"; "09:00:00.000Z  p0:3
// 42#2  PaymentReceived attempt …" at 27; "09:00:45.000Z  worker-A GOV-001
// [token 1] …" at 33. A line that is no event goes on four columns in.
func EventIndent(l string) string { return eventIndentWithin(l, maxEventIndent) }

// eventIndentWithin is EventIndent with its columns within limit columns.
func eventIndentWithin(l string, limit int) string {
	stamp := len(eventStamp.FindString(l))
	if stamp == 0 {
		return strings.Repeat(" ", len(l)-len(strings.TrimLeft(l, " "))+4)
	}
	pos := stamp
	for pos < len(l) {
		next := columnEnd(l, pos, pos == stamp)
		if next < 0 || Width(l[:next]) > limit {
			break
		}
		pos = next
	}
	return strings.Repeat(" ", Width(l[:pos]))
}

// columnEnd is where the text after the column starting at l[pos] starts:
// after one word (or two, when pair) and the two spaces or more after it;
// -1 when l goes on there with a single space (text, not a column).
func columnEnd(l string, pos int, pair bool) int {
	for words := 1; words <= 2; words++ {
		word := strings.IndexByte(l[pos:], ' ')
		if word <= 0 {
			return -1
		}
		next := pos + word
		for next < len(l) && l[next] == ' ' {
			next++
		}
		switch {
		case next == len(l):
			return -1
		case next-(pos+word) >= 2:
			return next
		case !pair:
			return -1
		}
		pos = next
	}
	return -1
}

// eventLines is how many lines from lines[i], a timeline event's first
// line, are that event: it and the continuation lines after it, each with
// text of its own indented past the event's stamp and no further than its
// text (EventIndent), or at the stamp's column when its text starts there
// ("09:05:00.602Z  ━━ FIX DEPLOYED …"). A summary at the stamp's column
// ("… and 4 lines alike") is a line of its own.
func eventLines(lines []string, i int) int {
	stamp, text := Width(eventStamp.FindString(lines[i])), Width(EventIndent(lines[i]))
	n := 1
	for ; i+n < len(lines); n++ {
		l := lines[i+n]
		lead := len(l) - len(strings.TrimLeft(l, " "))
		switch {
		case lead == len(l) || lead < stamp || lead > text:
			return n
		case lead == stamp && (text > stamp || strings.HasPrefix(l[lead:], "…")):
			return n // under the stamp's column, but the event's text is further in
		}
	}
	return n
}

// reflowEvent lays out a timeline event (its first line and its
// continuation lines) for width columns: as written when every line fits;
// else its text joined and broken again once, at width, each continuation
// line under the event's text (breakEvent).
func reflowEvent(lines []string, width int) []string {
	if widest(strings.Join(lines, "\n")) <= width {
		return lines
	}
	text := lines[0]
	for _, l := range lines[1:] {
		text += " " + strings.TrimSpace(l)
	}
	// At least two fifths of a line are left for the text.
	return breakEvent(text, width, eventIndentWithin(lines[0], min(maxEventIndent, width*3/5)))
}

// breakEvent breaks a timeline event's text into lines of at most width
// columns, its continuation lines starting with indent: before its last
// arrow that fits ("→ backoff 200 ms …" starts a line, as the report's own
// timelines break), when that leaves the line at least half full, else at
// its last space that fits. A word wider than a line is left to breakLine.
func breakEvent(text string, width int, indent string) []string {
	var out []string
	rest := text
	floor := Width(indent)
	for Width(rest) > width {
		space, arrow := 0, 0
		for i := range rest {
			if rest[i] != ' ' || i == 0 || rest[i-1] == ' ' {
				continue
			}
			w := Width(rest[:i])
			if w > width {
				break
			}
			if w <= floor {
				continue
			}
			space = i
			if strings.HasPrefix(rest[i:], " → ") && w >= floor+(width-floor)/2 {
				arrow = i
			}
		}
		cut := space
		if arrow > 0 {
			cut = arrow
		}
		if cut == 0 {
			return append(out, breakLine(rest, width, indent)...)
		}
		out = append(out, rest[:cut])
		rest = indent + strings.TrimLeft(rest[cut:], " ")
	}
	return append(out, rest)
}
