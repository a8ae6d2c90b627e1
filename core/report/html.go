package report

import (
	"fmt"
	"html"
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
.pass{color:#075e07;font-weight:bold}.fail{color:#a00000;font-weight:bold}.idle{color:#7a5a00;font-weight:bold}
.verdict{font-size:22px;padding:8px 12px;border:3px solid #075e07}
.verdict.fail{border-color:#a00000}.verdict.idle{border-color:#7a5a00}
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
.why{font-weight:normal;color:#111;font-size:16px}
#grid{margin:8px 0 16px}
table.grid{table-layout:fixed;margin:0 0 12px}table.grid th,table.grid td{overflow-wrap:anywhere;font-size:17px}
table.grid th.who{width:18%}table.grid thead th{font-size:15px;font-weight:normal}
table.grid thead th a{font-weight:bold}
.cell a{display:block;text-decoration:none;color:inherit}.cell .checks{font-weight:normal}
.cell.pass{background:#e3f3e3}.cell.fail{background:#fbe1e1}.cell.idle{background:#fff1c7}.cell.none{background:#f6f6f6}
details.scenario{margin:12px 0;border-top:2px solid #ccc}
details.scenario>summary{cursor:pointer;padding:4px 0}
details.scenario>summary h2{display:inline;border:0;margin:0;font-size:21px}
@media (max-width:1000px){body{font-size:16px;padding:8px 10px}.runs td.n,.runs th.n{white-space:normal}
.runs td,.runs th{overflow-wrap:anywhere}code.flag{font-size:14px}
table.grid th,table.grid td{font-size:15px;padding:3px 4px}th,td{padding:3px 5px}
h1{font-size:24px}pre{font-size:13px}.body table{font-size:12px}nav.toc ul{columns:1}}
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

// resultClass is the class of a run's result: pass (exit 0), idle (its
// mechanism was not exercised: exit 1, but nothing broke), else fail.
func resultClass(e Entry) string {
	switch {
	case e.ExitCode == 0 && e.NotRegraded:
		return "idle"
	case e.ExitCode == 0:
		return "pass"
	case NotExercisedVerdict(e.Verdict) && len(e.Disagrees) == 0:
		return "idle"
	}
	return "fail"
}

// checksText is a run's checks as the index and a twin show them: passed of
// all, and how many were not exercised.
func checksText(e Entry) string {
	s := fmt.Sprintf("%d/%d", e.ChecksPassed, e.ChecksTotal)
	if e.ChecksNotExercised > 0 {
		s += fmt.Sprintf(" (%d %s)", e.ChecksNotExercised, MarkNotExercised)
	}
	return s
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
		"run %s UTC%s · flags: %s · checks %s · exit %d</p>\n",
		esc(up), url(up+e.Report), e.Started.UTC().Format("2006-01-02 15:04:05"), who, flagsHTML(e),
		esc(checksText(e)), e.ExitCode)
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
			fmt.Fprintf(&b, "<p class=\"verdict %s\">%s</p>\n", resultClass(e), esc(it.Line))
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
	switch {
	case MarkPassed(mark):
		return "pass"
	case mark == MarkNotExercised:
		return "idle"
	}
	return "fail"
}

// resultFirst writes what a reader looks for first, above the timeline:
// the verdict, every check with its result, a note when the header
// disagrees with the body, and links to each section of the body.
func resultFirst(b *strings.Builder, e Entry, body string, items []Item) {
	b.WriteString("<section id=\"result\">\n")
	shown := e
	shown.Verdict = BodyVerdict(body)
	fmt.Fprintf(b, "<p class=\"verdict %s\">VERDICT: %s</p>\n", resultClass(e), verdictHTML(shown))
	if len(e.Disagrees) > 0 {
		fmt.Fprintf(b, "<p class=\"fail\">⚠ This report's header disagrees with its body: %s. "+
			"What is shown here is the body's.</p>\n", esc(strings.Join(e.Disagrees, "; ")))
	}
	checks := BodyChecks(body)
	kind := e.Kind
	if kind == "" { // an older report without a record: its body's marks tell
		kind = KindOf(Doc{Body: body})
	}
	if len(checks) > 0 {
		b.WriteString("<ul class=\"checks\">\n")
		for _, c := range checks {
			mark := Mark(kind, c)
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
