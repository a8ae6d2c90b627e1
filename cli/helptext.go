package cli

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// Help fits the terminal it is shown on (report.TerminalWidth: 80 to 100
// columns, 100 into a file or a pipe): cobra's templates, with flag usages
// wrapped (pflag's FlagUsagesWrapped), each command's summary wrapped beside
// its name and prose lines wrapped under their own indentation. A command
// (an example, one in the prose, the usage line) starts as the user started
// the lab and is never broken: one too wide stands on a line of its own
// (forLayout, printed). The width is the root command's, set by quietHelp
// before it renders (helpWidth).

func init() {
	// Help lists the scenarios in the order to meet them (scenarios.All), not by name.
	cobra.EnableCommandSorting = false
	cobra.AddTemplateFuncs(map[string]any{
		"flagUsages":  func(c *cobra.Command, fs *pflag.FlagSet) string { return fs.FlagUsagesWrapped(helpWidth(c)) },
		"commandLine": commandLine,
		"wrapText":    wrapText,
		"wrapExample": func(c *cobra.Command, text string) string {
			return wrapExample(cmdutil.ForLayout(c, text), helpWidth(c))
		},
	})
}

const helpTemplate = `{{with (or .Long .Short)}}{{wrapText $ . | trimTrailingWhitespaces}}

{{end}}{{if or .Runnable .HasSubCommands}}{{.UsageString}}{{end}}`

const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{wrapExample $ .Example}}{{end}}{{if .HasAvailableSubCommands}}{{$cmds := .Commands}}{{if eq (len .Groups) 0}}

Available Commands:{{range $cmds}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
{{commandLine .}}{{end}}{{end}}{{else}}{{range $group := .Groups}}

{{wrapText $ .Title}}{{range $cmds}}{{if (and (eq .GroupID $group.ID) (or .IsAvailableCommand (eq .Name "help")))}}
{{commandLine .}}{{end}}{{end}}{{end}}{{if not .AllChildCommandsHaveGroup}}

Additional Commands:{{range $cmds}}{{if (and (eq .GroupID "") (or .IsAvailableCommand (eq .Name "help")))}}
{{commandLine .}}{{end}}{{end}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{flagUsages $ .LocalFlags | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{flagUsages $ .InheritedFlags | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

// quietHelp renders help with help into memory, then writes it: a closed
// output (| head) is not an error to print, as with every other command.
// The commands cobra writes itself (the usage line, "Use … --help", the
// completion command's help) start as the user started the lab too.
func quietHelp(help func(*cobra.Command, []string)) func(*cobra.Command, []string) {
	return func(c *cobra.Command, args []string) {
		out := c.OutOrStdout()
		root := c.Root()
		if root.Annotations == nil {
			root.Annotations = map[string]string{}
		}
		root.Annotations[columnsAnnotation] = strconv.Itoa(report.TerminalWidth(out))
		var buf bytes.Buffer
		c.SetOut(&buf)
		help(c, args)
		c.SetOut(out)
		io.WriteString(out, cmdutil.Printed(c, buf.String()))
	}
}

// columnsAnnotation holds, on the root command, the width help is laid out
// for: each run of the lab builds its own command tree (newRoot), so the
// width is that run's alone.
const columnsAnnotation = "outboxlab-columns"

// helpWidth is the width c's help is laid out for: its root's
// columnsAnnotation, report.MaxWidth when it has none.
func helpWidth(c *cobra.Command) int {
	if n, err := strconv.Atoi(c.Root().Annotations[columnsAnnotation]); err == nil {
		return n
	}
	return report.MaxWidth
}

// wrapText fits a command's prose (its Long, a group's title) to its help
// width (report.Fit). Below report.MaxWidth each paragraph is filled again
// first: its lines at the margin, written for 80 columns or so, are joined
// (a line with a label, "Kind:    ...", or an indented one stays apart).
func wrapText(c *cobra.Command, text string) string {
	text, width := cmdutil.ForLayout(c, text), helpWidth(c)
	if width >= report.MaxWidth {
		return report.Fit(text, width)
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if n := len(out); n > 0 && margin(out[n-1]) && margin(l) {
			out[n-1] += " " + l
			continue
		}
		out = append(out, l)
	}
	return report.Fit(strings.Join(out, "\n"), width)
}

// margin reports whether l is a line of a paragraph of prose at the
// margin: not blank, not indented, with no label set off by two spaces.
func margin(l string) bool {
	return l != "" && l[0] != ' ' && !strings.Contains(l, "  ")
}

// minSummary is the narrowest a summary is wrapped beside its command's
// name; a narrower column puts the summary under the name instead.
const minSummary = 40

// commandLine is c's line in its parent's list: the name, padded as cobra
// pads it, and the summary, wrapped in the column after the name.
func commandLine(c *cobra.Command) string {
	width := helpWidth(c)
	name := "  " + cmdutil.Pad(c.Name(), c.NamePadding()) + " "
	line := name + c.Short
	if report.Width(line) <= width {
		return line
	}
	room := width - report.Width(name)
	if room < minSummary {
		return strings.TrimRight(name, " ") + "\n" + cmdutil.Indent(report.Wrap(c.Short, width-6), "      ")
	}
	return name + strings.ReplaceAll(report.Wrap(c.Short, room), "\n", "\n"+strings.Repeat(" ", report.Width(name)))
}

// wrapExample fits example command lines to width: a trailing "# comment"
// moves to the line above its command, and a command still too wide stands
// whole on its line, exempt from the width as a path is: pasted, a command
// broken across lines would run half of it. It unglues what forLayout glued.
func wrapExample(text string, width int) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if report.Width(l) <= width {
			out = append(out, l)
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
		if cmd, comment, ok := strings.Cut(l, "  # "); ok && strings.TrimSpace(cmd) != "" {
			out = append(out, lead+"# "+strings.TrimSpace(comment))
			l = strings.TrimRight(cmd, " ")
		}
		out = append(out, l)
	}
	return report.Unglue(strings.Join(out, "\n"))
}
