package dialect

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// Bind rewrites ? and :name placeholders as $1, $2, ... and orders args to
// match: each ? takes the next argument that is not a sql.NamedArg, each
// :name the sql.Named argument of that name (the same $n every time the name
// recurs). Quoted text and identifiers, comments and :: casts are left alone.
// A placeholder without an argument is a bug in the statement's writer and
// panics.
func (postgresDialect) Bind(query string, args ...any) (string, []any) {
	var positional []any
	named := map[string]any{}
	for _, a := range args {
		if n, ok := a.(sql.NamedArg); ok {
			named[n.Name] = n.Value
		} else {
			positional = append(positional, a)
		}
	}
	var b strings.Builder
	out := make([]any, 0, len(args))
	number := map[string]int{}
	bind := func(v any) {
		out = append(out, v)
		b.WriteString("$" + strconv.Itoa(len(out)))
	}
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(query[i+1:], c)
			if end < 0 {
				end = len(query) - i - 1
			}
			b.WriteString(query[i : i+end+2])
			i += end + 1
		case c == '-' && strings.HasPrefix(query[i:], "--"):
			end := strings.IndexByte(query[i:], '\n')
			if end < 0 {
				end = len(query) - i
			}
			b.WriteString(query[i : i+end])
			i += end - 1
		case c == ':' && strings.HasPrefix(query[i:], "::"):
			b.WriteString("::")
			i++
		case c == ':' && i+1 < len(query) && isNameStart(query[i+1]):
			j := i + 1
			for j < len(query) && isNamePart(query[j]) {
				j++
			}
			name := query[i+1 : j]
			if n, ok := number[name]; ok {
				b.WriteString("$" + strconv.Itoa(n))
			} else if v, ok := named[name]; ok {
				bind(v)
				number[name] = len(out)
			} else {
				panic(fmt.Sprintf("dialect: bind %q: no argument named %s", query, name))
			}
			i = j - 1
		case c == '?':
			if len(positional) == 0 {
				panic(fmt.Sprintf("dialect: bind %q: more ? than arguments", query))
			}
			bind(positional[0])
			positional = positional[1:]
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), out
}

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isNamePart(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }
