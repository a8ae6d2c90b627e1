package grade

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"outboxlab/core/pgdb"
	"outboxlab/core/proc"
	"outboxlab/core/proctree"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// failed returns the names of rep's failing checks.
func failed(rep *report.Report) []string {
	var out []string
	for _, c := range rep.Result().Checks {
		if !c.Passed {
			out = append(out, c.Name)
		}
	}
	return out
}

// failsWith requires that rep failed and that a failing check's name holds want.
func failsWith(t *testing.T, rep *report.Report, want string) {
	t.Helper()
	if rep.Passed() {
		t.Fatalf("the run passed; want a failing %q check", want)
	}
	for _, name := range failed(rep) {
		if strings.Contains(name, want) {
			return
		}
	}
	t.Errorf("failing checks %q, none names %q", failed(rep), want)
}

// TestDay16SameBodyOnEveryRerun grades the test worker ten times with the
// same seed: the bodies must be byte-identical, and hold no token, pid,
// temporary path or wall time.
func TestDay16SameBodyOnEveryRerun(t *testing.T) {
	first := sameOnReruns(t, "session-16", 10)
	if !first.Passed() {
		t.Fatalf("failed: %q", failed(first))
	}
	body := first.Body()
	for _, leak := range []string{os.TempDir(), okWorker, "127.0.0.1", "Bearer", strconv.Itoa(os.Getpid())} {
		if strings.Contains(body, leak) {
			t.Errorf("the body holds %q", leak)
		}
	}
	for _, line := range strings.Split(body, "\n") {
		if w := report.Width(line); w > report.MaxWidth {
			t.Errorf("line of %d columns: %s", w, line)
		}
	}
	other, _ := gradeRun(t, "session-16", 7, okWorker)
	if other.Body() == body {
		t.Error("--seed 7 drew the same variations as the default seed")
	}
}

// TestSeveralWorkersSameBodyOnEveryRerun: with two and three real worker
// processes, a kill and a stall (Day 15), with kills and restarts
// (poison-counter), with a run before the graded one (Day 17), on every Day
// but Day 16 (above), every rerun gives the same body.
func TestSeveralWorkersSameBodyOnEveryRerun(t *testing.T) {
	for _, d := range Days() {
		if d.ID == "session-16" {
			continue
		}
		day := d.ID
		t.Run(day, func(t *testing.T) {
			if rep := sameOnReruns(t, day, 5); !rep.Passed() {
				t.Fatalf("failed: %q", failed(rep))
			}
		})
	}
}

// sameOnReruns grades the test worker n times and requires identical bodies.
func sameOnReruns(t *testing.T, day string, n int) *report.Report {
	t.Helper()
	first, _ := gradeRun(t, day, DefaultSeed, passingWorker(day))
	for i := 2; i <= n; i++ {
		rep, _ := gradeRun(t, day, DefaultSeed, passingWorker(day))
		if rep.Body() != first.Body() {
			t.Fatalf("rerun %d differs from the first:\n%s", i, firstDifference(first.Body(), rep.Body()))
		}
	}
	return first
}

func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "one body is longer"
}

// TestDay16WrongWorkersFail runs the test worker with one mistake each; the
// check that names the mistake must fail.
func TestDay16WrongWorkersFail(t *testing.T) {
	for bug, check := range map[string]string{
		"hold-transaction": "protocol: no database transaction open across a lab call",
		"no-backoff":       "every retry waited for its NextAttemptUtc",
		"count-on-failure": "attempts counted at claim time",
		"wall-clock":       "protocol: every timestamp written is the lab's clock",
		"bad-token":        "protocol: every call well-formed and authorised",
		"drop-trigger":     "protocol: Lab tables, triggers and the Day's tables intact",
		"delete-row":       "no row deleted, inserted or duplicated",
	} {
		t.Run(bug, func(t *testing.T) {
			t.Setenv("OK16_BUG", bug)
			rep, _ := gradeRun(t, "session-16", DefaultSeed, okWorker)
			failsWith(t, rep, check)
		})
	}
}

