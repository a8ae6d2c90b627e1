package cmdutil

// Each family package registers its scenarios (and child entry points) in init.
import (
	"slices"
	"strings"

	"outboxlab/scenarios"
	_ "outboxlab/scenarios/governance"
	_ "outboxlab/scenarios/ordered"
	_ "outboxlab/scenarios/retry"
	_ "outboxlab/scenarios/wassal"
	_ "outboxlab/scenarios/workers"
)

// FamilyScenarios is every scenario, or only family's when family is set
// (list --family and all --family): a name that is not a family is a usage
// error naming the families there are.
func FamilyScenarios(family string) ([]*scenarios.Scenario, error) {
	list := scenarios.All()
	if family == "" {
		return list, nil
	}
	if !slices.Contains(scenarios.Families(), family) {
		return nil, Usagef("--family %q is not a family (have: %s)", family, strings.Join(scenarios.Families(), ", "))
	}
	return slices.DeleteFunc(list, func(s *scenarios.Scenario) bool { return s.Family != family }), nil
}
