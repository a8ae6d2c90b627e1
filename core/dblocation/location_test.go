package dblocation

import (
	"errors"
	"testing"
)

func TestParseClassifiesAndNormalizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind Kind
		out  string
	}{
		{"postgres:///postgres?host=/d&user=u", Postgres, "postgres:///postgres?host=/d&user=u"},
		{"POSTGRES:///postgres?host=/d&user=u", Postgres, "postgres:///postgres?host=/d&user=u"},
		{"PoStGrEs://u:PW@h/db", Postgres, "postgres://u:PW@h/db"},
		{"PostgreSQL://h/db", Postgres, "postgresql://h/db"},
		{"/tmp/run/outbox.db", SQLite, "/tmp/run/outbox.db"},
		{"outbox.db", SQLite, "outbox.db"},
		{"C:outbox.db", SQLite, "C:outbox.db"},
		{"sqlite:outbox.db", SQLite, "sqlite:outbox.db"},
		{"host=localhost user=u", SQLite, "host=localhost user=u"},
	} {
		l, err := Parse(tc.in)
		if err != nil || l.Kind() != tc.kind || l.String() != tc.out {
			t.Errorf("Parse(%q) = %v %q, %v; want %v %q", tc.in, l.Kind(), l.String(), err, tc.kind, tc.out)
		}
		if (l.URL() != "") != (tc.kind == Postgres) || (l.Path() != "") != (tc.kind == SQLite) {
			t.Errorf("Parse(%q): URL %q, Path %q do not match kind %v", tc.in, l.URL(), l.Path(), tc.kind)
		}
		if IsPostgres(tc.in) != (tc.kind == Postgres) {
			t.Errorf("IsPostgres(%q) = %v", tc.in, !(tc.kind == Postgres))
		}
		if Normalize(tc.in) != tc.out {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, Normalize(tc.in), tc.out)
		}
	}
	for _, tc := range []struct {
		in  string
		err error
	}{
		{"", ErrEmpty},
		{"mysql://root@h/db", ErrNotPostgres},
		{"sqlite:///tmp/x", ErrNotPostgres},
		{"POSTGRES:/db", ErrNotPostgres},
		{"postgres:db", ErrNotPostgres},
	} {
		if _, err := Parse(tc.in); !errors.Is(err, tc.err) {
			t.Errorf("Parse(%q) = %v, want %v", tc.in, err, tc.err)
		}
	}
	if _, err := ParsePostgres("/tmp/outbox.db"); !errors.Is(err, ErrNotPostgres) {
		t.Errorf("ParsePostgres of a path = %v, want ErrNotPostgres", err)
	}
}

func TestIndexFindsAURLInAnyCase(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"postgres://h/db", 0},
		{"--database=POSTGRES://h/db", 11},
		{"--db=PostgreSQL:///x", 5},
		{"--db=/tmp/postgres/outbox.db", -1},
		{"postgres:/x", -1},
	} {
		if got := Index(tc.in); got != tc.want {
			t.Errorf("Index(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
