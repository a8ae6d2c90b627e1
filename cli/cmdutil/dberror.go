package cmdutil

import (
	"errors"
	"net/url"
	"strings"

	"outboxlab/core/pgdb"
)

// DatabaseError maps an error about the server at rawURL to its exit code
// (a bad URL is the user's: 2; a server that is down, refuses the login or
// the privilege: 3) and scrubs the URL's password from its text, whoever
// wrote it.
func DatabaseError(err error, rawURL string) error {
	if err == nil {
		return nil
	}
	err = scrubbed{err, rawURL}
	if errors.Is(err, pgdb.ErrUsage) {
		return Usage(err)
	}
	return CannotRun(err)
}

// scrubbed is an error whose text never holds the password of url.
type scrubbed struct {
	err error
	url string
}

// Scrub replaces the password of rawURL in s, raw or escaped, by the
// redaction mark.
func Scrub(s, rawURL string) string {
	for _, p := range pgdb.Passwords(rawURL) {
		for _, form := range []string{p, url.QueryEscape(p), url.PathEscape(p)} {
			s = strings.ReplaceAll(s, form, "xxxxx")
		}
	}
	return s
}

func (s scrubbed) Error() string { return Scrub(s.err.Error(), s.url) }
func (s scrubbed) Unwrap() error { return s.err }

// WithoutPassword is err with the password of rawURL kept out of its text.
func WithoutPassword(err error, rawURL string) error { return scrubbed{err, rawURL} }
