package report

import "strings"

// bom is the UTF-8 byte-order mark an editor on Windows may put first.
const bom = "\uFEFF"

// Normalize is a report's text as the lab wrote it, from a copy that went
// through an editor or a mail client: a leading byte-order mark dropped,
// CRLF (and lone CR) line ends made LF, and the final newline a copy lost
// put back. Nothing else changes: an edit of a line still shows.
func Normalize(text string) string {
	text = strings.TrimPrefix(text, bom)
	if strings.Contains(text, "\r") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text
}
