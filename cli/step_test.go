package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"outboxlab/cli/cmdutil"
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
	return newStepModel(pageData(rep.Result(), env.Recorder.Log(), changelog.SpellingOf(rep.Body())), color)
}

// press types keys, each as the bytes a terminal sends for it ("n",
// "\x1b[C" for →), through the step view's own key reader.
func press(t *testing.T, m stepModel, keys ...string) stepModel {
	t.Helper()
	for _, k := range keys {
		names, _ := stepKeys([]byte(k), true)
		for _, name := range names {
			m, _ = m.press(name)
		}
	}
	return m
}

// The bytes terminals send for the keys the tests press.
const (
	keyRight = "\x1b[C"
	keyLeft  = "\x1b[D"
	keyHome  = "\x1b[H"
)

var eventHead = regexp.MustCompile(`(?m)^step (\d+) of (\d+) · (AFTER|BEFORE) · `)

func shownEvent(t *testing.T, view string) string {
	t.Helper()
	m := eventHead.FindStringSubmatch(view)
	if m == nil {
		if strings.HasPrefix(view, "step 1 of ") && strings.Contains(view, " · seeded") {
			return "0"
		}
		t.Fatalf("no event line in the view:\n%s", view)
	}
	step, _ := strconv.Atoi(m[1])
	return strconv.Itoa(step - 1) // step 1 is the seeded tables: step k+1 is event k
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
	m = press(t, m, "n", keyRight, "n")
	view := m.View()
	if got := shownEvent(t, view); got != "3" {
		t.Fatalf("after n → n: event %s, want 3", got)
	}
	for _, want := range []string{"OutboxMessages row 3: AttemptCount 1 → 2", // as the report spells them
		"OutboxMessages PAY-003 due 2026-01-16T09:00:00.601Z (Pending)", "no lease is held"} {
		if !strings.Contains(view, want) {
			t.Errorf("event 3's view lacks %q:\n%s", want, view)
		}
	}
	m = press(t, m, "p", keyLeft)
	if got := shownEvent(t, m.View()); got != "1" {
		t.Errorf("after p ←: event %s, want 1", got)
	}
	m = press(t, m, keyHome)
	var failures []string
	for range 5 {
		m = press(t, m, "f")
		failures = append(failures, shownEvent(t, m.View()))
	}
	if got := strings.Join(failures, " "); got != "1 3 5 6 7" {
		t.Errorf("f from the start goes to events %s, want 1 3 5 6 7", got)
	}
	m = press(t, m, keyHome, "c")
	view = m.View()
	if got := shownEvent(t, view); got != "5" || !strings.Contains(view, "Status Pending → DeadLettered") {
		t.Errorf("c from the start: event %s, want 5, PAY-003 dead-lettered:\n%s", got, view)
	}
	m = press(t, m, "c")
	if view := m.View(); shownEvent(t, view) != "5" || !strings.Contains(view, "no later change a check reads") {
		t.Errorf("c past the last: want event 5 kept and a line saying so:\n%s", view)
	}
	for _, k := range []string{"q", "\x1b", "\x03"} { // q, Esc, ctrl+c
		names, _ := stepKeys([]byte(k), true)
		if len(names) != 1 {
			t.Fatalf("%q reads as keys %q, want one", k, names)
		}
		if _, quit := m.press(names[0]); !quit {
			t.Errorf("%s does not quit", names[0])
		}
	}
	if _, quit := m.press("n"); quit {
		t.Errorf("n quits")
	}
}

// At 80 columns no line of the view is wider, nor taller than the window;
// without colour it has no escape code, with colour the new value of a
// changed cell is highlighted.
func TestStepModelFitsAndColours(t *testing.T) {
	for _, color := range []bool{false, true} {
		m := day16Step(t, color)
		m = press(t, m, "n")
		view := m.resize(80, 24).View()
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
	if run.code != cmdutil.ExitUsage || strings.Count(run.stderr, "\n") != 1 || run.stdout != "" ||
		!strings.Contains(run.stderr, "--step reads keys from a terminal") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line", run.code, run.stdout, run.stderr)
	}
}

