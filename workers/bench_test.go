package workers_test

import (
	"testing"

	"outboxlab/grade"
	"outboxlab/scenarios"
)

// The grade benchmarks of issue 40, with the Go reference prebuilt (make
// bench): a grade of Day 16 (the course's run and the default seed's
// variations, with their second and third workers, kills and stall) must
// stay under 5 s, Day 15 under 10 s, on the lab's machine.
//
//	go test -run '^$' -bench 'GradeDay1[56]' -benchtime 3x ./workers
func BenchmarkGradeDay16(b *testing.B) { benchGrade(b, "session-16") }
func BenchmarkGradeDay15(b *testing.B) { benchGrade(b, "session-15") }

func benchGrade(b *testing.B, day string) {
	for b.Loop() {
		o := &grade.Options{Day: grade.Lookup(day), Seed: grade.DefaultSeed, Variations: grade.DefaultVariations,
			TurnBudget: testTurnBudget, StartBudget: testStartBudget, Command: []string{referenceGo}}
		rep, err := o.Run(b.Context(), scenarios.NewEnv(b.TempDir()))
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Passed() {
			b.Fatalf("the Go reference failed %s:\n%s", day, rep.Body())
		}
	}
}
