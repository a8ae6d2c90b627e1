package report

import (
	"strings"
	"unicode/utf8"

	"outboxlab/internal/invocation"
)

// A command the lab prints is never broken across lines: pasted, half of it
// would run. Commands finds the lab's commands in text and holds each
// together with glue in place of its spaces, so that the lab's one line
// breaker (breakLine, under Fit, View, Wrap and WrapLine) sees one word it
// never cuts: a command too wide for the width stands on a line of its own,
// exempt from the width rule as a path is. Unglue turns the glue back into
// spaces; Fit, View, Wrap and WrapLine do it themselves.

// LabName begins every command of the lab that a report body, help or a
// message writes: the report keeps it, the terminal shows how the user
// started the lab instead (see internal/invocation).
const LabName = invocation.Name

// glue stands for a space inside a command: one column wide, as the space,
// but no space to strings.Fields or the line breaker. It is a character of
// the Private Use Area, which no text of the lab holds.
const glue = '\uE000'

// Commands is text with each command of the lab in it started with
// invocation instead of LabName ("go run .", "./outboxlab"; LabName keeps
// it) and glued up to its end, for a line breaker to lay out. A command is
// LabName and a space, where a word may begin (after a space, a bracket or a
// quote), followed by a word isCommand accepts (a command's name, an alias,
// a flag, a <placeholder>); it ends where its line does, or before ", ",
// "; ", " (", ")" or two spaces, which go on in prose or a comment. Text
// that holds glue already is only substituted, not glued.
func Commands(text, invocation string, isCommand func(word string) bool) string {
	if !strings.Contains(text, LabName+" ") {
		return text
	}
	glueIt := !strings.ContainsRune(text, glue)
	var b strings.Builder
	for rest := text; ; {
		i := strings.Index(rest, LabName+" ")
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		after := rest[i+len(LabName)+1:]
		if !startsWord(rest[:i]) || !isCommand(commandWord(after)) {
			b.WriteString(rest[:i+len(LabName)+1])
			rest = after
			continue
		}
		b.WriteString(rest[:i])
		end := commandEnd(after)
		command := invocation + " " + after[:end]
		if glueIt {
			command = strings.ReplaceAll(command, " ", string(glue))
		}
		b.WriteString(command)
		rest = after[end:]
	}
}

// Unglue is text with the glue Commands put in turned back into spaces.
func Unglue(text string) string {
	if !strings.ContainsRune(text, glue) {
		return text
	}
	return strings.ReplaceAll(text, string(glue), " ")
}

// glued reports whether word holds a glued command: the line breaker keeps
// it whole.
func glued(word string) bool { return strings.ContainsRune(word, glue) }

// startsWord reports whether a word may begin after before: at the start,
// or after a space, an opening bracket or a quote (never inside a path,
// /usr/local/bin/outboxlab, or a word, not-outboxlab).
func startsWord(before string) bool {
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return r == ' ' || r == '\n' || r == '\t' || strings.ContainsRune("(<[`'\"", r)
}

// commandWord is the word that begins s, without the punctuation that may
// follow it in prose.
func commandWord(s string) string {
	word, _, _ := strings.Cut(s, " ")
	word, _, _ = strings.Cut(word, "\n")
	return strings.TrimRight(word, ".,;:)\"'`")
}

// commandEnd is where the command s begins ends: its line's end, or before
// the first ", ", "; ", " (", ")" or two spaces.
func commandEnd(s string) int {
	end := len(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		end = i
	}
	for _, stop := range []string{", ", "; ", " (", ")", "  "} {
		if i := strings.Index(s[:end], stop); i >= 0 {
			end = i
		}
	}
	return end
}
