// Package list is `outboxlab list`: the catalogue of scenarios in course
// order, as text or JSON.
package list

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// catalogueEntry is one scenario as list --json prints it, in course order.
type CatalogueEntry struct {
	Name        string      `json:"name"`
	Aliases     []string    `json:"aliases,omitempty"`
	Family      string      `json:"family"`
	FamilyTitle string      `json:"family_title"`
	Day         int         `json:"day,omitempty"` // the course's Day (session-NN-… is Day NN); 0 outside the Days
	Kind        report.Kind `json:"kind"`
	Pair        string      `json:"pair,omitempty"`
	Answers     string      `json:"answers,omitempty"` // an AFTER without a pair: the BEFORE whose failure it fixes
	Summary     string      `json:"summary"`
	// FailsWith are the flags that make the scenario's checks fail (exit 1).
	FailsWith []string `json:"fails_with"`
	// NotExercisedWith are the flags under which its mechanism is not
	// exercised (verdict NOT EXERCISED, exit 1); [] when it declares none.
	NotExercisedWith []string `json:"not_exercised_with"`
}

// familyCatalogue is the catalogue, or one family's part of it (see familyScenarios).
func familyCatalogue(family string) ([]CatalogueEntry, error) {
	list, err := cmdutil.FamilyScenarios(family)
	if err != nil {
		return nil, err
	}
	var entries []CatalogueEntry
	for _, s := range list {
		entries = append(entries, CatalogueEntry{Name: s.Name, Aliases: s.Aliases, Family: s.Family,
			FamilyTitle: scenarios.FamilyTitle(s.Family), Day: s.Day, Kind: s.Kind, Pair: s.Pair,
			Answers: s.Answers, Summary: s.Summary, FailsWith: s.FailsWith, NotExercisedWith: append([]string{}, s.NotExercisedWith...)})
	}
	return entries, nil
}

// dayNote says once that the commands' session-NN is the course's Day NN.
const dayNote = "A scenario named session-16-… is Day 16 of the course (commands and report folders keep session-NN)."

