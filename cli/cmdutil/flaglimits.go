package cmdutil

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"outboxlab/scenarios"
)

// The longest value a string flag takes, in characters (docs/CONTRACT.md,
// "Flags every scenario has"). A path or a URL may be long; a key, a name,
// a code is short; a reason or a message is a sentence. Every string flag of
// every command has one: a scenario's are declared with it
// (scenarios.Flags.String), the harness's own are here. maxLength says
// which, checkStringFlags enforces it, and annotateStringFlags says it in
// --help for a flag the declaration did not, so they never disagree.
const (
	maxPathLength = 1024 // --report-dir, class's --reference, --csv and --junit, --keep-db-at
	MaxURLLength  = 2048 // --database, inspect --db (a URL, or a SQLite path)
)

// MaxLength is the longest value of f (each item, for a list).
func MaxLength(f *pflag.Flag) int {
	if n, ok := scenarios.MaxLength(f); ok {
		return n
	}
	switch f.Name {
	case "report-dir", "reference", "csv", "junit", "keep-db-at":
		return maxPathLength
	case "database", "db":
		return MaxURLLength
	case "where": // inspect --where: an expression, a sentence long
		return scenarios.TextLength
	}
	return scenarios.WordLength
}

// IsStringFlag reports whether f takes free text (a string, or a list of them).
func IsStringFlag(f *pflag.Flag) bool {
	switch f.Value.Type() {
	case "string", "stringSlice", "stringArray":
		return true
	}
	return false
}

// CheckStringFlags refuses a string flag value that holds a control
// character (ESC, a line break, ...: it could forge report lines or reach
// the terminal raw) or is longer than its maximum (maxLength). Every string
// flag of every command goes through it, before the command runs.
func CheckStringFlags(fs *pflag.FlagSet) error {
	var bad error
	fs.Visit(func(f *pflag.Flag) {
		if bad != nil {
			return
		}
		if i := strings.IndexFunc(f.Value.String(), UnsafeRune); i >= 0 {
			r, _ := utf8.DecodeRuneInString(f.Value.String()[i:])
			bad = Usagef("--%s must not contain control characters (found %s)", f.Name, Show(string(r)))
			return
		}
		if !IsStringFlag(f) {
			return
		}
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		limit := MaxLength(f)
		for _, v := range values {
			if n := utf8.RuneCountInString(v); n > limit {
				what := "is"
				if len(values) > 1 || f.Value.Type() != "string" {
					what = "has an item"
				}
				bad = Usagef("--%s %s %d characters long; at most %d are accepted", f.Name, what, n, limit)
				return
			}
		}
	})
	return bad
}

// AnnotateStringFlags ends the --help line of every string flag of cmd and
// its subcommands with its maximum length, as a numeric flag's ends with its
// range.
func AnnotateStringFlags(cmd *cobra.Command) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !IsStringFlag(f) || strings.Contains(f.Usage, "characters]") {
			return
		}
		each := ""
		if f.Value.Type() != "string" {
			each = "each "
		}
		f.Usage += fmt.Sprintf(" [%sat most %d characters]", each, MaxLength(f))
	})
	for _, c := range cmd.Commands() {
		AnnotateStringFlags(c)
	}
}

// WithStringLimits checks every string flag before a command's own rules
// for its arguments (cobra checks those first, before PersistentPreRunE),
// so a value that is too long is named even when an argument is missing too.
func WithStringLimits(next cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := CheckStringFlags(cmd.Flags()); err != nil {
			return err
		}
		return next(cmd, args)
	}
}
