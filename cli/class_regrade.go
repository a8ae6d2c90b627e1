package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/grade"
	"outboxlab/grade/regrade"
	"outboxlab/grade/similarity"
	"outboxlab/workers"
)

// regradeOptions are how class regrades the workers handed in.
type regradeOptions struct {
	Seed    int64 // -1: each Day's reference's, else grade's default
	Sandbox bool
	Jobs    int
}

// regradeAll grades every worker, opts.Jobs at a time; a worker a
// wall-clock budget stopped while others ran is graded again alone
// (regrade.Each). An error is a regrade that could not happen at all (an
// interrupt); a worker that cannot start stands failed.
func regradeAll(ctx context.Context, found []*handedWorker, refs []submission, opts regradeOptions) error {
	results := regrade.Each(ctx, len(found), opts.Jobs, func(ctx context.Context, i int) regrade.Grade[*regraded] {
		rg, over := regradeOne(ctx, found[i], refs, opts)
		return regrade.Grade[*regraded]{Result: rg, OverBudget: over}
	})
	if ctx.Err() != nil {
		return cmdutil.Interrupted("class interrupted while regrading; nothing was written")
	}
	for i, r := range results {
		r.Result.Alone = r.Alone
		found[i].Regrade = r.Result
	}
	return nil
}

// regradeOne grades one worker in its folder, with the seed, variations and
// turn budget of its Day's reference grade report (or --seed, or grade's
// defaults), and says whether a wall-clock budget stopped it.
func regradeOne(ctx context.Context, w *handedWorker, refs []submission, opts regradeOptions) (*regraded, bool) {
	g := &grade.Options{Day: w.Day, Seed: grade.DefaultSeed, Variations: grade.DefaultVariations,
		TurnBudget: grade.DefaultTurnBudget, Command: w.Argv, Dir: w.Abs, Sandbox: opts.Sandbox, Stderr: io.Discard}
	if ref := reference(submission{Doc: workerRow(w).Doc}, refs); ref != nil && ref.Doc.Info.Record != nil {
		for _, p := range ref.Doc.Info.Record.Params {
			switch p.Name {
			case "seed":
				g.Seed, _ = strconv.ParseUint(p.Value, 10, 64)
			case "variations":
				g.Variations, _ = strconv.Atoi(p.Value)
			case "turn-budget":
				g.TurnBudget, _ = time.ParseDuration(p.Value)
			}
		}
	}
	if opts.Seed >= 0 {
		g.Seed = uint64(opts.Seed)
	}
	rg := &regraded{Seed: g.Seed, Variations: g.Variations}
	if err := g.Validate(); err != nil {
		rg.Err = "the reference's grade flags are refused: " + err.Error()
		return rg, false
	}
	body, err := rerunBody(ctx, w.Day.Scenario(), g, nil, nil)
	if err != nil {
		rg.Err = "could not be graded: " + cmdutil.OneLine(strings.TrimPrefix(err.Error(), "rerun "+w.Day.ScenarioName()+": "))
		return rg, false
	}
	rg.Body, rg.Checks = body, report.BodyChecks(body)
	rg.Passed = len(rg.Checks) > 0 && report.ChecksPassed(rg.Checks) == len(rg.Checks)
	return rg, g.OverBudget
}

// compareHandedIn says how each grade report handed in differs from its
// worker's regrade: with the same seed and variations, the first line
// where the bodies differ; with others, only a pass the regrade does not bear out.
func compareHandedIn(rows []submission) {
	for i := range rows {
		s := &rows[i]
		w := s.Worker
		if w == nil || w.Regrade == nil || w.Regrade.Err != "" || !s.Doc.HasHeader {
			continue
		}
		rg := w.Regrade
		seed, vars := recordedInt(s.Doc, "seed"), recordedInt(s.Doc, "variations")
		switch {
		case seed == strconv.FormatUint(rg.Seed, 10) && vars == strconv.Itoa(rg.Variations):
			if s.Doc.Body != rg.Body {
				s.Differs = "the report handed in differs from the regrade: " + firstDifference(s.Doc.Body, rg.Body)
			}
		case s.Passed && !rg.Passed:
			s.Differs = fmt.Sprintf("the report handed in (--seed %s) passes; the regrade (--seed %d) fails", seed, rg.Seed)
		}
	}
}

// recordedInt is the value a report's record gives a parameter, "" none.
func recordedInt(doc report.Doc, name string) string {
	if r := doc.Info.Record; r != nil {
		for _, p := range r.Params {
			if p.Name == name {
				return p.Value
			}
		}
	}
	return ""
}

// copyThreshold is the similarity from which a worker is called a copy.
const copyThreshold = 0.8

// findCopies compares each worker with the shipped references and with
// every other student's worker of its Day, once the code every student was
// given is set aside; a match names the other and the score.
func findCopies(found []*handedWorker) error {
	base := similarity.Print{}
	for _, g := range workers.Given() {
		p, err := similarity.Of(g)
		if err != nil {
			return err
		}
		for h := range p {
			base[h] = true
		}
	}
	type named struct {
		name  string
		print similarity.Print
		w     *handedWorker
	}
	var refs []named
	for name, fsys := range workers.References() {
		p, err := similarity.Of(fsys)
		if err != nil {
			return err
		}
		refs = append(refs, named{name: name, print: p.Without(base)})
	}
	slices.SortFunc(refs, func(a, b named) int { return strings.Compare(a.name, b.name) })
	var mine []named
	for _, w := range found {
		p, err := similarity.Of(os.DirFS(w.Abs))
		if err != nil {
			return fmt.Errorf("read %s: %w", w.Folder, err)
		}
		mine = append(mine, named{name: w.Student + "'s worker " + w.Folder + "/", print: p.Without(base), w: w})
	}
	for i, a := range mine {
		best, bestName := 0.0, ""
		for _, r := range refs {
			if s := similarity.Score(a.print, r.print); s > best {
				best, bestName = s, "the shipped reference "+r.name
			}
		}
		for j, b := range mine {
			if i == j || b.w.Student == a.w.Student || b.w.Day != a.w.Day {
				continue
			}
			if s := similarity.Score(a.print, b.print); s > best {
				best, bestName = s, b.name
			}
		}
		if best >= copyThreshold {
			a.w.Copied = copiedNote(bestName, best)
		}
	}
	return nil
}
