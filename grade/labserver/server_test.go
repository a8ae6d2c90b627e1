package labserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestServerRefuses pins the server's refusals without a scheduler: a caller
// off loopback, a missing or revoked token, a bad body, an unknown call, and
// a second call while the first is outstanding.
func TestServerRefuses(t *testing.T) {
	calls, over := make(chan *Call, 1), make(chan struct{})
	defer close(over)
	srv := newServer(calls, over)
	inc, err := srv.Issue(0, "worker-1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(inc.Token) != 64 {
		t.Errorf("token of %d hex digits, want 64", len(inc.Token))
	}
	do := func(remote, token, path, body string) int {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.RemoteAddr = remote
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code
	}
	local := "127.0.0.1:40000"
	for _, tc := range []struct {
		name, remote, token, path, body string
		want                            int
	}{
		{"not loopback", "10.1.2.3:5000", inc.Token, pathNow, "{}", 401},
		{"no token", local, "", pathNow, "{}", 401},
		{"wrong token", local, strings.Repeat("0", 64), pathNow, "{}", 401},
		{"unknown call", local, inc.Token, "/v1/teleport", "{}", 404},
		{"not JSON", local, inc.Token, pathSleep, "until tomorrow", 400},
		{"sleep without a time", local, inc.Token, pathSleep, "{}", 400},
		{"sleep until text of another form", local, inc.Token, pathSleep, `{"until": "2026-01-16T09:00:00+00:00"}`, 400},
		{"status without a key", local, inc.Token, pathStatus, `{"message_id": 1}`, 400},
	} {
		if got := do(tc.remote, tc.token, tc.path, tc.body); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	// The first call waits in the scheduler's channel, unanswered: a second is refused.
	first := make(chan int)
	go func() { first <- do(local, inc.Token, pathNow, "{}") }()
	c := <-calls
	if got := do(local, inc.Token, pathNow, "{}"); got != http.StatusConflict {
		t.Errorf("a second call while one is outstanding: %d, want 409", got)
	}
	c.Reply <- Answer{Status: http.StatusOK, Body: map[string]any{}}
	if got := <-first; got != http.StatusOK {
		t.Errorf("the first call: %d, want 200", got)
	}
	srv.Revoke(inc)
	if got := do(local, inc.Token, pathNow, "{}"); got != http.StatusUnauthorized {
		t.Errorf("a revoked (killed incarnation's) token: %d, want 401", got)
	}
	if n := len(srv.Refused(409)); n != 1 {
		t.Errorf("%d refusals with 409 recorded, want 1", n)
	}
}
