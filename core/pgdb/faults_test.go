package pgdb_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"outboxlab/core/pgdb"
)

// checkFault asserts that err is of class want, arrived within limit, holds
// no secret and no newline, and that nothing of the lab is left on the server.
func checkFault(t *testing.T, err error, want error, took, limit time.Duration, secret string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error %v, want class %q", err, want)
	}
	msg := err.Error()
	t.Logf("after %v: %s", took.Round(time.Millisecond), msg)
	if !strings.Contains(msg, want.Error()) {
		t.Errorf("error %q does not say %q", msg, want)
	}
	if secret != "" && strings.Contains(msg, secret) {
		t.Errorf("error %q holds the password", msg)
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error %q is more than one line", msg)
	}
	if took > limit {
		t.Errorf("took %v, want at most %v", took, limit)
	}
}

func TestServerDownNoSocket(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() // no server listens here
	raw := "postgres://lab:hunter22@/postgres?host=" + url.QueryEscape(dir)
	start := time.Now()
	_, err := pgdb.CreateRunSchema(context.Background(), raw, "down")
	checkFault(t, err, pgdb.ErrServerDown, time.Since(start), time.Second, "hunter22")
}

// A server that accepts and then never answers is down too, within the
// connect timeout (5 s by default).
func TestServerDownSilentListener(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // accepted and never answered
		}
	}()
	raw := "postgres://lab:hunter22@" + ln.Addr().String() + "/lab?sslmode=disable"
	start := time.Now()
	_, err = pgdb.Open(context.Background(), raw)
	took := time.Since(start)
	checkFault(t, err, pgdb.ErrServerDown, took, pgdb.ConnectTimeout+time.Second, "hunter22")
	if took < pgdb.ConnectTimeout-time.Second {
		t.Errorf("gave up after %v: before the connect timeout %v", took, pgdb.ConnectTimeout)
	}
}

func TestLoginRefusedHidesPassword(t *testing.T) {
	ctx := context.Background()
	raw := roleURL(t, "lab_user", "right-pw-1", "wrong-Secret-42")
	start := time.Now()
	_, err := pgdb.CreateRunSchema(ctx, raw, "login")
	checkFault(t, err, pgdb.ErrLoginRefused, time.Since(start), 5*time.Second, "wrong-Secret-42")
	var e *pgdb.Error
	if !errors.As(err, &e) || strings.Contains(e.URL, "wrong-Secret-42") {
		t.Errorf("error's URL %q holds the password", e.URL)
	}
	// The right password gets in, so the refusal was about the password.
	ok := roleURL(t, "lab_user", "right-pw-1", "right-pw-1")
	if db, err := pgdb.Open(ctx, ok); err != nil {
		t.Errorf("right password refused: %v", err)
	} else {
		db.Close()
	}
}

func TestNoPrivilegeToCreateSchema(t *testing.T) {
	ctx := context.Background()
	db := admin(t)
	before := labSchemas(t, db)
	raw := roleURL(t, "lab_reader", "reader-pw-7", "reader-pw-7")
	start := time.Now()
	_, err := pgdb.CreateRunSchema(ctx, raw, "no-privilege")
	checkFault(t, err, pgdb.ErrNoPrivilege, time.Since(start), 5*time.Second, "reader-pw-7")
	if after := labSchemas(t, db); len(after) != len(before) {
		t.Errorf("schemas %v after a refused run, want %v", after, before)
	}
	// Its sessions end too: the pool was closed.
	deadline := time.Now().Add(3 * time.Second)
	for {
		var n int
		db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE usename = 'lab_reader'`).Scan(&n)
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions of the refused run still open", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestEnvironmentIsClean(t *testing.T) {
	if v, ok := os.LookupEnv(pgdb.EnvVar); ok {
		t.Errorf("%s=%q is set in the tests: pgtest.Main should have unset it", pgdb.EnvVar, pgdb.Redact(v))
	}
}