// --step in a real terminal (tmux, 80×24, NO_COLOR): n twice shows event 2,
// its lines fit; ? lists the keys; the seeded screen, longer than the
// window, scrolls a page with PgDn and a line with ↓; q ends the program.
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
	waitFor("step 1 of 16 · seeded")
	tmux("send-keys", "-t", session, "n")
	waitFor("step 2 of 16")
	tmux("send-keys", "-t", session, "n")
	screen := waitFor("step 3 of 16 · AFTER")
	for _, l := range strings.Split(screen, "\n") {
		if report.Width(l) > 80 {
			t.Errorf("a line wider than 80 columns: %q", l)
		}
	}
	if !strings.Contains(screen, "nothing claimable until 09:00:00.200Z") || !strings.Contains(screen, "q quit") {
		t.Errorf("event 2's screen:\n%s", screen)
	}
	tmux("send-keys", "-t", session, "?")
	waitFor("this list (any key closes it)")
	tmux("send-keys", "-t", session, "g")
	screen = waitFor("Rows as seeded (AFTER):")
	if !strings.Contains(screen, "lines 1–21 of ") {
		t.Errorf("the seeded screen, longer than the window, does not say so:\n%s", screen)
	}
	tmux("send-keys", "-t", session, "NPage") // PgDn
	waitFor("lines 21–41 of ")
	tmux("send-keys", "-t", session, "Down")
	screen = waitFor("lines 22–42 of ")
	for _, l := range strings.Split(screen, "\n") {
		if report.Width(l) > 80 {
			t.Errorf("a line wider than 80 columns: %q", l)
		}
	}
	tmux("send-keys", "-t", session, "q")
	waitFor("EXITED 0")
}

// The bytes terminals send (xterm, VT220, the Linux console; a raw-mode
// Windows console sends the same) name the keys the view knows; a sequence
// cut short waits for its rest, and only at the end counts as what it is.
func TestStepKeysNamesTheBytes(t *testing.T) {
	for _, c := range []struct {
		in    string
		final bool
		keys  string // the names, joined by "|"
		rest  string
	}{
		{"nnq", false, "n|n|q", ""},
		{"\x1b[C\x1b[D\x1bOC\x1bOD", false, "right|left|right|left", ""},
		{"\x1b[H\x1b[1~\x1b[7~\x1bOH", false, "home|home|home|home", ""},
		{"\x1b[F\x1b[4~\x1b[8~", false, "end|end|end", ""},
		{" \r\n\x7f\x08\x03G", false, " |enter|enter|backspace|backspace|ctrl+c|G", ""},
		{"\x1b[1;5C", false, "", ""}, // ctrl+→: a sequence the view has no use for, read whole
		{"\x1b\x1b[C", false, "esc|right", ""},
		{"\x1bn", false, "alt+n", ""},
		{"é→", false, "é|→", ""},
		{"n\x1b", false, "n", "\x1b"},
		{"n\x1b[", false, "n", "\x1b["},
		{"\x1b[1", false, "", "\x1b[1"},
		{"\xc3", false, "", "\xc3"},
		{"n\x1b", true, "n|esc", ""},
		{"\x1b[1", true, "", ""},
	} {
		keys, rest := stepKeys([]byte(c.in), c.final)
		if got := strings.Join(keys, "|"); got != c.keys || string(rest) != c.rest {
			t.Errorf("stepKeys(%q, final %v) = %q, rest %q; want %q, rest %q", c.in, c.final, got, rest, c.keys, c.rest)
		}
	}
}

// frames is a screen that hands each write (one drawn view, or the switch
// to or from the alternate screen) to the test.
type frames chan string

func (f frames) Write(b []byte) (int, error) { f <- string(b); return len(b), nil }

func (f frames) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-f:
		return s
	case <-time.After(time.Minute):
		t.Fatal("the step view drew nothing for a minute")
		return ""
	}
}

