package scenarios

import (
	"strings"
	"testing"
)

// A key is matched exactly; one that differs from a seeded key only in
// letter case is refused naming the right spelling, never matched.
func TestCheckKey(t *testing.T) {
	seeded := []string{"PAY-001", "PAY-002", "PAY-003"}
	tests := []struct {
		key, want, wantErr string
	}{
		{"PAY-003", "PAY-003", ""},
		{"none", "", ""},
		{"pay-003", "", `--poison-key "pay-003" is not a key (letter case matters); did you mean PAY-003?`},
		{"Pay-001", "", "did you mean PAY-001?"},
		{"NONE", "", "did you mean none?"},
		{"", "", "--poison-key is empty (say none for no key)"},
		{" PAY-003", "", "has spaces around the key"},
		// Not a seeded key in any case: the caller says what the keys are.
		{"PAY-009", "PAY-009", ""},
	}
	for _, tt := range tests {
		got, err := CheckKey("poison-key", tt.key, seeded...)
		switch {
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("CheckKey(%q) = %q, %v; want %q, nil", tt.key, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("CheckKey(%q) = %q, %v; want an error containing %q", tt.key, got, err, tt.wantErr)
		}
	}
	// Without seeded keys (a caller that has none to give) case is not judged.
	if got, err := CheckKey("poison-key", "pay-003"); got != "pay-003" || err != nil {
		t.Errorf("CheckKey without seeded keys = %q, %v", got, err)
	}
}
