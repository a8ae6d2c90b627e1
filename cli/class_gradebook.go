package cli

import (
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/gradebook"
	"outboxlab/core/report"
)

// gradebookOptions are class's flags for Canvas's gradebook import.
type gradebookOptions struct {
	Path        string
	Roster      string
	Assignments map[string]string // scenario to Canvas's assignment id
}

func bindGradebook(cmd *cobra.Command, o *gradebookOptions) {
	f := cmd.Flags()
	f.StringVar(&o.Path, "gradebook", "", "also write Canvas's gradebook import CSV to FILE: a row per student, a column per scenario (--pick's run)")
	f.StringVar(&o.Roster, "roster", "", "the class list (Canvas's gradebook export): names, ids and sections for --gradebook")
	f.StringToStringVar(&o.Assignments, "assignment-id", nil, "Canvas's id of a scenario's assignment, SCENARIO=ID (repeat); without one Canvas makes a new assignment")
}

// gradebookPoints is each column's Points Possible: a scenario is scored
// out of 100, the share of its checks that held.
const gradebookPoints = 100

// classGradebook is the class in Canvas's layout: one row per student on the
// roster or in the class, one column per scenario, the counted run's score
// (--pick). Only a row that stands passed or failed has a score (passed
// 100, failed the share of checks held, the regrade's when regraded); any
// other standing (not regraded, differs, copied, did not verify) is blank,
// for the instructor to decide, and notes say so.
func classGradebook(c class, roster gradebook.Roster, ids map[string]string) ([]byte, []string) {
	var scenarios []string
	for _, s := range c.Rows {
		if !slices.Contains(scenarios, scenarioOf(s)) {
			scenarios = append(scenarios, scenarioOf(s))
		}
	}
	var assignments []gradebook.Assignment
	for _, sc := range scenarios {
		assignments = append(assignments, gradebook.Assignment{Name: sc, ID: ids[sc], Points: gradebookPoints})
	}
	scores := map[string][]*float64{}
	var order []string
	var notes []string
	for i, counts := range counted(c.Rows, c.Pick) {
		s := c.Rows[i]
		if !counts || s.Student == "" {
			continue
		}
		if _, ok := scores[s.Student]; !ok {
			scores[s.Student] = make([]*float64, len(scenarios))
			order = append(order, s.Student)
		}
		st, _ := standingOf(s)
		checks := s.Checks
		if s.Worker != nil && s.Worker.Regrade != nil {
			checks = s.Worker.Regrade.Checks
		}
		var score *float64
		switch {
		case st == standPassed:
			score = ptr(gradebookPoints)
		case st == standFailed && len(checks) > 0:
			score = ptr(math.Round(gradebookPoints*float64(report.ChecksPassed(checks))/float64(len(checks))*100) / 100)
		case st == standFailed:
			score = ptr(0)
		default:
			notes = append(notes, fmt.Sprintf("%s, %s: left blank (%s)", s.Student, scenarioOf(s), st))
		}
		scores[s.Student][slices.Index(scenarios, scenarioOf(s))] = score
	}
	var rows []gradebook.Row
	seen := map[string]bool{}
	for _, st := range roster {
		row := gradebook.Row{Student: st, Scores: make([]*float64, len(scenarios))}
		for _, folder := range order {
			if f, ok := roster.Find(folder); ok && f == st {
				row.Scores, seen[folder] = scores[folder], true
			}
		}
		rows = append(rows, row)
	}
	for _, folder := range order {
		if seen[folder] {
			continue
		}
		if len(roster) > 0 {
			notes = append(notes, fmt.Sprintf("%s is not on the roster: its row has no ids (Canvas matches rows by them)", folder))
		}
		rows = append(rows, gradebook.Row{Student: gradebook.Student{Name: folder}, Scores: scores[folder]})
	}
	return gradebook.Canvas(assignments, rows), notes
}

func ptr(f float64) *float64 { return &f }

// readRoster reads --roster (nil without one).
func readRoster(path string) (gradebook.Roster, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, cmdutil.FileError("roster", path, err)
	}
	defer f.Close()
	r, err := gradebook.ReadRoster(f)
	if err != nil {
		return nil, cmdutil.Usagef("--roster %s: %v", path, err)
	}
	return r, nil
}