// TestBadWorkersAreGraded: a worker that exits at once, or never calls the
// lab, fails its checks; the lab does not wait for it: the one that never
// calls is killed by the start budget, which the timeline says (its sleep
// would have ended the run too, 30 s later, as an exit).
func TestBadWorkersAreGraded(t *testing.T) {
	for name, tc := range map[string]struct {
		cmd   []string
		start time.Duration // the start budget: a long one but for the worker it judges
		ended string        // what the timeline says of the worker
	}{
		"exits at once":    {[]string{"sh", "-c", "exit 0"}, testStartBudget, "without calling done"},
		"never calls":      {[]string{"sh", "-c", "sleep 30"}, 300 * time.Millisecond, "killed: over the turn budget (its start (no hello))"},
		"not a lab client": {[]string{"sh", "-c", "echo hello from a worker >&2; exit 4"}, testStartBudget, "without calling done"},
	} {
		t.Run(name, func(t *testing.T) {
			rep, stderr := gradeRunBudget(t, "session-16", 300*time.Millisecond, tc.start, tc.cmd...)
			failsWith(t, rep, "protocol: done and exit 0")
			timeline := regexp.MustCompile(`(?m)^  \d\d:\d\d:\d\d\.\d{3}Z  worker-1  .*` + regexp.QuoteMeta(tc.ended))
			if n := len(timeline.FindAllString(rep.Body(), -1)); n != 1+DefaultVariations {
				t.Errorf("%d timelines say %q, want every variation's:\n%s", n, tc.ended, rep.Body())
			}
			if name == "not a lab client" && !strings.Contains(stderr, "hello from a worker") {
				t.Errorf("the worker's stderr is not shown on the terminal:\n%s", stderr)
			}
			if strings.Contains(rep.Body(), "hello from a worker") {
				t.Error("the worker's stderr is in the report body")
			}
		})
	}
}

// A failing worker's output reaches the terminal disarmed: its escape
// sequences (clear the screen, set the title, write the clipboard) spelled
// out, and the token the lab gave it replaced; never in the report.
func TestWorkerOutputIsShownSafely(t *testing.T) {
	hostile := `printf 'clear\033[2J title\033]0;pwned\007 clip\033]52;c;ZXZpbA==\007\n' >&2
		printf 'token=%s\n' "$OUTBOXLAB_TOKEN" >&2; echo "$OUTBOXLAB_TOKEN" > "$TOKEN_OUT"; exit 4`
	tokens := filepath.Join(t.TempDir(), "token")
	t.Setenv("TOKEN_OUT", tokens)
	rep, stderr := gradeRunBudget(t, "session-16", testStartBudget, testStartBudget, "sh", "-c", hostile)
	failsWith(t, rep, "protocol: done and exit 0")
	token, err := os.ReadFile(tokens)
	if err != nil || len(strings.TrimSpace(string(token))) < 8 {
		t.Fatalf("the worker wrote no token (%q, %v): the test proves nothing", token, err)
	}
	if strings.ContainsAny(stderr, "\x1b\x07") {
		t.Errorf("an escape sequence reached the terminal raw:\n%q", stderr)
	}
	if !strings.Contains(stderr, `clear\x1b[2J title\x1b]0;pwned\x07 clip\x1b]52;c;ZXZpbA==\x07`) {
		t.Errorf("the worker's output is not shown, spelled out:\n%s", stderr)
	}
	if strings.Contains(stderr, strings.TrimSpace(string(token))) || !strings.Contains(stderr, "token=xxxxx") {
		t.Errorf("the token is not replaced on the terminal:\n%s", stderr)
	}
	if strings.Contains(rep.Body(), "pwned") || strings.Contains(rep.Body(), "token=") {
		t.Error("the worker's output is in the report body")
	}
}

// TestKillLeavesNoSurvivor: workers that start a grandchild and hang, as a
// shell and as a Go program; the lab kills each whole process group.
func TestKillLeavesNoSurvivor(t *testing.T) {
	hang := filepath.Join(filepath.Dir(okWorker), "hang")
	build(t, hang, "./testdata/hang")
	pids := filepath.Join(t.TempDir(), "pids")
	t.Setenv("HANG_PIDS", pids)
	// Both write their pids before their hello, and have the tests' start
	// budget to say it: on a loaded machine a shell can take longer than the
	// 300 ms turn budget to fork its grandchild, and go run to start the
	// program it builds. The hang after hello is what the turn budget judges.
	shell := `sleep 1000 & echo $! >> "$HANG_PIDS"; echo $$ >> "$HANG_PIDS";
		curl -s -X POST -H "Authorization: Bearer $OUTBOXLAB_TOKEN" "$OUTBOXLAB_LAB_URL/v1/hello" >/dev/null 2>&1; wait`
	// A grandchild that leaves the group and the session (setsid) from a
	// subshell that exits at once: a double fork. It writes into the run's
	// folder for as long as it lives.
	escape := `( setsid sh -c 'while :; do touch "$(dirname "$OUTBOXLAB_DATABASE")/late"; sleep 0.01; done' & echo $! >> "$HANG_PIDS" );
		dirname "$OUTBOXLAB_DATABASE" >> "$HANG_DIRS"; echo $$ >> "$HANG_PIDS";
		curl -s -X POST -H "Authorization: Bearer $OUTBOXLAB_TOKEN" "$OUTBOXLAB_LAB_URL/v1/hello" >/dev/null 2>&1; sleep 1000`
	dirs := filepath.Join(t.TempDir(), "dirs")
	t.Setenv("HANG_DIRS", dirs)
	for name, cmd := range map[string][]string{"go": {hang}, "go run": {"go", "run", "./testdata/hang"}, "sh -c": {"sh", "-c", shell},
		"setsid": {"sh", "-c", escape}} {
		t.Run(name, func(t *testing.T) {
			if name == "setsid" && !proctree.Contains() {
				t.Skip("this system lets the lab make no cgroup: a process that calls setsid leaves the tree")
			}
			os.Remove(pids)
			rep, _ := gradeRunBudget(t, "session-16", 300*time.Millisecond, testStartBudget, cmd...)
			failsWith(t, rep, "protocol: done and exit 0")
			raw, err := os.ReadFile(pids)
			if err != nil {
				t.Fatalf("the worker wrote no pids: %v", err)
			}
			n := 0
			for _, f := range strings.Fields(string(raw)) {
				pid, _ := strconv.Atoi(f)
				n++
				if proc.Running(pid) {
					t.Errorf("process %d survived the lab", pid)
				}
			}
			if n < 2*(1+DefaultVariations) {
				t.Errorf("%d pids recorded, want 2 per variation", n)
			}
			if name == "setsid" {
				nothingWrittenAfter(t, dirs)
			}
		})
	}
}

