package cli

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// closest returns up to three candidates a mistyped name was probably meant
// to be: the same letters once case and dashes are ignored, one a prefix of
// the other (`session16` → the Day 16 pair), or a few edits away
// (`retry-with-dead-leter`).
func closest(typed string, candidates []string) []string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
	}
	t := norm(typed)
	if t == "" {
		return nil
	}
	type match struct {
		name string
		dist int
	}
	var found []match
	for _, c := range candidates {
		n := norm(c)
		d := editDistance(t, n)
		switch {
		case strings.HasPrefix(n, t) && len(t) >= 4:
			found = append(found, match{c, 0})
		case d <= max(2, len(t)/5):
			found = append(found, match{c, d})
		}
	}
	slices.SortStableFunc(found, func(a, b match) int { return a.dist - b.dist })
	var out []string
	for _, m := range found {
		if !slices.Contains(out, m.name) && len(out) < 3 {
			out = append(out, m.name)
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// didYouMean renders suggestions as the end of a one-line error.
func didYouMean(prefix string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	for i, n := range names {
		names[i] = prefix + n
	}
	return "; did you mean " + strings.Join(names, " or ") + "?"
}

// unknownCommand is the root's argument check: a word that is not a
// command gets the closest scenario names, aliases and lab commands.
func unknownCommand(root *cobra.Command) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		typed := args[0]
		// `outboxlab day 16` is two words meant as one.
		if len(args) > 1 && dayWord.MatchString(typed+" "+args[1]) && !dayWord.MatchString(typed) {
			typed += " " + args[1]
		}
		return usagef("unknown command %q for \"outboxlab\"%s (outboxlab list shows them all)",
			typed, didYouMean("", suggestCommands(root, typed)))
	}
}

// dayWord is how a student names a course Day instead of its scenario:
// `day16`, `16`, `Day 16`, `day-16`, `session16`, `session-16`.
var dayWord = regexp.MustCompile(`(?i)^\s*(?:day|session)?[\s_-]*0*([0-9]{1,2})\s*$`)

// suggestCommands is what typed (not a command) was probably meant to be:
// a Day's number gives that Day's scenarios (`day16` → the Day 16 pair),
// anything else the closest commands, scenario names and aliases.
func suggestCommands(root *cobra.Command, typed string) []string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
			names = append(names, c.Aliases...)
		}
	}
	if m := dayWord.FindStringSubmatch(typed); m != nil {
		n, _ := strconv.Atoi(m[1])
		prefix := fmt.Sprintf("session-%02d-", n)
		var day []string
		for _, n := range names {
			if strings.HasPrefix(n, prefix) {
				day = append(day, n)
			}
		}
		if len(day) > 0 {
			return day
		}
	}
	return closest(typed, names)
}

// firstWord is the first argument that is not a flag, or "" (a scenario
// or command name comes first, before its flags).
func firstWord(args []string) string {
	for _, a := range args {
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// isCommand reports whether word names one of root's commands or aliases.
func isCommand(root *cobra.Command, word string) bool {
	for _, c := range root.Commands() {
		if c.Name() == word || slices.Contains(c.Aliases, word) {
			return true
		}
	}
	return false
}

// flagError makes pflag's errors helpful: an unknown flag gets the closest
// flags of the command.
func flagError(cmd *cobra.Command, err error) error {
	var missing *pflag.NotExistError
	if errors.As(err, &missing) && missing.GetSpecifiedName() != "" {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if hint := didYouMean("--", closest(missing.GetSpecifiedName(), names)); hint != "" {
			return usageError{fmt.Errorf("%w%s", err, hint)}
		}
	}
	return usageError{err}
}

// withBoolHint wraps a command's argument check: a stray "true" or "false"
// right after a true/false flag in raw (the whole command line) is explained,
// because pflag reads `--dead-letter false` as the flag set to true and a
// stray "false".
func withBoolHint(check cobra.PositionalArgs, raw []string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		if err == nil || len(args) == 0 || (args[0] != "true" && args[0] != "false") {
			return err
		}
		for i := 1; i < len(raw); i++ {
			name, ok := strings.CutPrefix(raw[i-1], "--")
			if f := cmd.Flags().Lookup(name); ok && raw[i] == args[0] && f != nil && f.Value.Type() == "bool" {
				return usageError{fmt.Errorf("%w; a true/false flag takes its value after =, as in --%s=%s", err, name, args[0])}
			}
		}
		return err
	}
}
