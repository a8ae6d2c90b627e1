package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONCarriesTheTimelineAndTheRows: --json of Day 16's AFTER lists its
// events in order and the rows its database held at the end, as the
// change log read them back: PAY-003 DeadLettered after 3 attempts at
// 09:00:00.602Z, the five others Processed.
func TestJSONCarriesTheTimelineAndTheRows(t *testing.T) {
	code, stdout, stderr := runOutput("session-16-retry-with-dead-letter", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Verdict  string `json:"verdict"`
		Timeline []struct {
			N      int    `json:"n"`
			Design string `json:"design"`
			At     string `json:"at"`
			Text   string `json:"text"`
		} `json:"timeline"`
		Rows map[string][]struct {
			Name    string      `json:"name"`
			Columns []string    `json:"columns"`
			Rows    [][]*string `json:"rows"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Verdict == "" || len(doc.Timeline) == 0 {
		t.Fatalf("no verdict or no timeline: %+v", doc)
	}
	for i, e := range doc.Timeline {
		if e.N != i+1 || e.At == "" || e.Text == "" {
			t.Errorf("event %d: %+v", i+1, e)
		}
	}
	deadAt := ""
	for _, e := range doc.Timeline {
		if e.Design == "AFTER" && strings.Contains(e.Text, "PAY-003") && strings.Contains(e.Text, "attempt 3/3") {
			deadAt = e.At
		}
	}
	if deadAt != "2026-01-16T09:00:00.602Z" {
		t.Errorf("PAY-003's third attempt at %q, want 09:00:00.602Z", deadAt)
	}
	status := map[string]string{}
	for _, table := range doc.Rows["AFTER"] {
		if table.Name != "outboxmessages" {
			continue
		}
		col := map[string]int{}
		for i, c := range table.Columns {
			col[c] = i
		}
		for _, row := range table.Rows {
			key, st, n := *row[col["messagekey"]], *row[col["status"]], *row[col["attemptcount"]]
			status[key] = st + " " + n
		}
	}
	if len(status) != 6 || status["PAY-003"] != "DeadLettered 3" || status["PAY-001"] != "Processed 1" {
		t.Errorf("the AFTER's outbox rows at the end: %v", status)
	}
	// Day 13 records its change log now (its child process's lives too);
	// a scenario that records none prints neither.
	_, stdout, _ = runOutput("session-13-pending-lost-on-restart", "--json")
	if !strings.Contains(stdout, `"timeline"`) {
		t.Error("Day 13, which records its change log, printed no timeline")
	}
	_, stdout, _ = runOutput("backoff-schedules", "--json")
	if strings.Contains(stdout, `"timeline"`) {
		t.Error("backoff-schedules, which records no change log, printed a timeline")
	}
}
