package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"time"

	"outboxlab/core/clock"
)

// Server serves a Provider over HTTP on a loopback port, so that a child
// process of the lab calls the very provider its parent reads afterwards:
// the provider's ledger and the ids it issued outlive any process that calls it.
type Server struct {
	URL  string
	srv  *http.Server
	done chan struct{}
}

// request is what a client sends; at is scenario time, never the wall clock.
type request struct {
	Key         string `json:"key"`
	AmountCents int64  `json:"amountCents,omitempty"`
	At          string `json:"at"`
}

type response struct {
	Outcome       Outcome `json:"outcome,omitempty"`
	TransactionID string  `json:"transactionId,omitempty"`
	Error         string  `json:"error,omitempty"`
}

// Serve starts serving p until Close. The answers to charges for the keys in
// loseChargeAnswers are lost on the way back: the provider takes the charge
// (its ledger shows it), the caller gets ErrTimeout and cannot know.
func Serve(p *Provider, loseChargeAnswers []string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve the provider: %w", err)
	}
	lost := slices.Clone(loseChargeAnswers)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /charge", func(w http.ResponseWriter, r *http.Request) {
		serve(w, r, func(ctx context.Context, req request, at time.Time) (Answer, int, error) {
			a, err := p.Charge(ctx, req.Key, req.AmountCents, at)
			if err == nil && slices.Contains(lost, req.Key) {
				return Answer{}, http.StatusGatewayTimeout, fmt.Errorf("charge for %s: %w (504)", req.Key, ErrTimeout)
			}
			return a, http.StatusBadRequest, err
		})
	})
	mux.HandleFunc("POST /status", func(w http.ResponseWriter, r *http.Request) {
		serve(w, r, func(ctx context.Context, req request, at time.Time) (Answer, int, error) {
			a, err := p.CheckStatus(ctx, req.Key, at)
			return a, http.StatusServiceUnavailable, err
		})
	})
	s := &Server{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: mux}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln)
	}()
	return s, nil
}

// serve decodes a request, runs call and writes its answer, or its error with
// the status code call chose.
func serve(w http.ResponseWriter, r *http.Request, call func(context.Context, request, time.Time) (Answer, int, error)) {
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	at, err := time.Parse(clock.ISOLayout, req.At)
	if err != nil {
		http.Error(w, "bad scenario time", http.StatusBadRequest)
		return
	}
	a, code, err := call(r.Context(), req, at)
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(response{Error: err.Error()})
		return
	}
	json.NewEncoder(w).Encode(response{Outcome: a.Outcome, TransactionID: a.TransactionID})
}

// Close stops the server and waits for it.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}

// Client calls a provider served by Serve, from any process.
type Client struct {
	URL  string
	HTTP *http.Client
}

// NewClient returns a client of the provider at url.
func NewClient(url string) *Client {
	return &Client{URL: url, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// Charge is Provider.Charge over the wire. ErrTimeout means the answer was lost.
func (c *Client) Charge(ctx context.Context, key string, amountCents int64, at time.Time) (Answer, error) {
	return c.call(ctx, "/charge", request{Key: key, AmountCents: amountCents, At: clock.ISO(at)})
}

// CheckStatus is Provider.CheckStatus over the wire, with the same error text.
func (c *Client) CheckStatus(ctx context.Context, key string, at time.Time) (Answer, error) {
	return c.call(ctx, "/status", request{Key: key, At: clock.ISO(at)})
}

func (c *Client) call(ctx context.Context, path string, req request) (Answer, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Answer{}, fmt.Errorf("call provider %s: %w", path, err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL+path, bytes.NewReader(body))
	if err != nil {
		return Answer{}, fmt.Errorf("call provider %s: %w", path, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(hreq)
	if err != nil {
		return Answer{}, fmt.Errorf("call provider %s: %w", path, err)
	}
	defer resp.Body.Close()
	var out response
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return Answer{}, fmt.Errorf("call provider %s: read answer (HTTP %d): %w", path, resp.StatusCode, err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return Answer{Outcome: out.Outcome, TransactionID: out.TransactionID}, nil
	case http.StatusServiceUnavailable:
		return Answer{}, &remoteError{text: out.Error, kind: ErrUnavailable}
	case http.StatusGatewayTimeout:
		return Answer{}, &remoteError{text: out.Error, kind: ErrTimeout}
	}
	return Answer{}, fmt.Errorf("call provider %s: HTTP %d: %s", path, resp.StatusCode, out.Error)
}

// remoteError carries the provider's own error text across the wire and still
// answers errors.Is for the kind of failure.
type remoteError struct {
	text string
	kind error
}

func (e *remoteError) Error() string { return e.text }
func (e *remoteError) Unwrap() error { return e.kind }
