package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"outboxlab/core/changelog"
	"outboxlab/core/report"
)

// writeReplay writes the run's change log (<report>-changelog.json) and its
// replay page (<report>-replay.html) beside its report. The report, its
// figures, the change log and the page land together or not at all: when
// one of these writes fails, everything of the report is removed.
//
// A run that recorded nothing (a scenario whose drive has no recording hook)
// gets neither: there would be nothing to step through.
func writeReplay(res report.Result, log changelog.Log, spelling changelog.Spelling) error {
	if len(log.Designs) == 0 {
		return nil
	}
	base := strings.TrimSuffix(res.ReportPath, ".txt")
	written := []string{}
	err := func() error {
		data, err := json.MarshalIndent(log, "", " ")
		if err != nil {
			return err
		}
		for _, f := range []struct {
			path string
			data func() ([]byte, error)
		}{
			{base + "-changelog.json", func() ([]byte, error) { return append(data, '\n'), nil }},
			{base + "-replay.html", func() ([]byte, error) { return changelog.Page(pageData(res, log, spelling)) }},
		} {
			b, err := f.data()
			if err == nil {
				err = report.WriteAtomic(f.path, b)
			}
			if err != nil {
				return err
			}
			written = append(written, f.path)
		}
		return nil
	}()
	if err != nil {
		for _, p := range append(append(written, res.Plots...), res.ReportPath) {
			os.Remove(p)
		}
		return fmt.Errorf("write the change log beside %s: %w; nothing of the report was kept", res.ReportPath, err)
	}
	return nil
}

// pageData is what the replay page shows of a run: its checks, each linked
// to the event that decided it, of the scenario's own design (the one
// watched first), and its tables and columns named as the report spells
// them (spelling: changelog.SpellingOf the report's body).
func pageData(res report.Result, log changelog.Log, spelling changelog.Spelling) changelog.PageData {
	own := ""
	if len(log.Designs) > 0 {
		own = log.Designs[0].Name
	}
	d := changelog.PageData{Scenario: res.Scenario, Kind: string(res.Kind), Own: own, Verdict: res.Verdict, Log: log.Spelled(spelling)}
	for _, c := range res.Checks {
		d.Checks = append(d.Checks, changelog.PageCheck{Name: c.Name, Mark: report.Mark(res.Kind, c), Detail: c.Detail,
			Step: log.DecidingStep(own, c.Name+" "+c.Detail)})
	}
	return d
}
