package report

import (
	"strings"
	"testing"
	"time"
)

// FuzzSplitHeader feeds compare's report reader arbitrary files: it never
// panics, never loses or invents a byte, and finds a header only where one
// starts the text and ends at the first end line.
//
//	go test ./core/report -run '^$' -fuzz '^FuzzSplitHeader$' -fuzztime 5s
func FuzzSplitHeader(f *testing.F) {
	f.Add("")
	f.Add(HeaderStart + "\n")
	f.Add(HeaderStart + "\n" + HeaderEnd)
	f.Add(HeaderStart + "\n" + HeaderEnd + "\n")
	f.Add(HeaderStart + "\r\n" + HeaderEnd + "\r\nbody\r\n")
	f.Add("body first\n" + HeaderStart + "\n" + HeaderEnd + "\n")
	f.Add(HeaderStart + "\n" + HeaderEnd + "\n" + HeaderEnd + "\nbody\n")
	f.Add(Header(Meta{Started: time.Unix(1764493200, 0), Command: "outboxlab x", Database: "/tmp/a.db", Version: "0.1.0"}) +
		"T\n=\n\nthroughput 1200 msg/s " + MeasuredMarker + "\n")
	f.Fuzz(func(t *testing.T, text string) {
		header, body, ok := SplitHeader(text)
		if header+body != text {
			t.Fatalf("header %q + body %q is not the text %q", header, body, text)
		}
		if !ok {
			if header != "" {
				t.Fatalf("no header found, yet header = %q", header)
			}
			if cb, cok := ComparableBody(text); cok || cb != "" {
				t.Fatalf("ComparableBody = %q, %v on a text without a header, want \"\", false", cb, cok)
			}
			return
		}
		if !strings.HasPrefix(header, HeaderStart+"\n") || !strings.HasSuffix(header, "\n"+HeaderEnd+"\n") {
			t.Fatalf("header %q does not run from the start line to the end line", header)
		}
		if i := strings.Index(header, "\n"+HeaderEnd+"\n"); i != len(header)-len(HeaderEnd)-2 {
			t.Fatalf("header %q runs past its first end line", header)
		}
		cb, cok := ComparableBody(text)
		if !cok || cb != withoutMeasured(body) {
			t.Fatalf("ComparableBody = %q, %v; want %q", cb, cok, withoutMeasured(body))
		}
	})
}

// FuzzHeaderRoundTrip writes a report the way the harness does, Header(meta)
// then the body, and reads it back the way compare does: the body comes back
// byte for byte, and the comparable body is the body without measured lines.
//
//	go test ./core/report -run '^$' -fuzz '^FuzzHeaderRoundTrip$' -fuzztime 5s
func FuzzHeaderRoundTrip(f *testing.F) {
	f.Add(int64(1764493200), "outboxlab session-16-retry-with-dead-letter", "/tmp/outboxlab-1/outbox.db (temporary; deleted after the run)",
		"0.1.0", "Day 16\n======\n\n## Verdict\n\nVERDICT: ok\n")
	f.Add(int64(0), "", "", "", "")
	f.Add(int64(-62135596800), "outboxlab all", "(none)", "dev", HeaderEnd+"\n"+HeaderStart+"\n")
	f.Add(int64(1764493200), "outboxlab workers", "db", "0.1.0", "rate 12 msg/s "+MeasuredMarker+"\nkept\nno newline "+MeasuredMarker)
	f.Add(int64(1764493200), "outboxlab x --report-dir \"a\n"+HeaderEnd+"\nb\"", "db\r", "0.1.0\n", "body\n")
	f.Fuzz(func(t *testing.T, started int64, command, database, version, body string) {
		m := Meta{Started: time.Unix(started, 0), Command: command, Database: database, Version: version}
		text := Header(m) + body
		header, gotBody, ok := SplitHeader(text)
		// Header quotes a field holding a line break, so no field can fake the end line.
		if !ok || header != Header(m) || gotBody != body {
			t.Fatalf("SplitHeader(Header(m)+body) = %q, %q, %v; want the header, %q, true", header, gotBody, ok, body)
		}
		cb, cok := ComparableBody(text)
		if !cok || cb != withoutMeasured(body) {
			t.Fatalf("ComparableBody = %q, %v; want %q", cb, cok, withoutMeasured(body))
		}
		// Comparing is idempotent: a comparable body holds nothing more to skip.
		if again, _ := ComparableBody(Header(m) + cb); again != cb {
			t.Fatalf("ComparableBody of a comparable body = %q, want %q", again, cb)
		}
	})
}

// withoutMeasured drops the lines ending in MeasuredMarker, written apart
// from ComparableBody so the two can disagree.
func withoutMeasured(body string) string {
	var b strings.Builder
	for body != "" {
		line := body
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			line = body[:i+1]
		}
		body = body[len(line):]
		if !strings.HasSuffix(strings.TrimSuffix(line, "\n"), MeasuredMarker) {
			b.WriteString(line)
		}
	}
	return b.String()
}
