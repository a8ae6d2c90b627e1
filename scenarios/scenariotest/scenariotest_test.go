package scenariotest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// probe is a scenario that reports what it was given.
type probe struct{ n int }

func (p *probe) Validate() error {
	if p.n < 0 {
		return errors.New("--n must not be negative")
	}
	return nil
}

func (p *probe) Run(_ context.Context, env scenarios.Env) (*report.Report, error) {
	r := report.New(probeName, report.Experiment)
	r.Metric("n", p.n)
	_, err := os.Stat(env.Dir)
	r.Metric("dir_exists", err == nil)
	r.Metric("db_in_dir", filepath.Dir(env.Database.Location().Path()) == env.Dir)
	return r, nil
}

const probeName = "scenariotest-probe"

func init() {
	scenarios.Register(&scenarios.Scenario{Name: probeName, Family: "scenariotest", Bind: func(fs *pflag.FlagSet) scenarios.Options {
		p := &probe{n: 1}
		fs.IntVar(&p.n, "n", p.n, "a number")
		return p
	}})
}

func TestBindParsesWithoutValidating(t *testing.T) {
	o := Bind(t, probeName, "--n", "-3")
	if got := o.(*probe).n; got != -3 {
		t.Errorf("n = %d, want -3", got)
	}
}

func TestRunGivesAFreshDirectory(t *testing.T) {
	m := Run(t, probeName, "--n", "7").Result().Metrics
	if m["n"] != 7 || m["dir_exists"] != true || m["db_in_dir"] != true {
		t.Errorf("metrics %v, want n 7 in an existing directory holding the database", m)
	}
}
