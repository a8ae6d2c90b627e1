package cli

// --step: after the run, step through its change log in the terminal, one
// event at a time (stepModel), on a small loop of our own: raw mode, the
// alternate screen, keys read as they come. It asks the terminal nothing
// (no colour, cursor or mode query), so a terminal that never answers, an
// editor's shell, a CI log, a serial console, loses no key and no time.

import (
	"context"
	"fmt"
	"io"
	"os"
	"outboxlab/cli/cmdutil"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

func bindStep(fs *pflag.FlagSet, c *commonOptions) {
	fs.BoolVar(&c.Step, "step", false,
		"after the run, step through its events in the terminal: the cells each changed, the leases, what is next due")
}

// checkStep refuses --step where it cannot work: it reads keys from a
// terminal, and its screen is no JSON document.
func checkStep(cmd *cobra.Command, c commonOptions) error {
	if !c.Step {
		return nil
	}
	if c.JSON {
		return cmdutil.Usagef("--step and --json do not go together: --step is for a person at a terminal")
	}
	if !isTerminal(cmd.InOrStdin()) {
		return cmdutil.Usagef("--step reads keys from a terminal, and standard input is not one")
	}
	return nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// The escape sequences the step view writes: no query among them.
const (
	altScreenOn  = "\x1b[?1049h\x1b[2J\x1b[?25l" // the alternate screen, cleared, cursor hidden
	altScreenOff = "\x1b[?25h\x1b[?1049l"        // cursor shown, the screen as it was
)

// stepThrough shows the run's events one at a time until the user quits.
func stepThrough(cmd *cobra.Command, out outcome) error {
	in, ok := cmd.InOrStdin().(*os.File) // checkStep made sure: a terminal
	if !ok {
		return cmdutil.CannotRun(fmt.Errorf("--step: standard input is not a terminal"))
	}
	w := cmd.OutOrStdout()
	m := newStepModel(pageData(out.result, out.log, out.spelling), cmdutil.UseColor(w))
	sized := in // the window's size: the output's terminal, else the input's
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		sized = f
	}
	if width, height, err := term.GetSize(int(sized.Fd())); err == nil {
		m = m.resize(width, height)
	}
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return cmdutil.CannotRun(fmt.Errorf("--step: put the terminal in raw mode: %w", err))
	}
	defer term.Restore(int(in.Fd()), state)
	restoreOutput := enableEscapes(w)
	defer restoreOutput()
	sizes, stopSizes := watchSize(sized)
	defer stopSizes()
	st := stepTerminal{in: in, out: w, sizes: sizes, escWait: escWait}
	if err := st.run(cmd.Context(), m); err != nil {
		return cmdutil.CannotRun(fmt.Errorf("--step: %w", err))
	}
	return nil
}

// windowSize is a terminal's size in columns and lines.
type windowSize struct{ width, height int }

// escWait is how long a lone ESC waits for the rest of an escape sequence
// (an arrow key's bytes split by a slow line) before it counts as Esc.
const escWait = 50 * time.Millisecond

// stepTerminal is where the step view runs: keys read from in (a terminal
// in raw mode), the screen drawn on out, the window's new sizes from sizes.
type stepTerminal struct {
	in      io.Reader
	out     io.Writer
	sizes   <-chan windowSize
	escWait time.Duration // how long a lone ESC waits for the rest of a sequence
}

// run draws m and applies the keys and sizes as they come until a key
// quits, the input ends or ctx is done; the screen is then left as it was.
func (st stepTerminal) run(ctx context.Context, m stepModel) (err error) {
	stop := make(chan struct{})
	defer close(stop)
	input := readInput(st.in, stop)
	out := st.out
	if _, err := io.WriteString(out, altScreenOn); err != nil {
		return err
	}
	defer func() {
		if _, werr := io.WriteString(out, altScreenOff); err == nil {
			err = werr
		}
	}()
	var pending []byte        // the start of an escape sequence still arriving
	var wait <-chan time.Time // runs while pending waits for its rest
	for {
		if err := drawStep(out, m); err != nil {
			return err
		}
		final := false
		select {
		case b, ok := <-input:
			if !ok {
				return nil // the terminal is gone: nothing more to show
			}
			pending = append(pending, b...)
		case <-wait:
			final = true
		case s := <-st.sizes:
			m = m.resize(s.width, s.height)
		case <-ctx.Done():
			return nil
		}
		keys, rest := stepKeys(pending, final)
		pending, wait = rest, nil
		if len(rest) > 0 {
			wait = time.After(st.escWait)
		}
		for _, k := range keys {
			var quit bool
			if m, quit = m.press(k); quit {
				return nil
			}
		}
	}
}

