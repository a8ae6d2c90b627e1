package cli

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"outboxlab/core/changelog"
	"outboxlab/core/child"
	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// day16Step is the --step model of a Day 16 AFTER run at the defaults.
func day16Step(t *testing.T, color bool) stepModel {
	t.Helper()
	env := scenarios.NewEnv(t.TempDir())
	env.Recorder = changelog.New(0)
	defer env.Recorder.Close()
	rep := scenariotest.RunIn(t, env, session16AfterName)
	return newStepModel(pageData(rep.Result(), env.Recorder.Log()), color)
}

func press(t *testing.T, m stepModel, keys ...tea.KeyMsg) stepModel {
	t.Helper()
	for _, k := range keys {
		next, _ := m.Update(k)
		m = next.(stepModel)
	}
	return m
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

var eventHead = regexp.MustCompile(`(?m)^event (\d+) of (\d+) · (AFTER|BEFORE) · `)

func shownEvent(t *testing.T, view string) string {
	t.Helper()
	m := eventHead.FindStringSubmatch(view)
	if m == nil {
		if strings.HasPrefix(view, "seeded") {
			return "0"
		}
		t.Fatalf("no event line in the view:\n%s", view)
	}
	return m[1]
}

// The keys step through Day 16 AFTER's events as the database recorded
// them: next and previous (letters and arrows), the next failure (events
// 1, 3 and 5 are PAY-003's failed attempts, 6 the BEFORE's first), the next
// change a check reads (PAY-003's dead-lettering, event 5, decides them
// all), and quit.
func TestStepModelKeys(t *testing.T) {
	m := day16Step(t, false)
	if got := shownEvent(t, m.View()); got != "0" {
		t.Fatalf("first view shows event %s, want the seeded tables", got)
	}
	m = press(t, m, runes("n"), tea.KeyMsg{Type: tea.KeyRight}, runes("n"))
	view := m.View()
	if got := shownEvent(t, view); got != "3" {
		t.Fatalf("after n → n: event %s, want 3", got)
	}
	for _, want := range []string{"outboxmessages row 3: attemptcount 1 → 2",
		"outboxmessages PAY-003 due 2026-01-16T09:00:00.601Z (Pending)", "no lease is held"} {
		if !strings.Contains(view, want) {
			t.Errorf("event 3's view lacks %q:\n%s", want, view)
		}
	}
	m = press(t, m, runes("p"), tea.KeyMsg{Type: tea.KeyLeft})
	if got := shownEvent(t, m.View()); got != "1" {
		t.Errorf("after p ←: event %s, want 1", got)
	}
	m = press(t, m, tea.KeyMsg{Type: tea.KeyHome})
	var failures []string
	for range 5 {
		m = press(t, m, runes("f"))
		failures = append(failures, shownEvent(t, m.View()))
	}
	if got := strings.Join(failures, " "); got != "1 3 5 6 7" {
		t.Errorf("f from the start goes to events %s, want 1 3 5 6 7", got)
	}
	m = press(t, m, tea.KeyMsg{Type: tea.KeyHome}, runes("c"))
	view = m.View()
	if got := shownEvent(t, view); got != "5" || !strings.Contains(view, "status Pending → DeadLettered") {
		t.Errorf("c from the start: event %s, want 5, PAY-003 dead-lettered:\n%s", got, view)
	}
	m = press(t, m, runes("c"))
	if view := m.View(); shownEvent(t, view) != "5" || !strings.Contains(view, "no later change a check reads") {
		t.Errorf("c past the last: want event 5 kept and a line saying so:\n%s", view)
	}
	if _, cmd := m.Update(runes("q")); cmd == nil || cmd() != tea.Quit() {
		t.Errorf("q does not quit")
	}
}

// At 80 columns no line of the view is wider, nor taller than the window;
// without colour it has no escape code, with colour the new value of a
// changed cell is highlighted.
func TestStepModelFitsAndColours(t *testing.T) {
	for _, color := range []bool{false, true} {
		m := day16Step(t, color)
		m = press(t, m, runes("n"))
		m2, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		view := m2.(stepModel).View()
		lines := strings.Split(view, "\n")
		if len(lines) > 23 {
			t.Errorf("colour %v: %d lines in a 24-line window", color, len(lines))
		}
		for _, l := range lines {
			if w := report.Width(stripANSI(l)); w > 80 {
				t.Errorf("colour %v: a line %d columns wide: %q", color, w, l)
			}
		}
		if has := strings.Contains(view, "\x1b["); has != color {
			t.Errorf("colour %v: escape codes in the view: %v", color, has)
		}
		if color && !strings.Contains(view, "\x1b[7mProcessed") {
			t.Errorf("with colour, the new Status of row 1 is not highlighted:\n%q", view)
		}
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")

func stripANSI(s string) string { return ansi.ReplaceAllString(s, "") }

// --step without a terminal on standard input refuses in one line, exit 2,
// before anything runs.
func TestStepNeedsATerminal(t *testing.T) {
	run := runLabProcess(t, time.Minute, false, session16AfterName, "--step", "--no-report")
	if run.code != ExitUsage || strings.Count(run.stderr, "\n") != 1 || run.stdout != "" ||
		!strings.Contains(run.stderr, "--step reads keys from a terminal") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line", run.code, run.stdout, run.stderr)
	}
}

// --step in a real terminal (tmux, 80×24, NO_COLOR): n twice shows event 2,
// its lines fit, and q ends the program.
func TestStepInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no tmux, and CI=true")
		}
		t.Skip("no tmux")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	session := fmt.Sprintf("outboxlab-step-%d", os.Getpid())
	cmd := fmt.Sprintf("cd %s && env %s=cli-main-for-tests NO_COLOR=1 %s %s --step --no-report; echo EXITED $?; sleep 20",
		t.TempDir(), child.EnvVar, exe, session16AfterName)
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", cmd)
	defer exec.Command("tmux", "kill-session", "-t", session).Run()
	waitFor := func(want string) string {
		var screen string
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if screen = tmux("capture-pane", "-t", session, "-p"); strings.Contains(screen, want) {
				return screen
			}
		}
		t.Fatalf("the screen never showed %q:\n%s", want, screen)
		return ""
	}
	waitFor("seeded · before event 1 of 15")
	tmux("send-keys", "-t", session, "n")
	waitFor("event 1 of 15")
	tmux("send-keys", "-t", session, "n")
	screen := waitFor("event 2 of 15 · AFTER")
	for _, l := range strings.Split(screen, "\n") {
		if report.Width(l) > 80 {
			t.Errorf("a line wider than 80 columns: %q", l)
		}
	}
	if !strings.Contains(screen, "nothing claimable until 09:00:00.200Z") || !strings.Contains(screen, "q quit") {
		t.Errorf("event 2's screen:\n%s", screen)
	}
	tmux("send-keys", "-t", session, "q")
	waitFor("EXITED 0")
}
