package grade

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"outboxlab/grade/dayspec"
	"outboxlab/scenarios/wassal"
)

// A case is one of a Day's variations, written as the JSON of the fields
// that differ from the Day's defaults (--case '{"Payments":2}'): the
// smallest failing case a grade found, replayed with exactly its numbers.

// caseStream is the stream of the seed that chooses who runs next in a
// case (the variations use 0, 1, …): the search and --case replay alike.
const caseStream = 1 << 32

// caseJSON is v as the fields that differ from d's defaults.
func caseJSON(d *dayspec.Day, v dayspec.Variation) string {
	def, cur := fields(d.Defaults), fields(v)
	diff := map[string]any{}
	for k, x := range cur {
		if !reflect.DeepEqual(x, def[k]) {
			diff[k] = x
		}
	}
	raw, _ := json.Marshal(diff) // a map of JSON values: keys sorted
	return string(raw)
}

// fields are v's exported fields as JSON values (a Policy's flattened).
func fields(v dayspec.Variation) map[string]any {
	raw, _ := json.Marshal(v)
	m := map[string]any{}
	json.Unmarshal(raw, &m)
	return m
}

// ParseCase is the variation text describes: d's defaults with the fields
// text sets (a JSON object of the variation's fields, as a grade's
// smallest failing case prints it).
func ParseCase(d *dayspec.Day, text string) (dayspec.Variation, error) {
	// A fresh copy of the defaults (decoding into the Day's own would
	// share its slices), then the case's fields over it.
	p := reflect.New(reflect.TypeOf(d.Defaults))
	def, err := json.Marshal(d.Defaults)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(def, p.Interface()); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p.Interface()); err != nil {
		return nil, fmt.Errorf("--case %s: %v (want a JSON object of %s's fields, as grade prints it)", text, err, d.ID)
	}
	if dec.More() {
		return nil, fmt.Errorf("--case %s: one JSON object, nothing after it", text)
	}
	v := p.Elem().Interface().(dayspec.Variation)
	if c := v.Common(); c.Payments < 1 || c.Payments > 999 || c.Workers < 1 || c.Workers > 8 || c.MaxAttempts < 1 {
		return nil, fmt.Errorf("--case %s: want 1 to 999 payments, 1 to 8 workers, MaxAttempts 1 or more", text)
	}
	for _, k := range keysIn(fields(v)) {
		if n := keyNumber(k); n > v.Common().Payments {
			return nil, fmt.Errorf("--case %s: %s is past the %d payments seeded", text, k, v.Common().Payments)
		}
	}
	return v, nil
}

// paymentKey is a key the lab seeds: PAY-001 on.
var paymentKey = regexp.MustCompile(`^PAY-\d{3}$`)

// keysIn are the payment keys a variation's fields name (its kinds of
// key: poison, declined, transient, a fault's), once each, in order.
func keysIn(m map[string]any) []string {
	var keys []string
	var walk func(x any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			if paymentKey.MatchString(x) && !slices.Contains(keys, x) {
				keys = append(keys, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, k := range sortedKeys(m) {
		walk(m[k])
	}
	slices.SortFunc(keys, func(a, b string) int { return keyNumber(a) - keyNumber(b) })
	return keys
}

func keyNumber(k string) int {
	var n int
	fmt.Sscanf(k, "PAY-%d", &n)
	return n
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// smaller are the runs the search tries instead of v, most shrinking
// first: one worker; the keys of each kind renumbered from PAY-001 with no
// other payment (or one healthy one); each kind's key list cut to one, each
// kind removed; a payment fewer; MaxAttempts 2; other counts 1. A
// candidate the Day cannot run, or that passes the check, is not taken.
func smaller(d *dayspec.Day, v dayspec.Variation) []dayspec.Variation {
	cur := fields(v)
	var out []map[string]any
	with := func(edit func(m map[string]any) bool) {
		m := clone(cur)
		if edit(m) {
			out = append(out, m)
		}
	}
	num := func(m map[string]any, k string) int { f, _ := m[k].(float64); return int(f) }
	with(func(m map[string]any) bool { m["Workers"] = 1.0; return num(cur, "Workers") > 1 })
	keys := keysIn(cur)
	for _, extra := range []int{0, 1} {
		with(func(m map[string]any) bool {
			renumber(m, keys)
			m["Payments"] = float64(len(keys) + extra)
			return len(keys)+extra < num(cur, "Payments") && len(keys)+extra > 0
		})
	}
	for _, k := range sortedKeys(cur) {
		switch x := cur[k].(type) {
		case []any:
			with(func(m map[string]any) bool { m[k] = x[:min(len(x), 1)]; return len(x) > 1 })
			with(func(m map[string]any) bool { m[k] = []any{}; return len(x) > 0 })
		case string:
			with(func(m map[string]any) bool { m[k] = ""; return paymentKey.MatchString(x) })
		case float64:
			switch k {
			case "Payments":
				with(func(m map[string]any) bool {
					m[k] = x - 1
					return len(keys) == 0 || keyNumber(keys[len(keys)-1]) < int(x)
				})
			case "MaxAttempts":
				with(func(m map[string]any) bool { m[k] = 2.0; return x > 2 })
			case "Workers", "Batch", "BaseBackoff", "MaxBackoff", "Lease":
			default:
				if !strings.HasPrefix(k, "Redrive") || k == "RedriveMore" {
					with(func(m map[string]any) bool { m[k] = 1.0; return x > 1 && x < 1e6 })
				}
			}
		}
	}
	var vs []dayspec.Variation
	for _, m := range out {
		raw, _ := json.Marshal(m)
		if c, err := ParseCase(d, string(raw)); err == nil && !reflect.DeepEqual(fields(c), cur) {
			vs = append(vs, c)
		}
	}
	return vs
}

// renumber names the keys of m's kinds PAY-001, PAY-002, … in their order.
func renumber(m map[string]any, keys []string) {
	to := map[string]string{}
	for i, k := range keys {
		to[k] = wassal.PaymentKey(i + 1)
	}
	var walk func(x any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case string:
			if n, ok := to[x]; ok {
				return n
			}
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = walk(e)
			}
			return out
		}
		return x
	}
	for k, x := range m {
		m[k] = walk(x)
	}
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	return out
}
