package cmdutil

// The commands the terminal shows start as the user started the lab ("go run
// .", "./outboxlab"; see internal/invocation), so that each runs as printed;
// report files, help sources and messages write them with the lab's name,
// outboxlab, and the terminal substitutes it (report.Commands).

import (
	"strings"

	"github.com/spf13/cobra"

	"outboxlab/core/report"
	"outboxlab/internal/invocation"
)

// InvocationAnnotation holds, on the root command, how the user started the
// lab (RunAs): each run of the lab builds its own command tree (newRoot), so
// it is that run's alone.
const InvocationAnnotation = "outboxlab-invocation"

// invokedAs is how the user started the lab whose command c is, as shell
// text; the lab's name when nobody said (tests, testscript).
func invokedAs(c *cobra.Command) string {
	if lab := c.Root().Annotations[InvocationAnnotation]; lab != "" {
		return lab
	}
	return invocation.Name
}

// Printed is text as the terminal shows it: each of the lab's commands in it
// started as the user started the lab. For text laid out already, or on one
// line (a message); text still to lay out takes forLayout.
func Printed(c *cobra.Command, text string) string {
	return report.Unglue(ForLayout(c, text))
}

// ForLayout is printed's text with each command glued, for report.Fit,
// report.View or report.Wrap to lay out without breaking one.
func ForLayout(c *cobra.Command, text string) string {
	return report.Commands(text, invokedAs(c), isLabCommand(c.Root()))
}

// isLabCommand reports whether a word after the lab's name makes one of its
// commands: a command's name or alias, a flag (--help), a placeholder
// (<scenario>, [command]), or cobra's own help and completion.
func isLabCommand(root *cobra.Command) func(string) bool {
	return func(word string) bool {
		switch {
		case word == "":
			return false
		case strings.ContainsAny(word[:1], "-<["), word == "help", word == "completion":
			return true
		}
		for _, c := range root.Commands() {
			if c.Name() == word || c.HasAlias(word) {
				return true
			}
		}
		return false
	}
}
