package cli

import (
	"errors"
	"fmt"
	"outboxlab/cli/cmdutil"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

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
		return cmdutil.Usagef("unknown command %q for \"outboxlab\"%s (outboxlab list shows them all)",
			typed, cmdutil.DidYouMean("", suggestCommands(root, typed)))
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
	return cmdutil.Closest(typed, names)
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
		if hint := cmdutil.DidYouMean("--", cmdutil.Closest(missing.GetSpecifiedName(), names)); hint != "" {
			return cmdutil.Usage(fmt.Errorf("%w%s", err, hint))
		}
	}
	return cmdutil.Usage(err)
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
				return cmdutil.Usage(fmt.Errorf("%w; a true/false flag takes its value after =, as in --%s=%s", err, name, args[0]))
			}
		}
		return err
	}
}
