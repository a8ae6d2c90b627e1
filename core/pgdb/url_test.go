package pgdb_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"outboxlab/core/pgdb"
)

func TestParseURLSelectsPostgres(t *testing.T) {
	for _, raw := range []string{
		"postgres://lab@localhost:5432/lab",
		"postgresql://lab:pw@db.example/lab?sslmode=disable",
		"postgres:///postgres?host=/tmp/sock&user=postgres",
	} {
		cfg, err := pgdb.ParseURL(raw)
		if err != nil {
			t.Errorf("ParseURL(%q) = %v, want a config", raw, err)
			continue
		}
		if cfg.ConnectTimeout != pgdb.ConnectTimeout {
			t.Errorf("ParseURL(%q) connect timeout %v, want %v", raw, cfg.ConnectTimeout, pgdb.ConnectTimeout)
		}
	}
	cfg, err := pgdb.ParseURL("postgres://lab@localhost/lab?connect_timeout=2")
	if err != nil || cfg.ConnectTimeout.Seconds() != 2 {
		t.Errorf("connect_timeout=2 gives %v, %v; want 2s", cfg, err)
	}
}

func TestParseURLRefusesWithOneLine(t *testing.T) {
	for _, raw := range []string{
		"", "lab.db", "/tmp/lab.db", "mysql://u:hunter22@h/db", "sqlite:///tmp/x",
		"postgres://u:hunter22@host:notaport/db", "postgres://u:hunter22@h/db?sslmode=bogus",
		"postgres://u:hunter22@[::1/db", "host=localhost password=hunter22",
	} {
		_, err := pgdb.ParseURL(raw)
		if !errors.Is(err, pgdb.ErrUsage) {
			t.Errorf("ParseURL(%q) = %v, want a usage error", raw, err)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "hunter22") || strings.Contains(msg, "\n") {
			t.Errorf("ParseURL(%q) error %q holds the password or a newline", raw, msg)
		}
		var e *pgdb.Error
		if errors.As(err, &e) && strings.Contains(e.URL, "hunter22") {
			t.Errorf("ParseURL(%q) error's URL %q holds the password", raw, e.URL)
		}
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://lab:hunter22@db:5432/lab", "postgres://lab:xxxxx@db:5432/lab"},
		{"postgres://lab@db/lab", "postgres://lab@db/lab"},
		{"postgres://db/lab?password=hunter22&sslmode=disable", "postgres://db/lab?password=xxxxx&sslmode=disable"},
		{"postgres://db/lab?sslpassword=hunter22", "postgres://db/lab?sslpassword=xxxxx"},
		{"postgres://lab:p%40ss@db/lab", "postgres://lab:xxxxx@db/lab"},
		{"postgres://lab:hunter22@[::1/db", "postgres://lab:xxxxx@[::1/db"},
		{"postgres://[::1/db?password=hunter22&x=1", "postgres://[::1/db?password=xxxxx&x=1"},
		{"lab.db", "lab.db"},
	} {
		if got := pgdb.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWithSchemaReachesPgx(t *testing.T) {
	raw := "postgres://lab:pw@db/lab?options=-cstatement_timeout%3D5s&search_path=public"
	u, err := pgdb.WithSchema(raw, "outboxlab_x_1234abcd", "outboxlab-1234abcd-w1")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(u)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.RuntimeParams["options"], "-cstatement_timeout=5s -csearch_path=outboxlab_x_1234abcd"; got != want {
		t.Errorf("options = %q, want %q", got, want)
	}
	if got := cfg.RuntimeParams["application_name"]; got != "outboxlab-1234abcd-w1" {
		t.Errorf("application_name = %q, want outboxlab-1234abcd-w1", got)
	}
	if _, ok := cfg.RuntimeParams["search_path"]; ok {
		t.Errorf("search_path parameter kept: it would override the schema's")
	}
	if strings.Contains(u, "+") {
		t.Errorf("WithSchema(...) = %q: a space as + reads as a plus in libpq", u)
	}
}

func TestSelectedFlagWins(t *testing.T) {
	for _, tc := range []struct {
		name       string
		env        map[string]string
		flag       string
		flagSet    bool
		want, from string
	}{
		{"the variable", map[string]string{pgdb.EnvVar: "postgres://from-env/lab"}, "", false, "postgres://from-env/lab", pgdb.EnvVar},
		{"the flag wins", map[string]string{pgdb.EnvVar: "postgres://from-env/lab"}, "postgres://from-flag/lab", true, "postgres://from-flag/lab", "--database"},
		// --database "" asks for SQLite even with the variable set.
		{"an empty flag", map[string]string{pgdb.EnvVar: "postgres://from-env/lab"}, "", true, "", "--database"},
		{"the old name's URL", map[string]string{pgdb.LegacyEnvVar: "POSTGRES://old/lab"}, "", false, "POSTGRES://old/lab", pgdb.LegacyEnvVar},
		{"the new name first", map[string]string{pgdb.EnvVar: "postgres://new/lab", pgdb.LegacyEnvVar: "postgres://old/lab"}, "", false, "postgres://new/lab", pgdb.EnvVar},
		// What grade hands a worker: its SQLite file, not a server.
		{"a worker's SQLite file", map[string]string{pgdb.LegacyEnvVar: "/tmp/outboxlab-grade-1/outbox.db"}, "", false, "", ""},
		// Written as a URL, it is checked as one (ParseURL refuses it: exit 2).
		{"another scheme", map[string]string{pgdb.LegacyEnvVar: "mysql://root@h/lab"}, "", false, "mysql://root@h/lab", pgdb.LegacyEnvVar},
		{"nothing", nil, "", false, "", ""},
	} {
		got, from := pgdb.Selected(tc.flag, tc.flagSet, func(k string) string { return tc.env[k] })
		if got != tc.want || from != tc.from {
			t.Errorf("%s: Selected(%q, %v) = %q from %q, want %q from %q", tc.name, tc.flag, tc.flagSet, got, from, tc.want, tc.from)
		}
	}
	if got := pgdb.EnvEntry("postgres://x/y"); got != "OUTBOXLAB_DATABASE_URL=postgres://x/y" {
		t.Errorf("EnvEntry = %q", got)
	}
}

func TestRedactForeignStrings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"host=localhost password=hunter22 user=lab", "host=localhost password=xxxxx user=lab"},
		{"host=h password = 'hunter 22'", "host=h password = xxxxx"},
		{"mysql://lab:hunter22@h/db", "mysql://lab:xxxxx@h/db"},
	} {
		if got := pgdb.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestInspectHintHidesPassword(t *testing.T) {
	kept, err := pgdb.WithSchema("postgres://lab:hunter22@db/lab", "outboxlab_x_1234abcd", "")
	if err != nil {
		t.Fatal(err)
	}
	want := "inspect --db 'postgres://lab:xxxxx@db/lab?options=-csearch_path%3Doutboxlab_x_1234abcd'"
	if got := pgdb.InspectHint(kept); got != want {
		t.Errorf("InspectHint = %q, want %q", got, want)
	}
}

func TestWithAppNameReplacesAndCuts(t *testing.T) {
	u, err := pgdb.WithAppName("postgres://u:p@h/db?application_name=old&options=-csearch_path%3Ds", strings.Repeat("a", 70))
	if err != nil {
		t.Fatal(err)
	}
	if got := pgdb.AppName(u); got != strings.Repeat("a", 63) {
		t.Errorf("AppName = %q (%d bytes), want 63 a's", got, len(got))
	}
	if !strings.Contains(u, "u:p@h/db") || !strings.Contains(u, "search_path") {
		t.Errorf("WithAppName = %q: lost the rest of the URL", u)
	}
}

func TestPasswordsOfALocation(t *testing.T) {
	for _, tc := range []struct {
		loc  string
		want []string
	}{
		{"postgres://lab:s3cret@h/db", []string{"s3cret"}},
		{"postgres://lab@h/db?password=p%40ss&sslpassword=k", []string{"p@ss", "k"}},
		{"postgres:///db?host=/tmp", nil},
		{"/tmp/outboxlab-grade/outbox.db", nil},
	} {
		if got := pgdb.Passwords(tc.loc); !slices.Equal(got, tc.want) {
			t.Errorf("Passwords(%q) = %q, want %q", tc.loc, got, tc.want)
		}
	}
}
