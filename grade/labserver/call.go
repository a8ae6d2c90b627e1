package labserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"outboxlab/core/clock"
)

// The calls: their paths, their bodies, and the answers the scheduler gives.

// The calls' paths.
const (
	pathHello  = "/v1/hello"
	pathNow    = "/v1/clock/now"
	pathSleep  = "/v1/clock/sleep"
	pathStatus = "/v1/provider/status"
	pathCharge = "/v1/provider/charge"
	pathDone   = "/v1/done"
	// Day 18's hosted worker (section 5.1): additive, protocol 1.
	pathHandler = "/v1/handler/run"
	pathWait    = "/v1/work/wait"
)

var knownPaths = map[string]string{
	pathHello: "hello", pathNow: "now", pathSleep: "sleep",
	pathStatus: "status", pathCharge: "charge", pathDone: "done",
	pathHandler: "handler", pathWait: "wait",
}

// maxBody bounds a request body.
const maxBody = 64 << 10

// Request is every call's body; each call reads the fields it needs.
type Request struct {
	Language    string  `json:"language"`
	UntilMS     *int64  `json:"until_ms"`
	Until       *string `json:"until"`
	PaymentKey  string  `json:"payment_key"`
	MessageID   *int64  `json:"message_id"`
	AmountCents *int64  `json:"amount_cents"`
}

// Incarnation is one start of a worker: its token and whether it has a
// call outstanding.
type Incarnation struct {
	Worker      int    // the worker's index in the run (0 for worker-1)
	ID          string // the worker's id, worker-1
	N           int    // 1 at its first start, +1 at every restart
	Token       string
	outstanding atomic.Bool
}

// Call is one request handed to the scheduler.
type Call struct {
	Owner *Incarnation
	Name  string // hello, now, sleep, status, charge, done, handler, wait; exit for a process that ended
	Req   Request
	Until time.Time // sleep: when to wake; handler, wait: when to return at the latest (zero: not asked)
	Reply chan Answer
}

// Answer is what the handler writes back.
type Answer struct {
	Status int
	Body   map[string]any
}

// readCall reads and checks a call's body.
func readCall(r *http.Request, name string) (*Call, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("read the body: %v", err)
	}
	c := &Call{Name: name, Reply: make(chan Answer, 1)}
	if strings.TrimSpace(string(raw)) != "" {
		if err := json.Unmarshal(raw, &c.Req); err != nil {
			return nil, errors.New("the body is not a JSON object of this call")
		}
	}
	if name == "sleep" || name == "wait" || name == "handler" {
		if err := c.readUntil(); err != nil {
			return nil, err
		}
	}
	switch name {
	case "sleep":
		if c.Until.IsZero() {
			return nil, errors.New("sleep needs until_ms or until")
		}
	case "status", "charge", "handler":
		if c.Req.PaymentKey == "" || c.Req.MessageID == nil {
			return nil, errors.New("give payment_key and message_id")
		}
		if len(c.Req.PaymentKey) > 64 {
			return nil, errors.New("payment_key is longer than 64 characters")
		}
		if name == "charge" && (c.Req.AmountCents == nil || *c.Req.AmountCents <= 0) {
			return nil, errors.New("charge needs a positive amount_cents")
		}
	}
	return c, nil
}

// readUntil reads until_ms or until, when given.
func (c *Call) readUntil() error {
	switch {
	case c.Req.UntilMS != nil && c.Req.Until != nil:
		return errors.New("give until_ms or until, not both")
	case c.Req.UntilMS != nil:
		c.Until = time.UnixMilli(*c.Req.UntilMS).UTC()
	case c.Req.Until != nil:
		t, err := time.Parse(clock.ISOLayout, *c.Req.Until)
		if err != nil || len(*c.Req.Until) != len(clock.ISOLayout) {
			return fmt.Errorf("until %q is not a time like 2026-01-16T09:00:00.201Z", trimmed(*c.Req.Until))
		}
		c.Until = t
	}
	return nil
}

// trimmed cuts a caller's text for an error line.
func trimmed(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Gone is the answer to a call once the run is over.
func Gone() Answer {
	return Answer{Status: http.StatusGone, Body: map[string]any{"error": "the run is over"}}
}

func write(w http.ResponseWriter, a Answer) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.Status)
	json.NewEncoder(w).Encode(a.Body)
}

// Timed adds the scenario time to an answer's body, as text and epoch ms.
func Timed(body map[string]any, now time.Time) map[string]any {
	if body == nil {
		body = map[string]any{}
	}
	body["now"] = clock.ISO(now)
	body["now_ms"] = now.UnixMilli()
	return body
}
