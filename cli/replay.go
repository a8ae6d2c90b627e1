package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"outboxlab/core/changelog"
	"outboxlab/core/report"
)

// writeReplay writes the run's change log beside its report
// (<report>-changelog.json). The report, its figures and the change log land
// together or not at all: when this write fails, the report and its
// figures are removed.
func writeReplay(res report.Result, log changelog.Log) error {
	base := strings.TrimSuffix(res.ReportPath, ".txt")
	data, err := json.MarshalIndent(log, "", " ")
	if err == nil {
		err = report.WriteAtomic(base+"-changelog.json", append(data, '\n'))
	}
	if err != nil {
		for _, p := range res.Plots {
			os.Remove(p)
		}
		os.Remove(res.ReportPath)
		return fmt.Errorf("write the change log beside %s: %w; nothing of the report was kept", res.ReportPath, err)
	}
	return nil
}