// nothingWrittenAfter fails if the file "late", which an escaped grandchild
// touches every 10 ms while it lives, changes in a run folder the file dirs
// lists after grade returned.
func nothingWrittenAfter(t *testing.T, dirs string) {
	t.Helper()
	raw, _ := os.ReadFile(dirs)
	for _, dir := range strings.Fields(string(raw)) {
		late := filepath.Join(dir, "late")
		before, err := os.Stat(late)
		if err != nil {
			t.Fatalf("the escaped grandchild never wrote into the run's folder: %v", err)
		}
		time.Sleep(100 * time.Millisecond) // ten of its turns, were it alive
		if after, err := os.Stat(late); err != nil || !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("%s was written after grade returned", late)
		}
	}
}

// TestOnPostgres grades the test worker on PostgreSQL, Day 16 and the Days
// that kill workers (whose backends the lab must see gone before anyone runs
// again): each passes with the same body as on SQLite, and leaves no schema.
func TestOnPostgres(t *testing.T) {
	url := postgresURL(t)
	for _, d := range Days() {
		day := d.ID
		t.Run(day, func(t *testing.T) {
			sqlite, _ := gradeRun(t, day, DefaultSeed, passingWorker(day))
			ctx := t.Context()
			env, err := scenarios.NewPostgresEnv(ctx, t.TempDir(), pgServer.Database(), "grade-"+day)
			if err != nil {
				t.Fatal(err)
			}
			o := &Options{Day: Lookup(day), Seed: DefaultSeed, Variations: DefaultVariations,
				TurnBudget: testTurnBudget, StartBudget: testStartBudget, Command: []string{passingWorker(day)}}
			rep, err := o.Run(ctx, env)
			schemas := env.Schemas()
			if _, cerr := env.Close(ctx, false); cerr != nil {
				t.Error(cerr)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Passed() {
				t.Fatalf("failed on PostgreSQL: %q\n%s", failed(rep), rep.Body())
			}
			if rep.Body() != sqlite.Body() {
				t.Errorf("the body differs from SQLite's:\n%s", firstDifference(sqlite.Body(), rep.Body()))
			}
			db, err := pgdb.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, r := range schemas {
				var n int
				db.QueryRowContext(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, r.Schema).Scan(&n)
				if n != 0 {
					t.Errorf("schema %s survived the run", r.Schema)
				}
			}
		})
	}
}

// TestHeldTransactionOnPostgres: on PostgreSQL the lab finds a worker's
// session idle in transaction at its call.
func TestHeldTransactionOnPostgres(t *testing.T) {
	t.Setenv("OK16_BUG", "hold-transaction")
	failsWith(t, gradeCourseRunOnPostgres(t), "protocol: no database transaction open across a lab call")
}

// gradeCourseRunOnPostgres grades ok16 (as the test's environment makes
// it) on Day 16's course run alone, on a schema of the test's PostgreSQL
// server.
func gradeCourseRunOnPostgres(t *testing.T) *report.Report {
	t.Helper()
	postgresURL(t) // starts pgServer
	ctx := t.Context()
	env, err := scenarios.NewPostgresEnv(ctx, t.TempDir(), pgServer.Database(), "grade-session-16")
	if err != nil {
		t.Fatal(err)
	}
	o := &Options{Day: Lookup("session-16"), Seed: DefaultSeed, Variations: 0,
		TurnBudget: testTurnBudget, StartBudget: testStartBudget, Command: []string{okWorker}}
	rep, err := o.Run(ctx, env)
	if _, cerr := env.Close(ctx, false); cerr != nil {
		t.Error(cerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
