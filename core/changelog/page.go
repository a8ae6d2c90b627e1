package changelog

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed page.html
var pageHTML string

// dataMark is where Page puts the page's data in page.html.
const dataMark = "/*REPLAY-DATA*/"

// PageCheck is one of the run's checks, as the replay page lists it: its
// mark (PASS, REPRODUCED, HOLDS, ...) and the event that decided it.
type PageCheck struct {
	Name   string `json:"name"`
	Mark   string `json:"mark"`
	Detail string `json:"detail"`
	Step   int    `json:"step"` // DecidingStep; 0 when nothing was recorded
}

// PageData is what the replay page shows: the run, its checks and its
// change log.
type PageData struct {
	Scenario string      `json:"scenario"`
	Kind     string      `json:"kind"`
	Own      string      `json:"own"` // the design that is the scenario's own
	Verdict  string      `json:"verdict"`
	Checks   []PageCheck `json:"checks"`
	Log      Log         `json:"log"`
}

// Page is the replay page of a run: one self-contained HTML file (its
// script and style inline, nothing fetched) that steps through the log.
func Page(d PageData) ([]byte, error) {
	data, err := json.Marshal(d) // escapes <, > and &: safe inside <script>
	if err != nil {
		return nil, fmt.Errorf("encode the replay page's data: %w", err)
	}
	return []byte(strings.Replace(pageHTML, dataMark, string(data), 1)), nil
}
