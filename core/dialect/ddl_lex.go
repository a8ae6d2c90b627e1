package dialect

import (
	"fmt"
	"strings"
)

// The tokens of PostgresDDL's input: just enough of SQLite's lexical rules
// for DDL (words, numbers, 'strings', "quoted" [names], comments, punctuation).

type tokenKind int

const (
	tokWord   tokenKind = iota // a keyword or an unquoted name
	tokNumber                  // 0, 5, 1.5
	tokString                  // 'text', quotes included
	tokQuoted                  // "name", [name] or `name`, quotes included
	tokPunct                   // ( ) , ; and operators
)

type token struct {
	kind tokenKind
	text string
}

// unquoted is a name token's name without its quotes.
func (t token) unquoted() string {
	if t.kind != tokQuoted {
		return t.text
	}
	inner := t.text[1 : len(t.text)-1]
	if t.text[0] == '"' {
		inner = strings.ReplaceAll(inner, `""`, `"`)
	}
	return inner
}

func lex(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(s[i:], "--"):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				end = len(s) - i
			}
			i += end
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("translate DDL to PostgreSQL: unterminated comment")
			}
			i += end + 4
		case c == '\'' || c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], closer)
				if k < 0 {
					return nil, fmt.Errorf("translate DDL to PostgreSQL: unterminated %c", c)
				}
				j += k + 1
				if closer != ']' && j < len(s) && s[j] == closer { // doubled quote
					j++
					continue
				}
				break
			}
			kind := tokQuoted
			if c == '\'' {
				kind = tokString
			}
			out = append(out, token{kind, s[i:j]})
			i = j
		case isNameStart(c):
			j := i + 1
			for j < len(s) && (isNamePart(s[j]) || s[j] == '$') {
				j++
			}
			out = append(out, token{tokWord, s[i:j]})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E') {
				j++
			}
			out = append(out, token{tokNumber, s[i:j]})
			i = j
		default:
			n := 1
			for _, op := range []string{"<>", "<=", ">=", "!=", "==", "||"} {
				if strings.HasPrefix(s[i:], op) {
					n = 2
				}
			}
			if !strings.ContainsRune("(),;<>=!|+-*/%.", rune(c)) {
				return nil, fmt.Errorf("translate DDL to PostgreSQL: unexpected %q", c)
			}
			text := s[i : i+n]
			if text == "==" {
				text = "=" // SQLite's other equals
			}
			out = append(out, token{tokPunct, text})
			i += n
		}
	}
	return out, nil
}

// splitStatements splits toks at top-level semicolons, dropping empty statements.
func splitStatements(toks []token) [][]token {
	var out [][]token
	start := 0
	for i, t := range toks {
		if t.kind == tokPunct && t.text == ";" {
			if i > start {
				out = append(out, toks[start:i])
			}
			start = i + 1
		}
	}
	if start < len(toks) {
		out = append(out, toks[start:])
	}
	return out
}

// splitTop splits toks at commas outside parentheses.
func splitTop(toks []token) [][]token {
	var out [][]token
	depth, start := 0, 0
	for i, t := range toks {
		if t.kind != tokPunct {
			continue
		}
		switch t.text {
		case "(":
			depth++
		case ")":
			depth--
		case ",":
			if depth == 0 {
				out = append(out, toks[start:i])
				start = i + 1
			}
		}
	}
	return append(out, toks[start:])
}

func joinTokens(toks []token) string {
	texts := make([]string, len(toks))
	for i, t := range toks {
		texts[i] = t.text
	}
	return joinText(texts)
}

// joinText joins tokens with single spaces, but none inside parentheses'
// edges or before a comma.
func joinText(texts []string) string {
	var b strings.Builder
	for i, t := range texts {
		if i > 0 && texts[i-1] != "(" && t != ")" && t != "," && !(t == "(" && isFuncName(texts[i-1])) {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

// isFuncName reports whether a word before "(" reads as a call (lower(x)),
// not a keyword (IN (...)).
func isFuncName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	switch strings.ToUpper(s) {
	case "IN", "AND", "OR", "NOT", "CHECK", "EXISTS", "WHERE", "ON":
		return false
	}
	return true
}

// parser walks one statement's tokens.
type parser struct {
	toks []token
	pos  int
}

func (p *parser) done() bool { return p.pos >= len(p.toks) }

func (p *parser) next() (token, bool) {
	if p.done() {
		return token{}, false
	}
	p.pos++
	return p.toks[p.pos-1], true
}

func (p *parser) rest() []token {
	r := p.toks[p.pos:]
	p.pos = len(p.toks)
	return r
}

// head is what comes next, a few tokens of it, for a message.
func (p *parser) head() string {
	if p.done() {
		return "end of statement"
	}
	return p.headOf(p.toks[p.pos:])
}

func (p *parser) headOf(toks []token) string {
	if len(toks) > 4 {
		return joinTokens(toks[:4]) + " ..."
	}
	return joinTokens(toks)
}

func (p *parser) peekWord(w string) bool {
	return !p.done() && p.toks[p.pos].kind == tokWord && strings.EqualFold(p.toks[p.pos].text, w)
}

func (p *parser) peekWords(ws ...string) bool {
	for i, w := range ws {
		j := p.pos + i
		if j >= len(p.toks) || p.toks[j].kind != tokWord || !strings.EqualFold(p.toks[j].text, w) {
			return false
		}
	}
	return true
}

// word consumes w (a keyword, any case) if it comes next.
func (p *parser) word(w string) bool {
	if p.peekWord(w) {
		p.pos++
		return true
	}
	return false
}

// words consumes ws if they all come next.
func (p *parser) words(ws ...string) bool {
	if p.peekWords(ws...) {
		p.pos += len(ws)
		return true
	}
	return false
}

func (p *parser) peekPunct(s string) bool {
	return !p.done() && p.toks[p.pos].kind == tokPunct && p.toks[p.pos].text == s
}

func (p *parser) punct(s string) bool {
	if p.peekPunct(s) {
		p.pos++
		return true
	}
	return false
}

// name consumes a name: a word or a quoted name.
func (p *parser) name() (token, bool) {
	if p.done() || (p.toks[p.pos].kind != tokWord && p.toks[p.pos].kind != tokQuoted) {
		return token{}, false
	}
	p.pos++
	return p.toks[p.pos-1], true
}

// parens consumes a balanced ( ... ) and returns what is inside.
func (p *parser) parens() ([]token, bool) {
	if !p.peekPunct("(") {
		return nil, false
	}
	depth := 0
	for i := p.pos; i < len(p.toks); i++ {
		if p.toks[i].kind != tokPunct {
			continue
		}
		switch p.toks[i].text {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				inner := p.toks[p.pos+1 : i]
				p.pos = i + 1
				return inner, true
			}
		}
	}
	return nil, false
}
