package report

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// foldSkipped is the longest list of skipped files the index shows open.
const foldSkipped = 5

// anchor is a scenario's id on the index page.
func anchor(scenario string) string { return "s-" + scenario }

// IndexHTML renders the class index: a class summary first (the student ×
// scenario grid of newest runs, every BEFORE beside its AFTER, in course
// order, and every skipped file with why), then one section per scenario in
// course order, folded, one row per report, newest first, each with its
// figures full width below it.
func IndexHTML(sc Scan, sum Summary, course Course, dir string) string {
	var b strings.Builder
	pageStart(&b, "outboxlab reports")
	groups := map[string][]Entry{}
	var order []string
	students := map[string]bool{}
	for _, e := range sc.Entries {
		if _, ok := groups[e.Scenario]; !ok {
			order = append(order, e.Scenario)
		}
		groups[e.Scenario] = append(groups[e.Scenario], e)
		if e.Student != "" {
			students[e.Student] = true
		}
	}
	rank := course.Rank()
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Or(rank(a)-rank(b), strings.Compare(a, b)) })
	who := ""
	if len(students) > 0 {
		who = fmt.Sprintf(" by %s", Plural(len(students), "student"))
	}
	fmt.Fprintf(&b, "<h1>outboxlab reports</h1>\n<p class=\"muted\">%s of %s%s in %s, in course order, "+
		"newest first; rebuilt %s UTC by outboxlab %s from the report files.</p>\n",
		Plural(len(sc.Entries), "report"), Plural(len(order), "scenario"), esc(who), esc(filepath.Base(dir)),
		sum.Generated.Format("2006-01-02 15:04:05"), esc(sum.Version))
	classSummary(&b, sc, sum, course, groups, order)
	for _, name := range order {
		g := groups[name]
		withWho := slices.ContainsFunc(g, func(e Entry) bool { return e.Student != "" })
		// Folded: the grid above is the overview; a section opens on a click.
		fmt.Fprintf(&b, "<details class=\"scenario\" id=\"%s\">\n<summary><h2>%s <span class=\"muted\">%s · %s</span></h2></summary>\n"+
			"<table class=\"runs\">\n", esc(anchor(name)), esc(name), esc(string(Dash(string(g[0].Kind)))), esc(Plural(len(g), "run")))
		b.WriteString("<thead><tr><th class=\"n\">Checks</th><th>Verdict</th><th class=\"n\">Exit</th>")
		if withWho {
			b.WriteString("<th class=\"n\">Student</th>")
		}
		b.WriteString("<th>Flags not at default</th><th class=\"n\">When (UTC)</th><th class=\"n\">Report</th></tr></thead>\n<tbody>\n")
		cols := 6
		if withWho {
			cols = 7
		}
		for _, e := range g {
			class := "run"
			if len(e.Disagrees) > 0 {
				class += " disagrees"
			}
			fmt.Fprintf(&b, "<tr class=\"%s\"><td class=\"n %s\">%s</td><td>%s%s</td><td class=\"n %s\">%d</td>",
				class, resultClass(e), esc(checksText(e)), verdictHTML(e), disagreeNote(e),
				resultClass(e), e.ExitCode)
			if withWho {
				fmt.Fprintf(&b, "<td class=\"n\">%s</td>", esc(Dash(e.Student)))
			}
			fmt.Fprintf(&b, "<td>%s</td><td class=\"n\">%s</td>"+
				"<td class=\"n\"><a href=\"%s\">page</a> · <a href=\"%s\">text</a>%s</td></tr>\n",
				flagsHTML(e), e.Started.UTC().Format("2006-01-02 15:04:05"), url(e.HTML), url(e.Report), replayLink(e))
			if len(e.Figures) > 0 {
				fmt.Fprintf(&b, "<tr class=\"figs\"><td colspan=\"%d\">", cols)
				for _, f := range e.Figures {
					fmt.Fprintf(&b, "<img src=\"%s\" alt=\"%s\"/>", url(f), esc(figureAlt(dir, f)))
				}
				b.WriteString("</td></tr>\n")
			}
		}
		b.WriteString("</tbody>\n</table>\n</details>\n")
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// disagreeNote marks a report whose header disagrees with its body, and a
// grade report nobody regraded.
func disagreeNote(e Entry) string {
	if e.NotRegraded {
		return "<br/><span class=\"idle\">not regraded: a grade report's checks are the student's word " +
			"until <code>outboxlab class --regrade</code> grades the worker</span>"
	}
	if len(e.Disagrees) == 0 {
		return ""
	}
	return fmt.Sprintf("<br/><span class=\"fail\">⚠ header edited: %s (checks, verdict and exit shown are the body's)</span>",
		esc(e.Disagrees[0]))
}

// classSummary writes the class summary: the overall result, the course's
// scenarios with each BEFORE beside its AFTER, and the skipped files.
func classSummary(b *strings.Builder, sc Scan, sum Summary, course Course, groups map[string][]Entry, order []string) {
	b.WriteString("<section id=\"summary\">\n<h2>Class summary</h2>\n")
	switch {
	case len(sc.Entries) == 0:
		b.WriteString("<p>No reports yet: run a scenario, or <code>outboxlab all</code>.</p>\n")
	case sum.Passed:
		fmt.Fprintf(b, "<p class=\"result pass\">All %s passed their checks.</p>\n", Plural(len(sc.Entries), "report"))
	default:
		fmt.Fprintf(b, "<p class=\"result fail\">%d of %s failed", len(sum.FailedReports), Plural(len(sc.Entries), "report"))
		if n := len(sum.NotExercised); n > 0 {
			fmt.Fprintf(b, " (of the newest runs, %d not exercised: %s)", n, esc(strings.Join(sum.NotExercised, ", ")))
		}
		if n := len(sum.HeaderDisagrees); n == 1 {
			b.WriteString("; 1 header disagrees with its own body (edited by hand)")
		} else if n > 1 {
			fmt.Fprintf(b, "; %d headers disagree with their own body (edited by hand)", n)
		}
		if n := len(sum.NotRegraded); n > 0 {
			fmt.Fprintf(b, "; %s not regraded (outboxlab class --regrade grades the workers)", Plural(n, "passing grade report"))
		}
		b.WriteString(".</p>\n")
	}
	if len(order) > 0 {
		gridHTML(b, groups, order)
	}
	if len(order) > 1 {
		b.WriteString("<table class=\"pairs\">\n<thead><tr><th>Scenario (newest run per student)</th>" +
			"<th>Its pair</th></tr></thead>\n<tbody>\n")
		done := map[string]bool{}
		for _, name := range order {
			if done[name] {
				continue
			}
			done[name] = true
			pair := course.Pair[name]
			if pair != "" && course.Rank()(pair) < course.Rank()(name) {
				name, pair = pair, name // the BEFORE first, on the left
			}
			done[pair] = true
			fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td></tr>\n", pairCell(name, groups[name]), pairCell(pair, groups[pair]))
		}
		b.WriteString("</tbody>\n</table>\n")
	}
	if len(sc.Skipped) > 0 {
		// A long list (a class's workers' files) is folded under its count.
		open := map[bool]string{true: " open", false: ""}[len(sc.Skipped) <= foldSkipped]
		fmt.Fprintf(b, "<details class=\"skipped\"%s><summary class=\"fail\">%s not indexed</summary>\n<ul class=\"skipped\">\n",
			open, Plural(len(sc.Skipped), "file"))
		for _, s := range sc.Skipped {
			fmt.Fprintf(b, "<li><code>%s</code>: %s</li>\n", esc(s.Path), esc(s.Reason))
		}
		b.WriteString("</ul>\n</details>\n")
	}
	b.WriteString("</section>\n")
}

// pairCell is a scenario's cell in the summary: a link to its section, and
// how its newest runs (one per student) ended.
func pairCell(name string, runs []Entry) string {
	if name == "" {
		return "<span class=\"muted\">—</span>"
	}
	if len(runs) == 0 {
		return esc(name) + " <span class=\"muted\">(no runs)</span>"
	}
	newest := map[string]Entry{}
	for _, e := range runs {
		if _, ok := newest[e.Student]; !ok {
			newest[e.Student] = e
		}
	}
	pass := 0
	for _, e := range newest {
		if e.ExitCode == 0 && len(e.Disagrees) == 0 && !e.NotRegraded {
			pass++
		}
	}
	class := "pass"
	if pass < len(newest) {
		class = "fail"
	}
	return fmt.Sprintf("<a href=\"#%s\">%s</a> <span class=\"muted\">%s</span><br/><span class=\"%s\">%d of %d passed</span> "+
		"<span class=\"muted\">(%s)</span>", esc(anchor(name)), esc(name), esc(string(runs[0].Kind)), class, pass, len(newest),
		esc(Plural(len(runs), "run")))
}

// figureAlt says what a figure shows: its SVG's title (the run's caption
// and the figure's title), or its file name when it has none.
func figureAlt(dir, rel string) string {
	if t := svgTitle(filepath.Join(dir, filepath.FromSlash(rel))); t != "" {
		return t
	}
	return strings.TrimSuffix(rel[strings.LastIndex(rel, "/")+1:], ".svg")
}
