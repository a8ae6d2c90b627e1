//go:build linux

package cli

import (
	"outboxlab/cli/cmdutil"
	"strings"
	"testing"
)

// No command asks the terminal anything (the contract: "No command queries
// the terminal except the step view; a terminal that never answers costs no
// time"). Each runs on a pseudo-terminal that never answers, and the bytes
// it wrote there hold no query: a lab that asked would have waited for an
// answer (bubbletea v1 asked at package init, OSC 11 and DSR 6, and waited
// 5 s for every command). The time each took is logged, not judged.
func TestNoCommandQueriesTheTerminal(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--version"}, 0, "outboxlab version"},
		{[]string{"list"}, 0, session16AfterName},
		{[]string{"help"}, 0, "Usage:"},
		{[]string{session16AfterName, "--no-report"}, 0, "VERDICT: "},
		{[]string{"retry-with-dead-letter", "--dead-letter=false", "--no-report"}, cmdutil.ExitChecksFailed, "FAIL"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			term := startSilent(t, c.args...)
			code, written, took := term.wait()
			t.Logf("took %v on a terminal that never answers", took)
			if q := queries(written); len(q) > 0 {
				t.Errorf("the lab queried the terminal: %s", strings.Join(q, ", "))
			}
			if code != c.code || !strings.Contains(written, c.want) {
				t.Errorf("exit %d, want %d; output contains %q: %v\n%q", code, c.code, c.want,
					strings.Contains(written, c.want), tail(written))
			}
		})
	}
}

// --step on a terminal that never answers: keys typed while the scenario
// still runs are not lost (n n shows event 2, step 3), an arrow moves on, and q
// quits, exit 0, the screen restored. The step view asks the terminal
// nothing either.
func TestStepKeysOnASilentTerminal(t *testing.T) {
	term := startSilent(t, session16AfterName, "--step", "--no-report")
	term.typeKeys("nn") // typed ahead: the view is not up yet
	term.waitFor("step 3 of 16 · AFTER")
	term.typeKeys("\x1b[C") // →
	term.waitFor("step 4 of 16 · AFTER")
	term.typeKeys("q")
	code, written, took := term.wait()
	t.Logf("took %v", took)
	if code != 0 {
		t.Errorf("exit %d after q, want 0:\n%q", code, tail(written))
	}
	if q := queries(written); len(q) > 0 {
		t.Errorf("the step view queried the terminal: %s", strings.Join(q, ", "))
	}
	shown := strings.LastIndex(written, "step 4 of 16")
	if left := strings.LastIndex(written, "\x1b[?1049l"); left < shown {
		t.Errorf("q did not leave the alternate screen after event 3:\n%q", tail(written))
	}
}

// The query pattern catches what terminal libraries ask (bubbletea v1 at
// package init: OSC 11 and DSR 6; bubbletea v2 at program start: DECRQM
// for modes 2026 and 2027 and the kitty keyboard query; termenv's OSC 10;
// DA1, DA2, XTVERSION, XTGETTCAP) and lets the sequences the lab writes,
// colours, the alternate screen and drawing, through.
func TestTerminalQueryPattern(t *testing.T) {
	asks := []string{"\x1b]11;?\x1b\\", "\x1b[6n", "\x1b]10;?\a", "\x1b]4;1;?\a", "\x1b[5n", "\x1b[?6n",
		"\x1b[?2026$p", "\x1b[?2027$p", "\x1b[?u", "\x1b[c", "\x1b[0c", "\x1b[>c", "\x1b[>0q",
		"\x1bP+q544e\x1b\\", "\x1b[18t"}
	for _, q := range asks {
		if !terminalQuery.MatchString("text" + q + "text") {
			t.Errorf("%q is a query the pattern misses", q)
		}
	}
	says := []string{cmdutil.AnsiBold, cmdutil.AnsiReset, cmdutil.AnsiReverse, cmdutil.AnsiItalic, cmdutil.AnsiRed, altScreenOn, altScreenOff,
		"\x1b[H", "\x1b[2K", "\x1b[J", "\x1b[K", "\x1b[?2004h", "\x1b]8;;https://x\x1b\\", "\x1b[1;5C"}
	for _, s := range says {
		if terminalQuery.MatchString("text" + s + "text") {
			t.Errorf("%q is no query, but the pattern takes it for one", s)
		}
	}
}
