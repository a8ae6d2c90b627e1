package report

import (
	"fmt"
	"html"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The pages are static, well-formed XHTML-compatible HTML: no script, no
// external font or style, figures as <img> of the SVG files beside the
// reports (an SVG in an <img> runs no script). They are written to be read
// projected: large type, dark on white, nothing wider than the window.
const pageCSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;font-size:18px;
line-height:1.4;color:#111;background:#fff;margin:0 auto;padding:16px 24px;max-width:1400px}
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
.figs img,.figure img{max-width:100%;height:auto;border:1px solid #ddd;margin:4px 8px 4px 0}
.figs img{width:46%}
.muted{color:#555}
nav ul{columns:3;padding-left:20px;font-size:15px;margin:0}nav li{break-inside:avoid}
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

func flagsText(e Entry) string {
	switch {
	case !e.ParamsKnown:
		return "unknown (older report)"
	case len(e.Flags) == 0:
		return "defaults"
	}
	return strings.Join(e.Flags, " ")
}

// IndexHTML renders the class index: one section per scenario (by name),
// one row per report (newest first) with its figures below it.
func IndexHTML(entries []Entry, dir string, now time.Time, version string) string {
	var b strings.Builder
	pageStart(&b, "outboxlab reports")
	var order []string
	groups := map[string][]Entry{}
	for _, e := range entries {
		if _, ok := groups[e.Scenario]; !ok {
			order = append(order, e.Scenario)
		}
		groups[e.Scenario] = append(groups[e.Scenario], e)
	}
	slices.Sort(order)
	fmt.Fprintf(&b, "<h1>outboxlab reports</h1>\n<p class=\"muted\">%d reports of %d scenarios in %s, "+
		"newest first; rebuilt %s UTC by outboxlab %s from the report files.</p>\n",
		len(entries), len(order), esc(filepath.Base(dir)), now.UTC().Format("2006-01-02 15:04:05"), esc(version))
	if len(entries) == 0 {
		b.WriteString("<p>No reports yet: run a scenario, or <code>outboxlab all</code>.</p>\n")
	}
	b.WriteString("<nav><p>Scenarios (newest exit code, number of reports):</p><ul>\n")
	for _, name := range order {
		g := groups[name]
		fmt.Fprintf(&b, "<li><a href=\"#%s\">%s</a> <span class=\"%s\">%d</span> ×%d</li>\n",
			esc(name), esc(name), resultClass(g[0].ExitCode), g[0].ExitCode, len(g))
	}
	b.WriteString("</ul></nav>\n")
	for _, name := range order {
		fmt.Fprintf(&b, "<section id=\"%s\">\n<h2>%s</h2>\n<table class=\"runs\">\n", esc(name), esc(name))
		b.WriteString("<thead><tr><th class=\"n\">When (UTC)</th><th class=\"n\">Kind</th><th>Flags not at default</th>" +
			"<th class=\"n\">Checks</th><th>Verdict</th><th class=\"n\">Exit</th><th class=\"n\">Report</th></tr></thead>\n<tbody>\n")
		for _, e := range groups[name] {
			fmt.Fprintf(&b, "<tr class=\"run\"><td class=\"n\">%s</td><td class=\"n\">%s</td><td>%s</td>"+
				"<td class=\"n %s\">%d/%d</td><td>%s</td><td class=\"n %s\">%d</td>"+
				"<td class=\"n\"><a href=\"%s\">page</a> · <a href=\"%s\">text</a></td></tr>\n",
				e.Started.UTC().Format("2006-01-02 15:04:05"), esc(string(Dash(string(e.Kind)))), esc(flagsText(e)),
				resultClass(e.ExitCode), e.ChecksPassed, e.ChecksTotal, esc(e.Verdict),
				resultClass(e.ExitCode), e.ExitCode, url(e.HTML), url(e.Report))
			if len(e.Figures) > 0 {
				b.WriteString("<tr class=\"figs\"><td colspan=\"7\">")
				for _, f := range e.Figures {
					fmt.Fprintf(&b, "<img src=\"%s\" alt=\"%s\"/>", url(f), esc(figureName(f)))
				}
				b.WriteString("</td></tr>\n")
			}
		}
		b.WriteString("</tbody>\n</table>\n</section>\n")
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

func figureName(rel string) string {
	base := strings.TrimSuffix(rel[strings.LastIndex(rel, "/")+1:], ".svg")
	if i := strings.LastIndex(base, "-"); i >= 0 {
		return base[i+1:]
	}
	return base
}

// ReportHTML renders a report's HTML twin: the run's record, then the same
// body (text as preformatted lines, tables as tables), each figure after
// the text block that holds its title (titles[i] is e.Figures[i]'s; the
// rest at the end). up leads from the twin's folder back to the report directory.
func ReportHTML(e Entry, body string, up string, titles []string) string {
	var b strings.Builder
	pageStart(&b, e.Scenario+" — "+e.Started.UTC().Format("2006-01-02 15:04:05"))
	fmt.Fprintf(&b, "<p class=\"muted\"><a href=\"%sindex.html\">all reports</a> · <a href=\"%s\">text report</a> · "+
		"run %s UTC · flags: %s · checks %d/%d · exit %d</p>\n",
		esc(up), url(up+e.Report), e.Started.UTC().Format("2006-01-02 15:04:05"), esc(flagsText(e)),
		e.ChecksPassed, e.ChecksTotal, e.ExitCode)
	b.WriteString("<div class=\"body\">\n")
	items := Items(body)
	var (
		pre     []string
		pending []int // figures whose title is in pre
		placed  = map[int]bool{}
	)
	flush := func() {
		if len(pre) > 0 {
			fmt.Fprintf(&b, "<pre>%s</pre>\n", strings.Join(pre, "\n"))
			pre = nil
		}
		for _, i := range pending {
			fmt.Fprintf(&b, "<p class=\"figure\"><img src=\"%s\" alt=\"%s\"/></p>\n", url(up+e.Figures[i]), esc(figureName(e.Figures[i])))
			placed[i] = true
		}
		pending = nil
	}
	for i := 0; i < len(items); i++ {
		it := items[i]
		switch {
		case it.Table != nil:
			flush()
			writeTable(&b, it.Table)
		case i == 0 && len(items) > 1 && LooksLikeBody(body):
			flush()
			fmt.Fprintf(&b, "<h1>%s</h1>\n", esc(it.Line))
			i++ // the underline
		case strings.HasPrefix(it.Line, "## "):
			flush()
			fmt.Fprintf(&b, "<h2>%s</h2>\n", esc(strings.TrimPrefix(it.Line, "## ")))
		case strings.HasPrefix(it.Line, "VERDICT: "):
			flush()
			fmt.Fprintf(&b, "<p class=\"verdict %s\">%s</p>\n", resultClass(e.ExitCode), esc(it.Line))
		case it.Line == "":
			flush()
		case checkLine.MatchString(it.Line):
			m := checkLine.FindStringSubmatch(it.Line)
			class := "fail"
			if m[1] == "PASS" || m[1] == "REPRODUCED" {
				class = "pass"
			}
			pre = append(pre, fmt.Sprintf("  <span class=\"%s\">%s</span>  %s", class, esc(m[1]), esc(m[2])))
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
		b.WriteString("<h2>Figures</h2>\n")
		for i, f := range e.Figures {
			if !placed[i] {
				fmt.Fprintf(&b, "<p class=\"figure\"><img src=\"%s\" alt=\"%s\"/></p>\n", url(up+f), esc(figureName(f)))
			}
		}
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
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