// NewCmd is the list command.
func NewCmd() *cobra.Command {
	var asJSON, all bool
	var family string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Where to start and the families; --all: the whole catalogue, in the order to meet it",
		Long: `list opens with where to start: the scenario to run first, the course's Days it
begins (each Day a BEFORE, then the AFTER that fixes it) and the other families,
on one screen. --all prints the whole catalogue in the order to meet it, each
scenario with its kind, its pair and what it shows; --family one family's part
of it; --json the whole catalogue (or the family's) for machines.`,
		Example: `  outboxlab list
  outboxlab list --all
  outboxlab list --family retry
  outboxlab list --json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			entries, err := familyCatalogue(family)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(entries)
			}
			var b strings.Builder
			if all || family != "" {
				writeCatalogue(&b, entries, report.TerminalWidth(w))
			} else {
				writeStart(&b, entries, report.TerminalWidth(w))
			}
			_, err = io.WriteString(w, cmdutil.Printed(cmd, b.String()))
			return err
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "list every scenario with its kind, pair and summary, in the order to meet them")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole catalogue as JSON (the same order and fields)")
	cmd.Flags().StringVar(&family, "family", "", "list only this family's scenarios (the families all --family takes)")
	return cmd
}

// writeStart prints list's first screen, short enough for a terminal of 40
// rows at 80 columns: where to start, the family the start belongs to (the
// course's Days) a scenario a line, each other family on a line with its
// number of scenarios and title, and the commands that show more.
func writeStart(w io.Writer, entries []CatalogueEntry, width int) {
	start := scenarios.Lookup(scenarios.StartHere)
	fmt.Fprintf(w, "Start here: outboxlab %s\n", start.Name)
	var first []CatalogueEntry
	var others []string // the other families, in order
	count := map[string]int{}
	for _, e := range entries {
		switch {
		case e.Family == start.Family:
			first = append(first, e)
		case count[e.Family] == 0:
			others = append(others, e.Family)
		}
		count[e.Family]++
	}
	if len(first) > 0 && !strings.Contains(first[0].FamilyTitle, "is Day 16") {
		fmt.Fprintln(w, report.Wrap(dayNote, width))
	}
	fmt.Fprintf(w, "\n%s\n\n", report.Wrap(scenarios.FamilyTitle(start.Family), width))
	nameWidth, _ := columnWidths(first)
	for _, e := range first {
		fmt.Fprintln(w, "  "+cmdutil.Pad(e.Name, nameWidth)+"  "+string(e.Kind))
	}
	if len(others) > 0 {
		fmt.Fprintf(w, "\nThen the other families:\n\n")
	}
	famWidth, countWidth := 0, 0
	for _, f := range others {
		famWidth, countWidth = max(famWidth, report.Width(f)), max(countWidth, report.Width(report.Plural(count[f], "scenario")))
	}
	for _, f := range others {
		lead := "  " + cmdutil.Pad(f, famWidth) + "  " + cmdutil.Pad(report.Plural(count[f], "scenario"), countWidth) + "  "
		title := report.Wrap(scenarios.FamilyTitle(f), width-report.Width(lead))
		fmt.Fprintln(w, lead+strings.ReplaceAll(title, "\n", "\n"+strings.Repeat(" ", report.Width(lead))))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every scenario, its pair and what it shows:  outboxlab list --all")
	if len(others) > 0 {
		fmt.Fprintln(w, "One family's scenarios:                      outboxlab list --family "+others[0])
	}
	fmt.Fprintln(w, "A scenario's flags and examples:             outboxlab <scenario> --help")
}

// writeCatalogue prints entries grouped by family, in their order: a
// family's title, then per scenario a line with its name, kind and pair and
// its summary indented below, every line within width columns.
func writeCatalogue(w io.Writer, entries []CatalogueEntry, width int) {
	fmt.Fprintf(w, "Start here: outboxlab %s\n", scenarios.StartHere)
	saidDay := false
	for _, e := range entries {
		if strings.Contains(e.FamilyTitle, "is Day 16") {
			saidDay = true
		}
	}
	if !saidDay {
		fmt.Fprintln(w, report.Wrap(dayNote, width))
	}
	family := ""
	var nameWidth, kindWidth int
	for i, e := range entries {
		if e.Family != family {
			family = e.Family
			fmt.Fprintf(w, "\n%s\n\n", report.Wrap(e.FamilyTitle, width))
			nameWidth, kindWidth = columnWidths(entries[i:])
		}
		line := "  " + cmdutil.Pad(e.Name, nameWidth) + "  " + string(e.Kind)
		var more []string
		if rel := relation(e); rel != "" {
			if long := "  " + cmdutil.Pad(e.Name, nameWidth) + "  " + cmdutil.Pad(string(e.Kind), kindWidth) + "  " + rel; report.Width(long) <= width {
				line = long
			} else {
				more = append(more, rel)
			}
		}
		fmt.Fprintln(w, line)
		if len(e.Aliases) > 0 {
			more = append(more, "also: "+strings.Join(e.Aliases, ", "))
		}
		more = append(more, e.Summary)
		for _, text := range more {
			fmt.Fprintln(w, cmdutil.Indent(report.Wrap(text, width-6), "      "))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run one with: outboxlab <scenario> [flags]; see outboxlab <scenario> --help")
}

// columnWidths are the widest name and kind of the family entries start with.
func columnWidths(entries []CatalogueEntry) (name, kind int) {
	for _, e := range entries {
		if e.Family != entries[0].Family {
			break
		}
		name, kind = max(name, report.Width(e.Name)), max(kind, report.Width(string(e.Kind)))
	}
	return name, kind
}

// relation is what a scenario is to the others: its pair, or the BEFORE an
// unpaired AFTER answers; an EXPERIMENT's kind says it all.
func relation(e CatalogueEntry) string {
	switch {
	case e.Pair != "":
		return "(pairs with " + e.Pair + ")"
	case e.Answers != "":
		return "(answers " + e.Answers + ")"
	}
	return ""
}
