// Package dblocation is the one place that reads a database location, what
// --database, OUTBOXLAB_DATABASE and inspect --db are given: a SQLite file
// path or a PostgreSQL URL. It says which one it is and normalizes a URL so
// that the driver reads it as the URL it is.
//
// Why it matters: pgx tells a URL from a keyword/value string by a
// case-sensitive "postgres://" prefix. "POSTGRES:///db?host=/dir" passes a
// URL check (net/url lower-cases the scheme) but pgx would read it as
// keywords, drop the host and connect to its default server (PGHOST, the
// default socket folder): a run could create and drop its schema on a
// server the user never named. Every caller classifies through Parse, and
// every URL handed on has a lower-case scheme.
package dblocation

import (
	"errors"
	"strings"
)

// Kind is what a location names.
type Kind int

// The kinds of location.
const (
	SQLite   Kind = iota + 1 // a SQLite file path
	Postgres                 // a postgres:// or postgresql:// URL
)

func (k Kind) String() string {
	switch k {
	case SQLite:
		return "SQLite"
	case Postgres:
		return "PostgreSQL"
	}
	return "unknown"
}

// The reasons Parse refuses a location (errors.Is). Their text never quotes
// the location, which may hold a password: the caller says where it came from.
var (
	ErrEmpty       = errors.New("empty database location")
	ErrNotPostgres = errors.New("not a PostgreSQL URL (want postgres://user@host/db)")
)

// schemes are the PostgreSQL URL schemes, lower-case, as pgx wants them.
var schemes = []string{"postgres", "postgresql"}

// Location is a classified, normalized database location. The zero value is
// no location.
type Location struct {
	kind  Kind
	value string // the path as given, or the URL with its scheme lower-cased
}

// Parse classifies s. A string that starts with a URL scheme and "//" is a
// URL: postgres:// or postgresql:// in any letter case is a PostgreSQL URL,
// returned with its scheme lower-cased; any other scheme is refused
// (ErrNotPostgres). A string that starts "postgres:" or "postgresql:"
// without "//" is refused too: the driver would not read it as a URL.
// Anything else is a SQLite file path, kept as given. Parse does not check
// the rest of a URL (host, port, parameters): pgdb.ParseURL does, with the
// driver's rules.
func Parse(s string) (Location, error) {
	if s == "" {
		return Location{}, ErrEmpty
	}
	scheme, rest, ok := splitScheme(s)
	switch {
	case ok && isPostgresScheme(scheme) && strings.HasPrefix(rest, "//"):
		return Location{kind: Postgres, value: strings.ToLower(scheme) + ":" + rest}, nil
	case ok && isPostgresScheme(scheme), ok && strings.HasPrefix(rest, "//"):
		return Location{}, ErrNotPostgres
	}
	return Location{kind: SQLite, value: s}, nil
}

// File is the SQLite file at path, as the lab names one it makes itself (a
// file in a run's folder): no parsing, it is a path.
func File(path string) Location { return Location{kind: SQLite, value: path} }

// ParsePostgres is Parse for a place that takes only a PostgreSQL URL
// (--database): a SQLite path is refused with ErrNotPostgres.
func ParsePostgres(s string) (Location, error) {
	l, err := Parse(s)
	if err == nil && l.kind != Postgres {
		return Location{}, ErrNotPostgres
	}
	return l, err
}

// Kind is what the location names; 0 for the zero Location.
func (l Location) Kind() Kind { return l.kind }

// IsPostgres reports whether the location is a PostgreSQL URL.
func (l Location) IsPostgres() bool { return l.kind == Postgres }

// Path is the SQLite file path, "" for a URL.
func (l Location) Path() string {
	if l.kind != SQLite {
		return ""
	}
	return l.value
}

// URL is the PostgreSQL URL with its scheme lower-cased, "" for a path. It
// may hold a password: print pgdb.Redact of it.
func (l Location) URL() string {
	if l.kind != Postgres {
		return ""
	}
	return l.value
}

// String is the normalized location: the path, or the URL (which may hold
// a password: redact it before printing).
func (l Location) String() string { return l.value }

// IsPostgres reports whether s is a PostgreSQL URL (Parse's rule, any letter
// case). It does not check the rest of it.
func IsPostgres(s string) bool {
	l, err := Parse(s)
	return err == nil && l.kind == Postgres
}

// Normalize returns s with its scheme lower-cased when it is a PostgreSQL
// URL, else s unchanged.
func Normalize(s string) string {
	if l, err := Parse(s); err == nil && l.kind == Postgres {
		return l.value
	}
	return s
}

// Index is where a PostgreSQL URL ("postgres://" or "postgresql://", any
// letter case) starts in s, or -1: a child's argument may carry one after
// "--flag=".
func Index(s string) int {
	for i := 0; i < len(s); i++ {
		for _, scheme := range schemes {
			if hasPrefixFold(s[i:], scheme+"://") {
				return i
			}
		}
	}
	return -1
}

// splitScheme splits s at the end of its URL scheme (RFC 3986: a letter,
// then letters, digits, "+", "-", "."), ok false when s starts with none.
func splitScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i], s[i+1:], true
		default:
			return "", s, false
		}
	}
	return "", s, false
}

func isPostgresScheme(scheme string) bool {
	for _, s := range schemes {
		if strings.EqualFold(scheme, s) {
			return true
		}
	}
	return false
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII letter case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
