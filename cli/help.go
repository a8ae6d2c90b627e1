package cli

import (
	"outboxlab/cli/cmdutil"
	"strings"

	"github.com/spf13/cobra"
)

// newHelpCmd is cobra's help command, except that help for a command that
// does not exist is a usage error (exit 2), not a cheerful exit 0.
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help provides help for any command in the lab: outboxlab help <command>.",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var names []string
			cmd, _, err := c.Root().Find(args)
			if err != nil || cmd == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				typed := strings.Join(args, " ")
				return cmdutil.Usagef("no help for %q: it is not a command%s (see outboxlab --help)",
					typed, cmdutil.DidYouMean("", suggestCommands(root, typed)))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}
