package grade

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"outboxlab/core/clock"
)

// The lab's side of the protocol (docs/grade-protocol.md, section 5): an
// HTTP server on loopback whose handlers only check the caller and the body,
// then hand the call to the run's scheduler and wait for its answer.

// ProtocolVersion is the version of docs/grade-protocol.md the lab speaks.
const ProtocolVersion = 1

// The calls' paths.
const (
	pathHello  = "/v1/hello"
	pathNow    = "/v1/clock/now"
	pathSleep  = "/v1/clock/sleep"
	pathStatus = "/v1/provider/status"
	pathCharge = "/v1/provider/charge"
	pathDone   = "/v1/done"
)

var knownPaths = map[string]string{
	pathHello: "hello", pathNow: "now", pathSleep: "sleep",
	pathStatus: "status", pathCharge: "charge", pathDone: "done",
}

// maxBody bounds a request body.
const maxBody = 64 << 10

// request is every call's body; each call reads the fields it needs.
type request struct {
	Language    string  `json:"language"`
	UntilMS     *int64  `json:"until_ms"`
	Until       *string `json:"until"`
	PaymentKey  string  `json:"payment_key"`
	MessageID   *int64  `json:"message_id"`
	AmountCents *int64  `json:"amount_cents"`
}

// call is one request handed to the scheduler.
type call struct {
	owner *incarnation
	name  string // hello, now, sleep, status, charge, done
	req   request
	until time.Time // sleep: when to wake
	reply chan answer
}

// answer is what the handler writes back.
type answer struct {
	status int
	body   map[string]any
}

// incarnation is one start of a worker: its token and whether it has a call
// outstanding.
type incarnation struct {
	slot        *slot
	n           int
	token       string
	outstanding atomic.Bool
}

// server is the HTTP side of one run.
type server struct {
	ln     net.Listener
	http   *http.Server
	calls  chan<- *call
	over   <-chan struct{}
	mu     sync.Mutex
	tokens map[string]*incarnation
	// bad counts refused requests by status; the run's protocol checks read it.
	bad map[int][]string
}

func newServer(calls chan<- *call, over <-chan struct{}) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve the lab on loopback: %w", err)
	}
	s := &server{ln: ln, calls: calls, over: over, tokens: map[string]*incarnation{}, bad: map[int][]string{}}
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.http.Serve(ln)
	return s, nil
}

// URL is the base URL of every call.
func (s *server) URL() string { return "http://" + s.ln.Addr().String() }

func (s *server) close() { s.http.Close() }

// issue registers a new incarnation of a worker with a fresh random token.
func (s *server) issue(sl *slot, n int) (*incarnation, error) {
	var buf [32]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return nil, fmt.Errorf("make a token: %w", err)
	}
	inc := &incarnation{slot: sl, n: n, token: hex.EncodeToString(buf[:])}
	s.mu.Lock()
	s.tokens[inc.token] = inc
	s.mu.Unlock()
	return inc, nil
}

// revoke makes a killed incarnation's token worthless.
func (s *server) revoke(inc *incarnation) {
	s.mu.Lock()
	delete(s.tokens, inc.token)
	s.mu.Unlock()
}

func (s *server) refuse(w http.ResponseWriter, status int, who, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.bad[status] = append(s.bad[status], who+": "+msg)
	s.mu.Unlock()
	write(w, answer{status: status, body: map[string]any{"error": msg}})
}

// refused returns the refused requests with status, in order.
func (s *server) refused(status int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bad[status]...)
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		s.refuse(w, http.StatusUnauthorized, "a caller", "the lab serves loopback callers only")
		return
	}
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	inc := s.tokens[strings.TrimSpace(token)]
	s.mu.Unlock()
	if inc == nil {
		s.refuse(w, http.StatusUnauthorized, "a caller", "no valid token (send Authorization: Bearer $OUTBOXLAB_TOKEN)")
		return
	}
	who := inc.slot.id
	name, ok := knownPaths[r.URL.Path]
	if !ok {
		s.refuse(w, http.StatusNotFound, who, "no call %s", trimmed(r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		s.refuse(w, http.StatusBadRequest, who, "%s must be a POST", r.URL.Path)
		return
	}
	c, err := readCall(r, name)
	if err != nil {
		s.refuse(w, http.StatusBadRequest, who, "%s: %v", r.URL.Path, err)
		return
	}
	c.owner = inc
	if !inc.outstanding.CompareAndSwap(false, true) {
		s.refuse(w, http.StatusConflict, who, "%s while another call of the same worker is outstanding", r.URL.Path)
		return
	}
	defer inc.outstanding.Store(false)
	select {
	case s.calls <- c:
	case <-s.over:
		write(w, gone())
		return
	}
	select {
	case a := <-c.reply:
		write(w, a)
	case <-s.over:
		write(w, gone())
	case <-r.Context().Done():
	}
}

// readCall reads and checks a call's body.
func readCall(r *http.Request, name string) (*call, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("read the body: %v", err)
	}
	c := &call{name: name, reply: make(chan answer, 1)}
	if strings.TrimSpace(string(raw)) != "" {
		if err := json.Unmarshal(raw, &c.req); err != nil {
			return nil, errors.New("the body is not a JSON object of this call")
		}
	}
	switch name {
	case "sleep":
		switch {
		case c.req.UntilMS != nil && c.req.Until != nil:
			return nil, errors.New("give until_ms or until, not both")
		case c.req.UntilMS != nil:
			c.until = time.UnixMilli(*c.req.UntilMS).UTC()
		case c.req.Until != nil:
			t, err := time.Parse(clock.ISOLayout, *c.req.Until)
			if err != nil || len(*c.req.Until) != len(clock.ISOLayout) {
				return nil, fmt.Errorf("until %q is not a time like 2026-01-16T09:00:00.201Z", trimmed(*c.req.Until))
			}
			c.until = t
		default:
			return nil, errors.New("sleep needs until_ms or until")
		}
	case "status", "charge":
		if c.req.PaymentKey == "" || c.req.MessageID == nil {
			return nil, errors.New("give payment_key and message_id")
		}
		if len(c.req.PaymentKey) > 64 {
			return nil, errors.New("payment_key is longer than 64 characters")
		}
		if name == "charge" && (c.req.AmountCents == nil || *c.req.AmountCents <= 0) {
			return nil, errors.New("charge needs a positive amount_cents")
		}
	}
	return c, nil
}

// trimmed cuts a caller's text for an error line.
func trimmed(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func gone() answer {
	return answer{status: http.StatusGone, body: map[string]any{"error": "the run is over"}}
}

func write(w http.ResponseWriter, a answer) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	json.NewEncoder(w).Encode(a.body)
}

// timed adds the scenario time to an answer's body, as text and epoch ms.
func timed(body map[string]any, now time.Time) map[string]any {
	if body == nil {
		body = map[string]any{}
	}
	body["now"] = clock.ISO(now)
	body["now_ms"] = now.UnixMilli()
	return body
}
