package cmdutil

import (
	"fmt"
	"io"
	"time"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// Course is the catalogue as the index needs it: course order, each
// scenario's pair, and the folders runs write reports to.
func Course() report.Course {
	c := report.Course{Pair: map[string]string{}, Groups: map[string]bool{}}
	for _, s := range scenarios.All() {
		c.Order = append(c.Order, s.Name)
		c.Groups[s.Group()] = true
		if s.Pair != "" {
			c.Pair[s.Name] = s.Pair
		}
	}
	return c
}

// UpdateIndex writes the HTML twin of the report just written and rebuilds
// its directory's index. The run has happened and its report is on disk, so
// a failure here is said in one line and changes no exit code.
func UpdateIndex(reportDir, reportPath string, stderr io.Writer) {
	if err := report.WriteTwinAndIndex(reportDir, reportPath, time.Now(), Version, Course()); err != nil {
		fmt.Fprintf(stderr, "outboxlab: index not updated: %s\n", OneLine(err.Error()))
	}
}
