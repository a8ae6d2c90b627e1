package pgdb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// The classes of error, for errors.Is. A usage error is the user's (exit 2);
// the others mean the run could not happen (exit 3).
var (
	ErrUsage        = errors.New("bad database URL")
	ErrServerDown   = errors.New("server down or unreachable")
	ErrLoginRefused = errors.New("login refused")
	ErrNoPrivilege  = errors.New("missing privilege")
	ErrFailed       = errors.New("database error") // anything else the server said
)

// Error is every error this package returns. Its text is one line, names the
// class, and never holds a password of the URL it was about.
type Error struct {
	Class error  // ErrUsage, ErrServerDown, ErrLoginRefused, ErrNoPrivilege or ErrFailed
	Op    string // what was being done, e.g. "create run schema"
	URL   string // the URL, redacted
	Cause string // the reason in one line, scrubbed of secrets
	err   error  // the original error, for errors.As (a *pgconn.PgError, say)
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %v: %s", e.Op, e.Class, e.Cause)
}

// Is makes errors.Is(err, ErrServerDown) and the like work.
func (e *Error) Is(target error) bool { return target == e.Class }

func (e *Error) Unwrap() error { return e.err }

// newError builds an Error of class about rawURL.
func newError(class error, op, rawURL string, err error) *Error {
	cause := oneLine(err)
	for _, s := range secrets(rawURL) {
		cause = strings.ReplaceAll(cause, s, redacted)
	}
	return &Error{Class: class, Op: op, URL: Redact(rawURL), Cause: cause, err: err}
}

// classify wraps err, from talking to the server about rawURL, in an Error of
// the class it belongs to. An Error already classified passes through.
func classify(op, rawURL string, err error) error {
	if err == nil {
		return nil
	}
	var done *Error
	if errors.As(err, &done) {
		return done
	}
	return newError(classOf(err), op, rawURL, err)
}

func classOf(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "28P01", pgErr.Code == "28000", pgErr.Code == "3D000":
			return ErrLoginRefused // wrong password, no such role or database, pg_hba says no
		case pgErr.Code == "42501":
			return ErrNoPrivilege
		case pgErr.Code == "53300", pgErr.Code == "57P03", strings.HasPrefix(pgErr.Code, "08"),
			pgErr.Code == "57P01", pgErr.Code == "57P02":
			return ErrServerDown // too many clients, starting up, shutting down
		}
		return ErrFailed
	}
	var netErr net.Error
	var connErr *pgconn.ConnectError
	switch {
	case pgconn.Timeout(err), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &netErr), errors.As(err, &connErr),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENOENT):
		return ErrServerDown
	}
	return ErrFailed
}

// noAnswer is the cause of a connect timeout.
const noAnswer = "no answer before the connect timeout"

// oneLine says why err happened in one line: the server's message, or the
// innermost network failure, without pgx's "failed to connect to ..." prefix.
func oneLine(err error) string {
	var pgErr *pgconn.PgError
	var opErr *net.OpError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &pgErr):
		return pgErr.Message + " (SQLSTATE " + pgErr.Code + ")"
	case pgconn.Timeout(err), errors.Is(err, context.DeadlineExceeded):
		return noAnswer
	case errors.As(err, &opErr):
		return opErr.Op + ": " + opErr.Err.Error() // the caller names the address
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, "`: "); strings.HasPrefix(msg, "failed to connect") && i >= 0 {
		msg = msg[i+3:]
	}
	return strings.Join(strings.Fields(msg), " ")
}
