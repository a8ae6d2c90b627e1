package cmdutil

import (
	"slices"
	"strings"
)

// Closest returns up to three candidates a mistyped name was probably meant
// to be: the same letters once case and dashes are ignored, one a prefix of
// the other (`session16` → the Day 16 pair), or a few edits away
// (`retry-with-dead-leter`).
func Closest(typed string, candidates []string) []string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
	}
	t := norm(typed)
	if t == "" {
		return nil
	}
	type match struct {
		name string
		dist int
	}
	var found []match
	for _, c := range candidates {
		n := norm(c)
		d := editDistance(t, n)
		switch {
		case strings.HasPrefix(n, t) && len(t) >= 4:
			found = append(found, match{c, 0})
		case d <= max(2, len(t)/5):
			found = append(found, match{c, d})
		}
	}
	slices.SortStableFunc(found, func(a, b match) int { return a.dist - b.dist })
	var out []string
	for _, m := range found {
		if !slices.Contains(out, m.name) && len(out) < 3 {
			out = append(out, m.name)
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// DidYouMean renders suggestions as the end of a one-line error.
func DidYouMean(prefix string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	for i, n := range names {
		names[i] = prefix + n
	}
	return "; did you mean " + strings.Join(names, " or ") + "?"
}
