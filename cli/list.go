package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

type catalogueEntry struct {
	Name    string      `json:"name"`
	Aliases []string    `json:"aliases,omitempty"`
	Family  string      `json:"family"`
	Kind    report.Kind `json:"kind"`
	Pair    string      `json:"pair,omitempty"`
	Summary string      `json:"summary"`
	// FailsWith are the flags that make the scenario's checks fail (exit 1).
	FailsWith []string `json:"fails_with"`
}

func newListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "The catalogue: every scenario with its family, kind, pair and summary",
		Example: `  outboxlab list
  outboxlab list --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var entries []catalogueEntry
			for _, s := range scenarios.All() {
				entries = append(entries, catalogueEntry{s.Name, s.Aliases, s.Family, s.Kind, s.Pair, s.Summary, s.FailsWith})
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(entries)
			}
			for _, family := range scenarios.Families() {
				fmt.Fprintf(w, "Family %s\n", family)
				var rows [][]string
				for _, e := range entries {
					if e.Family == family {
						rows = append(rows, []string{e.Name, string(e.Kind), report.Dash(e.Pair), e.Summary})
					}
				}
				fmt.Fprint(w, report.RenderTable([]string{"Scenario", "Kind", "Pairs with", "Summary"}, rows))
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w, "Run one with: outboxlab <scenario> [flags]; see outboxlab <scenario> --help")
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the catalogue as JSON")
	return cmd
}
