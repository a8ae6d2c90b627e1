package cli

// --step: after the run, step through its change log in the terminal, one
// event at a time (stepModel).

import (
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
		return usagef("--step and --json do not go together: --step is for a person at a terminal")
	}
	if !isTerminal(cmd.InOrStdin()) {
		return usagef("--step reads keys from a terminal, and standard input is not one")
	}
	return nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// stepThrough shows the run's events one at a time until the user quits.
func stepThrough(cmd *cobra.Command, out outcome) error {
	m := newStepModel(pageData(out.result, out.log), useColor(cmd.OutOrStdout()))
	p := tea.NewProgram(m, tea.WithInput(cmd.InOrStdin()), tea.WithOutput(cmd.OutOrStdout()), tea.WithAltScreen())
	if _, err := p.Run(); err != nil {
		return cannotRun(fmt.Errorf("--step: %w", err))
	}
	return nil
}
