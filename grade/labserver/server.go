// Package labserver is the lab's side of the grading protocol
// (docs/grade-protocol.md, section 5): an HTTP server on loopback whose
// handlers only check the caller and the body, then hand the call to the
// run's scheduler and wait for its answer.
package labserver

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ProtocolVersion is the version of docs/grade-protocol.md the lab speaks.
const ProtocolVersion = 1

// Server is the HTTP side of one run.
type Server struct {
	ln     net.Listener
	http   *http.Server
	calls  chan<- *Call
	over   <-chan struct{}
	mu     sync.Mutex
	tokens map[string]*Incarnation
	// bad lists refused requests by status; the run's protocol checks read it.
	bad map[int][]string
}

// New serves the protocol on a loopback port: each call goes to calls, and
// nothing waits for an answer once over is closed.
func New(calls chan<- *Call, over <-chan struct{}) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve the lab on loopback: %w", err)
	}
	s := newServer(calls, over)
	s.ln = ln
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.http.Serve(ln)
	return s, nil
}

func newServer(calls chan<- *Call, over <-chan struct{}) *Server {
	return &Server{calls: calls, over: over, tokens: map[string]*Incarnation{}, bad: map[int][]string{}}
}

// URL is the base URL of every call.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops serving.
func (s *Server) Close() { s.http.Close() }

// Issue registers incarnation n of worker (its index and id) with a fresh
// random token.
func (s *Server) Issue(worker int, id string, n int) (*Incarnation, error) {
	var buf [32]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return nil, fmt.Errorf("make a token: %w", err)
	}
	inc := &Incarnation{Worker: worker, ID: id, N: n, Token: hex.EncodeToString(buf[:])}
	s.mu.Lock()
	s.tokens[inc.Token] = inc
	s.mu.Unlock()
	return inc, nil
}

// Revoke makes a killed incarnation's token worthless.
func (s *Server) Revoke(inc *Incarnation) {
	s.mu.Lock()
	delete(s.tokens, inc.Token)
	s.mu.Unlock()
}

// NoteRefusal records a request refused with status: the handler's own
// refusals, and the scheduler's (a call before hello, a second hello).
func (s *Server) NoteRefusal(status int, who, msg string) {
	s.mu.Lock()
	s.bad[status] = append(s.bad[status], who+": "+msg)
	s.mu.Unlock()
}

// Refused returns the refused requests with status, in order.
func (s *Server) Refused(status int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bad[status]...)
}

func (s *Server) refuse(w http.ResponseWriter, status int, who, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.NoteRefusal(status, who, msg)
	write(w, Answer{Status: status, Body: map[string]any{"error": msg}})
}

// ServeHTTP checks the caller and the body, hands the call to the
// scheduler and writes its answer.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	who := inc.ID
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
	c.Owner = inc
	if !inc.outstanding.CompareAndSwap(false, true) {
		s.refuse(w, http.StatusConflict, who, "%s while another call of the same worker is outstanding", r.URL.Path)
		return
	}
	defer inc.outstanding.Store(false)
	select {
	case s.calls <- c:
	case <-s.over:
		write(w, Gone())
		return
	}
	select {
	case a := <-c.Reply:
		write(w, a)
	case <-s.over:
		write(w, Gone())
	case <-r.Context().Done():
	}
}
