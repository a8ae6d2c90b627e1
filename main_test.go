package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"outboxlab/cli"
	"outboxlab/core/child"
	"outboxlab/core/pgdb"
	"outboxlab/internal/pgtest"
)

func TestMain(m *testing.M) {
	// A scenario's child process re-executes this test binary: run the child, not the tests.
	if code, ok := child.RunIfChild(); ok {
		os.Exit(code)
	}
	testscript.Main(withoutCallersDatabase{m}, map[string]func(){
		"outboxlab": func() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// withoutCallersDatabase runs the tests without OUTBOXLAB_DATABASE_URL and
// OUTBOXLAB_DATABASE: no test
// runs against a database from the caller's environment (the PostgreSQL
// scripts set their own). The lab commands the scripts run keep theirs.
type withoutCallersDatabase struct{ m *testing.M }

func (w withoutCallersDatabase) Run() int {
	os.Unsetenv(pgdb.EnvVar)
	os.Unsetenv(pgdb.LegacyEnvVar)
	return w.m.Run()
}

// TestScripts runs the end-to-end scripts in testdata/script against the real
// command line, as a separate process per invocation, on SQLite.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(""))
}

// TestScriptsPostgres runs the same scripts with OUTBOXLAB_DATABASE_URL naming a
// throwaway PostgreSQL server, so every scenario they run runs there. A
// script that has nothing to check on a server says `[postgres] skip`; lines
// true of one backend only are under `[postgres]` or `[!postgres]`.
func TestScriptsPostgres(t *testing.T) {
	// Its own server, stopped when the test ends: testscript.Main owns
	// TestMain, so pgtest.Main cannot.
	srv, err := pgtest.Start()
	switch {
	case errors.Is(err, pgtest.ErrNotInstalled) && os.Getenv("CI") != "true":
		t.Skip("pgtest: skipped: " + err.Error())
	case err != nil:
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	testscript.Run(t, scriptParams(srv.URL))
}

// scriptParams runs the scripts on PostgreSQL at url, or on SQLite for "".
func scriptParams(url string) testscript.Params {
	return testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			if url != "" {
				env.Setenv(pgdb.EnvVar, url)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "postgres" {
				return url != "", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":   cmdExits,
			"reports": cmdReports,
			"json":    cmdJSON,
			"check":   cmdCheck,
			"capture": cmdCapture,
			"edit":    cmdEdit,
			"copyas":  cmdCopyAs,
		},
	}
}

// exits CODE PROG ARGS... runs PROG and fails unless it exits with CODE.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

var (
	reportName = regexp.MustCompile(`^([A-Za-z0-9-]+)-RunReport-\d{8}-\d{6}(-\d+)?\.txt$`)
	plotName   = regexp.MustCompile(`^[A-Za-z0-9-]+-RunReport-\d{8}-\d{6}(-\d+)?-[a-z0-9_-]+\.svg$`)
	// A run that records its events writes its change log and replay page
	// beside its report (docs/CONTRACT.md, Reports).
	replayName = regexp.MustCompile(`^[A-Za-z0-9-]+-RunReport-\d{8}-\d{6}(-\d+)?-(changelog\.json|replay\.html)$`)
)

// reports DIR TITLE N VAR checks that DIR holds exactly N reports named as
// docs/CONTRACT.md says for TITLE, and sets VAR1..VARn to their paths in order.
func cmdReports(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: reports DIR TITLE N VAR")
	}
	dir := ts.MkAbs(args[0])
	want, _ := strconv.Atoi(args[2])
	entries, err := os.ReadDir(dir)
	if err != nil && want > 0 {
		ts.Fatalf("reports: %v", err)
	}
	var found []string
	for _, e := range entries {
		m := reportName.FindStringSubmatch(e.Name())
		switch {
		case e.IsDir() || plotName.MatchString(e.Name()) || replayName.MatchString(e.Name()):
		case m == nil:
			ts.Fatalf("reports: %s in %s is not named like a report (a leftover temporary file?)", e.Name(), dir)
		case m[1] == args[1]:
			found = append(found, e.Name())
		}
	}
	// Order by time stamp, then by the -N suffix a run in the same second gets.
	order := func(name string) string {
		m := reportName.FindStringSubmatch(name)
		n, _ := strconv.Atoi(strings.TrimPrefix(m[2], "-"))
		return fmt.Sprintf("%s-%04d", name[len(m[1]):len(m[1])+len("-RunReport-20060102-150405")], n)
	}
	sort.Slice(found, func(i, j int) bool { return order(found[i]) < order(found[j]) })
	if len(found) != want {
		ts.Fatalf("reports: %d reports for %s in %s, want %d: %v", len(found), args[1], dir, want, found)
	}
	for i, name := range found {
		ts.Setenv(args[3]+strconv.Itoa(i+1), filepath.Join(dir, name))
	}
}

// json PATH VALUE parses the last command's stdout as one JSON document and
// checks that the value at the dotted PATH prints as VALUE (fmt's %v).
// "json ." only checks that stdout parses.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 || len(args) > 2 {
		ts.Fatalf("usage: json PATH [VALUE]")
	}
	doc := stdoutJSON(ts)
	if args[0] == "." {
		return
	}
	v := doc
	for _, part := range strings.Split(args[0], ".") {
		switch node := v.(type) {
		case map[string]any:
			v = node[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(node) {
				ts.Fatalf("json: no element %q in %s", part, args[0])
			}
			v = node[i]
		default:
			ts.Fatalf("json: %s has no field %q", args[0], part)
		}
	}
	if len(args) == 2 {
		if got := fmt.Sprint(v); got != args[1] {
			ts.Fatalf("json %s = %s, want %s", args[0], got, args[1])
		}
	}
}

// check [-invariant|-demonstrates] NAME PASS|FAIL|N/A [DETAIL] finds the
// check called NAME in the last command's --json stdout (so a renamed check
// fails rather than goes missing) and requires its outcome: held (PASS),
// broken (FAIL) or not exercised (N/A), with passed true only for PASS; with
// -invariant or -demonstrates, its role too; and its detail to match the
// regular expression DETAIL: the figures a check reports, without the
// terminal's wrap points. A BEFORE's REPRODUCED and HOLDS are PASS here,
// NOT REPRODUCED and BROKEN are FAIL.
func cmdCheck(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: check [-invariant|-demonstrates] NAME PASS|FAIL|N/A [DETAIL-REGEXP]"
	role := ""
	if len(args) > 0 && (args[0] == "-invariant" || args[0] == "-demonstrates") {
		role, args = strings.TrimPrefix(args[0], "-"), args[1:]
	}
	outcomes := map[string]string{"PASS": "held", "FAIL": "broken", "N/A": "not_exercised"}
	if neg || len(args) < 2 || len(args) > 3 || outcomes[args[1]] == "" {
		ts.Fatalf(usage)
	}
	var doc struct {
		Checks []struct {
			Name    string
			Passed  bool
			Detail  string
			Role    string
			Outcome string
		}
	}
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &doc); err != nil {
		ts.Fatalf("stdout is not one JSON document: %v", err)
	}
	var names []string
	for _, c := range doc.Checks {
		if c.Name != args[0] {
			names = append(names, c.Name)
			continue
		}
		if c.Outcome != outcomes[args[1]] || c.Passed != (args[1] == "PASS") {
			ts.Fatalf("check %q is %s (passed %v), want %s (detail: %s)", c.Name, c.Outcome, c.Passed, args[1], c.Detail)
		}
		if role != "" && c.Role != role {
			ts.Fatalf("check %q has role %s, want %s", c.Name, c.Role, role)
		}
		if len(args) == 3 {
			re, err := regexp.Compile(args[2])
			if err != nil {
				ts.Fatalf("check: %v", err)
			}
			if !re.MatchString(c.Detail) {
				ts.Fatalf("check %q: detail %q does not match %s", c.Name, c.Detail, args[2])
			}
		}
		return
	}
	ts.Fatalf("check: no check named %q; stdout has %q", args[0], names)
}

