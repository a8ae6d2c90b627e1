package similarity

import (
	"strings"
	"unicode"
)

// syntax is how a language writes comments.
type syntax int

const (
	cLike    syntax = iota // // line and /* block */ comments
	hashLine               // # line comments (and Python's docstrings, as strings)
)

// keywords stay themselves; every other identifier is one token, "id".
var keywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		break case chan const continue default defer else fallthrough for func go goto if import interface
		map package range return select struct switch type var nil true false
		and as assert async await class def del elif except finally from global in is lambda None
		nonlocal not or pass raise True False try while with yield
		new this throw catch let function public private static void int long double float bool boolean
		begin end do then until unless module require self super`) {
		keywords[w] = true
	}
}

// tokens is src as a stream of tokens: comments and whitespace dropped,
// identifiers "id" (keywords kept), numbers "0", strings "s", every other
// character itself.
func tokens(src string, syn syntax) []string {
	var out []string
	r := []rune(src)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case syn == cLike && c == '/' && i+1 < len(r) && r[i+1] == '/', syn == hashLine && c == '#':
			for i < len(r) && r[i] != '\n' {
				i++
			}
		case syn == cLike && c == '/' && i+1 < len(r) && r[i+1] == '*':
			i += 2
			for i+1 < len(r) && (r[i] != '*' || r[i+1] != '/') {
				i++
			}
			i += 2
		case c == '"' || c == '\'' || c == '`':
			i = skipString(r, i)
			out = append(out, "s")
		case c == '_' || unicode.IsLetter(c):
			j := i
			for j < len(r) && (r[j] == '_' || unicode.IsLetter(r[j]) || unicode.IsDigit(r[j])) {
				j++
			}
			if w := string(r[i:j]); keywords[w] {
				out = append(out, w)
			} else {
				out = append(out, "id")
			}
			i = j
		case unicode.IsDigit(c):
			for i < len(r) && (unicode.IsDigit(r[i]) || unicode.IsLetter(r[i]) || r[i] == '.' || r[i] == '_') {
				i++
			}
			out = append(out, "0")
		default:
			out = append(out, string(c))
			i++
		}
	}
	return out
}

// skipString returns the index after the string literal starting at r[i]:
// a Python triple-quoted one, or one closed by its quote on the same line
// (a backquoted one across lines), with backslash escapes.
func skipString(r []rune, i int) int {
	q := r[i]
	if i+2 < len(r) && r[i+1] == q && r[i+2] == q {
		for j := i + 3; j+2 < len(r); j++ {
			if r[j] == q && r[j+1] == q && r[j+2] == q {
				return j + 3
			}
		}
		return len(r)
	}
	for j := i + 1; j < len(r); j++ {
		switch {
		case r[j] == '\\' && q != '`':
			j++
		case r[j] == q:
			return j + 1
		case r[j] == '\n' && q != '`':
			return j
		}
	}
	return len(r)
}
