package report

import (
	"strings"
	"testing"
	"time"
)

func demoRecord() *Record {
	return &Record{Scenario: "demo", Kind: After, Version: "0.1.0",
		Params: []Param{
			{Name: "max-attempts", Value: "5", Default: "3", Set: true},
			{Name: "seed", Value: "1", Default: "1", Set: true},
			{Name: "lease", Value: "30s", Default: "30s"},
		},
		Checks:  []Check{{Name: "drained", Passed: true, Detail: "0 left"}, {Name: "bounded", Passed: false, Detail: "7 / 5"}},
		Metrics: map[string]any{"provider_calls": 10, "note": "a\n==== end of run metadata ====\n"},
		Verdict: "BROKEN", ExitCode: 1}
}

// The file's header records every parameter and the outcome, and reads back
// whole; the terminal's shows only the flags that differ from the defaults.
func TestHeaderRecordsTheRunAndReadsBack(t *testing.T) {
	m := Meta{Started: time.Date(2026, 1, 16, 9, 0, 0, 0, time.UTC), Command: "outboxlab demo", Database: "db", Version: "0.1.0", Record: demoRecord()}
	file := Header(m)
	for _, want := range []string{"flags:    --max-attempts=5 (default 3)\n", "defaults: --seed=1 --lease=30s\n",
		"checks:   1/2 passed\n", "exit:     1\n", "verdict:  BROKEN\n"} {
		if !strings.Contains(file, want) {
			t.Errorf("file header lacks %q:\n%s", want, file)
		}
	}
	// A metric holding the end marker cannot end the header early.
	header, body, ok := SplitHeader(file + "Title\n=====\nVERDICT: BROKEN\n")
	if !ok || body != "Title\n=====\nVERDICT: BROKEN\n" {
		t.Fatalf("SplitHeader: ok %v, body %q", ok, body)
	}
	info := ParseHeader(header)
	r := info.Record
	if r == nil || r.Scenario != "demo" || len(r.Params) != 3 || !r.Params[1].Set || r.Params[0].Value != "5" ||
		r.ExitCode != 1 || r.Metrics["provider_calls"] != float64(10) || !info.Started.Equal(m.Started) {
		t.Fatalf("ParseHeader = %+v, %+v; want the record written", info, r)
	}
	term := TerminalHeader(m)
	if strings.Contains(term, "--seed") || strings.Contains(term, "record:") || !strings.Contains(term, "--max-attempts=5") {
		t.Errorf("terminal header shows more or less than the changed flags:\n%s", term)
	}
	for _, l := range strings.Split(file, "\n") {
		if !strings.HasPrefix(l, recordLabel) && Width(l) > 100 {
			t.Errorf("header line wider than 100 columns: %q", l)
		}
	}
}

// A body without a header is a report; notes are not.
func TestParseTakesBodiesWithOrWithoutHeader(t *testing.T) {
	body := "Day 16\n======\n\nVERDICT: ok\n"
	if d, ok := Parse(body); !ok || d.HasHeader || d.Body != body {
		t.Errorf("Parse(golden body) = %+v, %v; want the body, no header", d, ok)
	}
	for _, notes := range []string{"just notes\n", "Day 16\n=====\n\nVERDICT: ok\n", "Day 16\n======\nno verdict\n", ""} {
		if _, ok := Parse(notes); ok {
			t.Errorf("Parse(%q) took it for a report", notes)
		}
	}
}