// stdoutJSON parses the last command's stdout as one JSON document, its
// numbers as written (1024000, not 1.024e+06).
func stdoutJSON(ts *testscript.TestScript) any {
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile("stdout")))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		ts.Fatalf("stdout is not one JSON document: %v", err)
	}
	if dec.More() {
		ts.Fatalf("stdout is more than one JSON document")
	}
	return doc
}

// capture REGEXP VAR sets VAR to the first submatch of REGEXP in the last
// command's stdout, for a path the lab printed (such as a kept database).
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: capture REGEXP VAR")
	}
	re, err := regexp.Compile(args[0])
	if err != nil {
		ts.Fatalf("capture: %v", err)
	}
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("capture: no match for %s in stdout", args[0])
	}
	ts.Setenv(args[1], m[1])
}

// edit FILE OLD NEW replaces the first OLD in FILE with NEW, as an
// instructor's (or a student's) hand would, and fails when OLD is not there.
func cmdEdit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: edit FILE OLD NEW")
	}
	path := ts.MkAbs(args[0])
	text := ts.ReadFile(args[0])
	if !strings.Contains(text, args[1]) {
		ts.Fatalf("edit: %q is not in %s", args[1], args[0])
	}
	if err := os.WriteFile(path, []byte(strings.Replace(text, args[1], args[2], 1)), 0o644); err != nil {
		ts.Fatalf("edit: %v", err)
	}
}

// copyas SPELLING FROM TO copies FROM to TO as an editor or a mail client
// might have: crlf (CRLF line ends), bom (a byte-order mark first), nonl
// (the final newline lost).
func cmdCopyAs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: copyas crlf|bom|nonl FROM TO")
	}
	text := ts.ReadFile(args[1])
	switch args[0] {
	case "crlf":
		text = strings.ReplaceAll(text, "\n", "\r\n")
	case "bom":
		text = "\uFEFF" + text
	case "nonl":
		text = strings.TrimSuffix(text, "\n")
	default:
		ts.Fatalf("copyas: unknown spelling %q", args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(text), 0o644))
}