// startStepTerminal runs Day 16 AFTER's step view on a pipe and frames,
// escWait long or short, and returns the keyboard, the sizes and the loop's
// result when it ends.
func startStepTerminal(t *testing.T, escWait time.Duration) (*io.PipeWriter, frames, chan<- windowSize, <-chan error) {
	t.Helper()
	in, keyboard := io.Pipe()
	t.Cleanup(func() { keyboard.Close() })
	screen, sizes, done := make(frames), make(chan windowSize), make(chan error, 1)
	st := stepTerminal{in: in, out: screen, sizes: sizes, escWait: escWait}
	m := day16Step(t, false)
	go func() { done <- st.run(context.Background(), m) }()
	if got := screen.next(t); got != altScreenOn {
		t.Fatalf("first write %q, want the alternate screen", got)
	}
	if got := screen.next(t); !strings.Contains(got, "step 1 of 16 · seeded") {
		t.Fatalf("first screen:\n%q", got)
	}
	return keyboard, screen, sizes, done
}

// The loop: a new size lays the screen out again, an arrow whose bytes
// come in two reads is one arrow (no Esc), q ends the loop and leaves the
// alternate screen.
func TestStepTerminalLoop(t *testing.T) {
	keyboard, screen, sizes, done := startStepTerminal(t, time.Hour)
	sizes <- windowSize{40, 12}
	narrow := screen.next(t)
	if !strings.Contains(narrow, "q quit") {
		t.Errorf("after resizing, the screen lacks its keys:\n%q", narrow)
	}
	for _, l := range strings.Split(narrow, "\r\n") {
		if w := report.Width(stripANSI(l)); w > 40 {
			t.Errorf("a line %d columns wide in a window of 40: %q", w, l)
		}
	}
	io.WriteString(keyboard, "n")
	if got := screen.next(t); !strings.Contains(got, "step 2 of 16") {
		t.Errorf("after n:\n%q", got)
	}
	io.WriteString(keyboard, "\x1b[")
	screen.next(t) // redrawn, the arrow not complete yet
	io.WriteString(keyboard, "C")
	if got := screen.next(t); !strings.Contains(got, "step 3 of 16") {
		t.Errorf("after an arrow in two reads:\n%q", got)
	}
	io.WriteString(keyboard, "q")
	if got := screen.next(t); got != altScreenOff {
		t.Errorf("after q: %q, want the screen restored", got)
	}
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

// A lone ESC is the Esc key once no more bytes follow: the loop ends. So
// does the end of the input (the terminal is gone).
func TestStepTerminalEscAndEnd(t *testing.T) {
	keyboard, screen, _, done := startStepTerminal(t, time.Millisecond)
	io.WriteString(keyboard, "\x1b")
	screen.next(t) // redrawn while the ESC waits for a rest that never comes
	if got := screen.next(t); got != altScreenOff {
		t.Errorf("after Esc: %q, want the screen restored", got)
	}
	if err := <-done; err != nil {
		t.Errorf("run after Esc: %v", err)
	}
	keyboard, screen, _, done = startStepTerminal(t, time.Hour)
	keyboard.Close()
	if got := screen.next(t); got != altScreenOff {
		t.Errorf("after the input ended: %q, want the screen restored", got)
	}
	if err := <-done; err != nil {
		t.Errorf("run after the input ended: %v", err)
	}
}

// The step view follows the width rule (issue 43): at 80 columns an event's
// line wrapped goes on under its text (column 26: past its stamp and its
// key), its words whole, the lines under "Changed" keep their indent; a
// wider window than 100 columns gets lines of at most 100. The old view
// wrapped every line at the margin and drew 200-column lines.
func TestStepViewFollowsTheWidth(t *testing.T) {
	m := press(t, day16Step(t, false), "n", "n", "n") // PAY-003's second attempt: a long line
	lines := strings.Split(m.resize(80, 40).View(), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[1], "  09:00:00.201Z  PAY-003  attempt 2/3  FAILED") {
		t.Fatalf("event 3 at 80 columns:\n%s", strings.Join(lines, "\n"))
	}
	under := strings.Repeat(" ", 26)
	if !strings.HasPrefix(lines[2], under) || lines[2][26] == ' ' {
		t.Errorf("the event's second line is not under its text (column 26):\n%s\n%s", lines[1], lines[2])
	}
	event := strings.Fields(strings.Join(lines[1:3], " ") + " " + lines[3])
	for _, w := range []string{"unavailable", "(503))", "NextAttempt"} {
		if !slices.Contains(event, w) {
			t.Errorf("%q is not a whole word of the event's lines (a word was broken):\n%s", w, strings.Join(lines[1:4], "\n"))
		}
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "outboxmessages") || strings.HasPrefix(l, "OutboxMessages") {
			t.Errorf("a changed row lost its indent: %q", l)
		}
	}
	for _, l := range strings.Split(m.resize(200, 40).View(), "\n") {
		if w := report.Width(l); w > report.MaxWidth {
			t.Errorf("a line %d columns wide in a window of 200: %q", w, l)
		}
	}
}

