package scenarios

import (
	"fmt"
	"strings"
)

// NoKey is the word a key flag takes for "no key" (--declined-key none).
const NoKey = "none"

// CheckKey is the one rule for every flag that names a key (a payment, an
// entry, a message): the key exactly as seeded, or NoKey for none, which it
// returns as "". An empty value and one with spaces around it are refused
// (docs/CONTRACT.md): " PAY-003" is neither PAY-003 nor none, and guessing
// which was meant hides a typo.
func CheckKey(flag, key string) (string, error) {
	switch {
	case key == NoKey:
		return "", nil
	case key == "":
		return "", fmt.Errorf("--%s is empty (say %s for no key)", flag, NoKey)
	case strings.TrimSpace(key) != key:
		return "", fmt.Errorf("--%s %q has spaces around the key (give it exactly, or %s for no key)", flag, key, NoKey)
	}
	return key, nil
}