// readInput passes on what in yields, read by read, until in ends or stop
// is closed. A read already waiting for a key is left to the process's end.
func readInput(in io.Reader, stop <-chan struct{}) <-chan []byte {
	ch := make(chan []byte)
	go func() {
		defer close(ch)
		buf := make([]byte, 256)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				select {
				case ch <- append([]byte(nil), buf[:n]...):
				case <-stop:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// drawStep redraws the whole view from the top left corner: each line
// erased then written, and what is below the last line erased. The view
// leaves a line to spare, so the line break after its last line never
// scrolls the screen.
func drawStep(out io.Writer, m stepModel) error {
	var b strings.Builder
	b.WriteString("\x1b[H")
	lines := strings.Split(m.View(), "\n")
	for i, l := range lines {
		b.WriteString("\x1b[2K" + l)
		if i < len(lines)-1 || len(lines) < m.height {
			b.WriteString("\r\n")
		}
	}
	if len(lines) < m.height {
		b.WriteString("\x1b[J")
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// stepKeys names the keys in b, the bytes a terminal in raw mode sent, as
// stepModel.press knows them: "n", " ", "enter", "backspace", "esc",
// "ctrl+c", "right", "home", … (a key it has no use for gets a name too,
// or none, and does nothing). An escape sequence or a character cut short
// at b's end is returned as rest, to wait for its other bytes, unless
// final: then a lone ESC is the Esc key and a cut sequence is dropped.
func stepKeys(b []byte, final bool) (keys []string, rest []byte) {
	for len(b) > 0 {
		key, n, cut := nextKey(b)
		if cut && !final {
			return keys, b
		}
		if key != "" {
			keys = append(keys, key)
		}
		b = b[n:]
	}
	return keys, nil
}

// csiKeys names the escape sequences of the keys the view uses, after
// ESC [ or ESC O (xterm, VT220 and the Linux console send either).
var csiKeys = map[string]string{
	"A": "up", "B": "down", "C": "right", "D": "left",
	"H": "home", "1~": "home", "7~": "home",
	"F": "end", "4~": "end", "8~": "end",
	"5~": "pgup", "6~": "pgdown",
}

// nextKey names the first key in b and how many bytes it took; cut says b
// ends before the key does.
func nextKey(b []byte) (key string, n int, cut bool) {
	switch c := b[0]; {
	case c == 0x1b:
		return escapeKey(b)
	case c == '\r' || c == '\n':
		return "enter", 1, false
	case c == 0x7f || c == 0x08:
		return "backspace", 1, false
	case c == '\t':
		return "tab", 1, false
	case c < 0x20:
		return "ctrl+" + strings.ToLower(string(rune('@'+c))), 1, false
	}
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError && size <= 1 {
		return "", 1, !utf8.FullRune(b)
	}
	return string(r), size, false
}

// escapeKey names the key whose bytes start with ESC: Esc alone, a CSI or
// SS3 sequence (ESC [ 1 ~, ESC O C), or Alt with a key (ESC n).
func escapeKey(b []byte) (key string, n int, cut bool) {
	if len(b) == 1 {
		return "esc", 1, true
	}
	if b[1] != '[' && b[1] != 'O' {
		if b[1] == 0x1b {
			return "esc", 1, false
		}
		key, n, cut = nextKey(b[1:])
		if key != "" {
			key = "alt+" + key
		}
		return key, n + 1, cut
	}
	// Parameters and intermediates (0x20-0x3f), then one final byte.
	for i := 2; i < len(b); i++ {
		if b[i] >= 0x40 && b[i] <= 0x7e {
			return csiKeys[string(b[2:i+1])], i + 1, false
		}
		if b[i] < 0x20 || b[i] > 0x3f {
			return "", i, false // not a sequence after all: drop what came so far
		}
	}
	return "", len(b), true
}