// allText scrolls m from its top to its bottom and returns every line of
// text it showed, in order, with how many windows it took.
func allText(t *testing.T, m stepModel) (lines []string, windows int) {
	t.Helper()
	m = press(t, m, "\x1b[5~", "\x1b[5~", "\x1b[5~") // PgUp to the top, whatever the scroll
	for i := 0; i < 200; i++ {
		view := strings.Split(m.View(), "\n")
		text := view[:len(view)-len(m.footer())]
		if i == 0 {
			lines = append(lines, text...)
		} else {
			lines = append(lines, text[len(text)-1])
		}
		windows = i + 1
		next := press(t, m, "j")
		if next.scroll == m.scroll {
			return lines, windows
		}
		m = next
	}
	t.Fatal("the view never stopped scrolling")
	return nil, 0
}

// The first screen shows the rows as seeded (Day 16's six Pending
// messages, no attempt yet, named as the report names them), longer than
// 24 lines: ↓ (j) scrolls it a line at a time to its last line and no
// further, PgDn a window less one line, and a line says where the window
// is; a new event is read from its top. ? lists every key, and any key
// closes the list.
func TestStepModelSeededRowsScrollAndKeys(t *testing.T) {
	m := day16Step(t, false).resize(80, 24)
	first := m.View()
	if !strings.Contains(first, "step 1 of 16 · seeded") || !strings.Contains(first, "lines 1–21 of ") {
		t.Fatalf("first screen:\n%s", first)
	}
	lines, windows := allText(t, m)
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "Rows as seeded (AFTER):") || !strings.Contains(text, "OutboxMessages · 6 rows") {
		t.Fatalf("the seeded screen lacks the seeded tables:\n%s", text)
	}
	for i := 1; i <= 6; i++ {
		if !strings.Contains(text, fmt.Sprintf("MessageKey PAY-00%d", i)) && !strings.Contains(text, fmt.Sprintf("MessageKey\n      PAY-00%d", i)) {
			t.Errorf("the seeded rows lack PAY-00%d", i)
		}
	}
	if n := strings.Count(text, "Status Pending ·"); n != 6 {
		t.Errorf("%d seeded rows Pending, want 6", n)
	}
	if n := strings.Count(text, "AttemptCount 0"); n != 6 {
		t.Errorf("%d seeded rows with AttemptCount 0, want 6", n)
	}
	if windows != len(lines)-21+1 {
		t.Errorf("%d lines took %d presses of j, want one per line past the first window", len(lines), windows)
	}
	paged := press(t, m, "\x1b[6~")
	if paged.scroll != 20 || !strings.Contains(paged.View(), "lines 21–41 of ") {
		t.Errorf("PgDn scrolled to %d, want 20:\n%s", paged.scroll, paged.View())
	}
	if next := press(t, paged, "n"); next.scroll != 0 || shownEvent(t, next.View()) != "1" {
		t.Errorf("n after scrolling: event %s at line %d, want event 1 from its top", shownEvent(t, next.View()), next.scroll)
	}
	help := press(t, m, "?").View()
	for _, k := range stepKeysHelp {
		if !strings.Contains(help, k[1]) {
			t.Errorf("? does not list %q:\n%s", k[1], help)
		}
	}
	if closed := press(t, m, "?", "x"); closed.help || shownEvent(t, closed.View()) != "0" {
		t.Errorf("a key after ? leaves the list open or moves: help %v", closed.help)
	}
	if _, quit := press(t, m, "?").press("q"); !quit {
		t.Errorf("q does not quit from the list of keys")
	}
}
