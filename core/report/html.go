package report

import (
	"cmp"
	"fmt"
	"html"
	"path/filepath"
	"slices"
	"strings"
)

// The pages are static, well-formed XHTML-compatible HTML: no script, no
// external font or style, figures as <img> of the SVG files beside the
// reports (an SVG in an <img> runs no script). They are written to be read
// projected: large type, dark on white, nothing wider than the window.
const pageCSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;font-size:18px;
line-height:1.4;color:#111;background:#fff;margin:0 auto;padding:16px 24px;max-width:1800px}
h1{font-size:28px;margin:8px 0}h2{font-size:22px;margin:28px 0 8px;border-bottom:2px solid #ccc}
table{border-collapse:collapse;width:100%;table-layout:auto}
th,td{border:1px solid #bbb;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word}
.runs td.n,.runs th.n{white-space:nowrap}
.body td{overflow-wrap:anywhere}
th{background:#eee}
pre{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:15px;white-space:pre-wrap;
overflow-wrap:anywhere;margin:4px 0}
.body table{font-size:14px;font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace}
.pass{color:#075e07;font-weight:bold}.fail{color:#a00000;font-weight:bold}
.verdict{font-size:22px;padding:8px 12px;border:3px solid #075e07}
.verdict.fail{border-color:#a00000}
.figs img,.figure img{display:block;width:100%;max-width:100%;height:auto;border:1px solid #ddd;margin:8px 0}
.muted{color:#555}
code.flag{font-size:16px}code.flag span,code.shown{white-space:nowrap}code.shown{color:#555}
.runs tr.disagrees td{background:#fff4f4}
.result{font-size:22px;padding:6px 0}
ul.checks{list-style:none;padding-left:8px;font-size:18px}ul.checks li{margin:2px 0}
nav.toc ul{columns:3;padding-left:20px;font-size:16px;margin:0}nav.toc li{break-inside:avoid}
nav.toc p{margin:8px 0 0}nav.toc{margin-bottom:20px}
ul.skipped{font-size:16px}
.pairs td{width:50%}
`

func esc(s string) string { return html.EscapeString(s) }

// url escapes a relative path for an attribute, segment by segment.
func url(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = strings.NewReplacer("%", "%25", " ", "%20", "#", "%23", "?", "%3F").Replace(p)
	}
	return esc(strings.Join(parts, "/"))
}

func pageStart(b *strings.Builder, title string) {
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"+
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"+
		"<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", esc(title), pageCSS)
}

func resultClass(exit int) string {
	if exit == 0 {
		return "pass"
	}
	return "fail"
}

// flagsHTML is the flags not at their default, each kept whole on its line
// (a flag is never broken inside its name; the page breaks between flags).
func flagsHTML(e Entry) string {
	switch {
	case !e.ParamsKnown:
		return "unknown (older report)"
	case len(e.Flags) == 0 && len(e.Shown) == 0:
		return "defaults"
	}
	var parts []string
	for _, f := range e.Flags {
		// A flag never breaks inside its name; a long list of values may
		// break after a comma, so that no flag is wider than the window.
		pieces := strings.SplitAfter(f, ",")
		for i, p := range pieces {
			pieces[i] = "<span>" + esc(p) + "</span>"
		}
		parts = append(parts, "<code class=\"flag\">"+strings.Join(pieces, "")+"</code>")
	}
	for _, f := range e.Shown {
		parts = append(parts, "<code class=\"flag shown\" title=\"what the body shows, not what ran\">"+esc(f)+"</code>")
	}
	return strings.Join(parts, " ")
}

// flagsText is the flags as one line of text.
func flagsText(e Entry) string {
	switch {
	case !e.ParamsKnown:
		return "unknown (older report)"
	case len(e.Flags) == 0 && len(e.Shown) == 0:
		return "defaults"
	}
	return strings.Join(append(slices.Clone(e.Flags), e.Shown...), " ")
}

// anchor is a scenario's id on the index page.
func anchor(scenario string) string { return "s-" + scenario }

// IndexHTML renders the class index: a class summary first (every BEFORE
// beside its AFTER, in course order, and every skipped file with why), then
// one section per scenario in course order, one row per report, newest
// first, each with its figures full width below it.
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
		fmt.Fprintf(&b, "<section id=\"%s\">\n<h2>%s <span class=\"muted\">%s</span></h2>\n<table class=\"runs\">\n",
			esc(anchor(name)), esc(name), esc(string(Dash(string(g[0].Kind)))))
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
			fmt.Fprintf(&b, "<tr class=\"%s\"><td class=\"n %s\">%d/%d</td><td>%s%s</td><td class=\"n %s\">%d</td>",
				class, resultClass(e.ExitCode), e.ChecksPassed, e.ChecksTotal, esc(e.Verdict), disagreeNote(e),
				resultClass(e.ExitCode), e.ExitCode)
			if withWho {
				fmt.Fprintf(&b, "<td class=\"n\">%s</td>", esc(Dash(e.Student)))
			}
			fmt.Fprintf(&b, "<td>%s</td><td class=\"n\">%s</td>"+
				"<td class=\"n\"><a href=\"%s\">page</a> · <a href=\"%s\">text</a></td></tr>\n",
				flagsHTML(e), e.Started.UTC().Format("2006-01-02 15:04:05"), url(e.HTML), url(e.Report))
			if len(e.Figures) > 0 {
				fmt.Fprintf(&b, "<tr class=\"figs\"><td colspan=\"%d\">", cols)
				for _, f := range e.Figures {
					fmt.Fprintf(&b, "<img src=\"%s\" alt=\"%s\"/>", url(f), esc(figureAlt(dir, f)))
				}
				b.WriteString("</td></tr>\n")
			}
		}
		b.WriteString("</tbody>\n</table>\n</section>\n")
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// disagreeNote marks a report whose header disagrees with its body.
func disagreeNote(e Entry) string {
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
		if n := len(sum.HeaderDisagrees); n == 1 {
			b.WriteString("; 1 header disagrees with its own body (edited by hand)")
		} else if n > 1 {
			fmt.Fprintf(b, "; %d headers disagree with their own body (edited by hand)", n)
		}
		b.WriteString(".</p>\n")
	}
	if len(order) > 0 {
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
		fmt.Fprintf(b, "<p class=\"fail\">%s not indexed:</p>\n<ul class=\"skipped\">\n", Plural(len(sc.Skipped), "file"))
		for _, s := range sc.Skipped {
			fmt.Fprintf(b, "<li><code>%s</code>: %s</li>\n", esc(s.Path), esc(s.Reason))
		}
		b.WriteString("</ul>\n")
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
		if e.ExitCode == 0 && len(e.Disagrees) == 0 {
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

// ReportHTML renders a report's HTML twin: its verdict and checks first,
// with links to every section, then the same body (text as preformatted
// lines, tables as tables), each figure after the text block that holds its
// title (titles[i] is e.Figures[i]'s and alts[i] says what it shows; the
// rest at the end). up leads from the twin's folder back to the report directory.
func ReportHTML(e Entry, body string, up string, titles, alts []string) string {
	var b strings.Builder
	pageStart(&b, e.Scenario+" — "+e.Started.UTC().Format("2006-01-02 15:04:05"))
	who := ""
	if e.Student != "" {
		who = " · student " + esc(e.Student)
	}
	fmt.Fprintf(&b, "<p class=\"muted\"><a href=\"%sindex.html\">all reports</a> · <a href=\"%s\">text report</a> · "+
		"run %s UTC%s · flags: %s · checks %d/%d · exit %d</p>\n",
		esc(up), url(up+e.Report), e.Started.UTC().Format("2006-01-02 15:04:05"), who, flagsHTML(e),
		e.ChecksPassed, e.ChecksTotal, e.ExitCode)
	items := Items(body)
	start := 0
	if len(items) > 1 && LooksLikeBody(body) {
		fmt.Fprintf(&b, "<h1>%s</h1>\n", esc(items[0].Line))
		start = 2 // the title and its underline
	}
	resultFirst(&b, e, body, items)
	b.WriteString("<div class=\"body\">\n")
	var (
		pre     []string
		pending []int // figures whose title is in pre
		placed  = map[int]bool{}
		section = 0
	)
	img := func(i int) string {
		return fmt.Sprintf("<p class=\"figure\"><img src=\"%s\" alt=\"%s\"/></p>\n", url(up+e.Figures[i]), esc(alts[i]))
	}
	flush := func() {
		if len(pre) > 0 {
			fmt.Fprintf(&b, "<pre>%s</pre>\n", strings.Join(pre, "\n"))
			pre = nil
		}
		for _, i := range pending {
			b.WriteString(img(i))
			placed[i] = true
		}
		pending = nil
	}
	for i := start; i < len(items); i++ {
		it := items[i]
		switch {
		case it.Table != nil:
			flush()
			writeTable(&b, it.Table)
		case strings.HasPrefix(it.Line, "## "):
			flush()
			section++
			fmt.Fprintf(&b, "<h2 id=\"sec-%d\">%s</h2>\n", section, esc(strings.TrimPrefix(it.Line, "## ")))
		case strings.HasPrefix(it.Line, "VERDICT: "):
			flush()
			fmt.Fprintf(&b, "<p class=\"verdict %s\">%s</p>\n", resultClass(e.ExitCode), esc(it.Line))
		case it.Line == "":
			flush()
		case checkLine.MatchString(it.Line):
			m := checkLine.FindStringSubmatch(it.Line)
			pre = append(pre, fmt.Sprintf("  <span class=\"%s\">%s</span>  %s", markClass(m[1]), esc(m[1]), esc(m[2])))
		default:
			for f, t := range titles {
				if t != "" && t == strings.TrimSpace(it.Line) && !placed[f] && !slices.Contains(pending, f) {
					pending = append(pending, f)
				}
			}
			pre = append(pre, esc(it.Line))
		}
	}
	flush()
	b.WriteString("</div>\n")
	if len(placed) < len(e.Figures) {
		b.WriteString("<h2 id=\"figures\">Figures</h2>\n")
		for i := range e.Figures {
			if !placed[i] {
				b.WriteString(img(i))
			}
		}
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

func markClass(mark string) string {
	if mark == MarkPass || mark == MarkReproduced {
		return "pass"
	}
	return "fail"
}

// resultFirst writes what a reader looks for first, above the timeline:
// the verdict, every check with its result, a note when the header
// disagrees with the body, and links to each section of the body.
func resultFirst(b *strings.Builder, e Entry, body string, items []Item) {
	b.WriteString("<section id=\"result\">\n")
	fmt.Fprintf(b, "<p class=\"verdict %s\">VERDICT: %s</p>\n", resultClass(e.ExitCode), esc(BodyVerdict(body)))
	if len(e.Disagrees) > 0 {
		fmt.Fprintf(b, "<p class=\"fail\">⚠ This report's header disagrees with its body: %s. "+
			"What is shown here is the body's.</p>\n", esc(strings.Join(e.Disagrees, "; ")))
	}
	checks := BodyChecks(body)
	if len(checks) > 0 {
		b.WriteString("<ul class=\"checks\">\n")
		for _, c := range checks {
			mark := MarkFail
			switch {
			case e.Kind == Before && c.Passed:
				mark = MarkReproduced
			case e.Kind == Before:
				mark = MarkNotReproduced
			case c.Passed:
				mark = MarkPass
			}
			detail := ""
			if c.Detail != "" {
				detail = " → " + esc(c.Detail)
			}
			fmt.Fprintf(b, "<li><span class=\"%s\">%s</span> %s%s</li>\n", markClass(mark), mark, esc(c.Name), detail)
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("<nav class=\"toc\"><p>In this report:</p><ul>\n")
	section := 0
	for _, it := range items {
		if t, ok := strings.CutPrefix(it.Line, "## "); ok && it.Table == nil {
			section++
			fmt.Fprintf(b, "<li><a href=\"#sec-%d\">%s</a></li>\n", section, esc(t))
		}
	}
	if len(e.Figures) > 0 {
		b.WriteString("<li>figures: beside the text that draws them</li>\n")
	}
	b.WriteString("</ul></nav>\n</section>\n")
}

func writeTable(b *strings.Builder, t *Table) {
	b.WriteString("<table>\n<thead><tr>")
	for _, h := range t.Header {
		fmt.Fprintf(b, "<th>%s</th>", esc(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(b, "<td>%s</td>", esc(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
}
