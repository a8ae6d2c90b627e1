package labserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHostedCalls pins Day 18's calls as the server reads them: a handler
// needs its message, until is optional for a handler and a wait and read in
// either form, and a sleep still needs one.
func TestHostedCalls(t *testing.T) {
	for _, tc := range []struct {
		name, path, body string
		err              bool
		until            string // "": none
	}{
		{"handler without a message", pathHandler, `{"until_ms": 1768554020000}`, true, ""},
		{"handler, no until", pathHandler, `{"payment_key": "PAY-001", "message_id": 1}`, false, ""},
		{"handler until_ms", pathHandler, `{"payment_key": "PAY-001", "message_id": 1, "until_ms": 1768554020000}`,
			false, "2026-01-16T09:00:20Z"},
		{"wait, empty body", pathWait, ``, false, ""},
		{"wait until text", pathWait, `{"until": "2026-01-16T09:00:20.001Z"}`, false, "2026-01-16T09:00:20.001Z"},
		{"wait until of another form", pathWait, `{"until": "2026-01-16T09:00:20+00:00"}`, true, ""},
		{"wait with both", pathWait, `{"until": "2026-01-16T09:00:20.001Z", "until_ms": 1}`, true, ""},
		{"sleep still needs a time", pathSleep, `{}`, true, ""},
	} {
		req := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(tc.body))
		c, err := readCall(req, knownPaths[tc.path])
		if (err != nil) != tc.err {
			t.Errorf("%s: error %v, want one: %v", tc.name, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		got := ""
		if !c.Until.IsZero() {
			got = c.Until.Format(time.RFC3339Nano)
		}
		if got != tc.until {
			t.Errorf("%s: until %q, want %q", tc.name, got, tc.until)
		}
	}
}
