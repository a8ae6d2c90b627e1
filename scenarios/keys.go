package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// NoKey is the word a key flag takes for "no key" (--declined-key none).
const NoKey = "none"

// CheckKey is the one rule for every flag that names a key (a payment, an
// entry, a message): the key exactly as seeded, or NoKey for none, which it
// returns as "". An empty value and one with spaces around it are refused
// (docs/CONTRACT.md): " PAY-003" is neither PAY-003 nor none, and guessing
// which was meant hides a typo. seeded, when given, are the keys the run
// seeds: a key that differs from one of them (or from NoKey) only in letter
// case is refused with the right spelling (pay-003: did you mean PAY-003?),
// never matched silently. A key that is no seeded key in any case is left
// to the caller, which knows what the seeded keys are called.
func CheckKey(flag, key string, seeded ...string) (string, error) {
	switch {
	case key == NoKey:
		return "", nil
	case key == "":
		return "", fmt.Errorf("--%s is empty (say %s for no key)", flag, NoKey)
	case strings.TrimSpace(key) != key:
		return "", fmt.Errorf("--%s %q has spaces around the key (give it exactly, or %s for no key)", flag, key, NoKey)
	}
	if len(seeded) > 0 {
		if err := CheckSpelling(flag, key, append(slices.Clip(seeded), NoKey)); err != nil {
			return "", err
		}
	}
	return key, nil
}

// CheckSpelling is CheckKey's letter-case rule alone, for a flag that names
// one of names but takes no NoKey (ordered's --failing-message names a
// message type): a value that is not one of names but differs from one only
// in letter case is refused naming it; any other value is the caller's.
func CheckSpelling(flag, key string, names []string) error {
	for _, n := range names {
		if n == key {
			return nil
		}
	}
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return fmt.Errorf("--%s %q is not a key (letter case matters); did you mean %s?", flag, key, n)
		}
	}
	return nil
}
