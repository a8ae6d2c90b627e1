package scenarios

import (
	"slices"
	"strings"
)

// familyOrder is the order a student should meet the families in: the
// payments course's Days first, then the retry experiments, ordered
// messages, governance, and the throughput measurement last.
var familyOrder = []string{"wassal", "retry", "ordered", "governance", "workers"}

// courseOrder is the order of the scenarios within their families: Days
// ascending, each BEFORE immediately followed by its AFTER, then each
// source's experiments in the order its text teaches them. Every registered
// scenario is named here (TestEveryScenarioHasItsPlaceInTheCourse requires
// it); the name order only breaks ties for one that is not.
var courseOrder = []string{
	// Wassal: the payments course, Days 13-17, then Day 18, the lab's own
	// continuation (the hosted worker the Day 16 article points to).
	"session-13-pending-lost-on-restart", "session-13-durable-reconciliation",
	"session-14-dual-write-loses-message", "session-14-transactional-outbox",
	"session-15-double-processing-without-lease", "session-15-outbox-leasing",
	"session-16-poison-message-retried-forever", "session-16-retry-with-dead-letter",
	"session-17-blind-redrive", "session-17-audited-redrive",
	"session-18-long-handler-loses-lease", "session-18-lease-renewal",
	"session-18-shutdown-abandons-work", "session-18-graceful-shutdown",
	"session-18-polling-idle-workers", "session-18-woken-on-new-work",
	// Poison Messages and Retry: the counter, the schedules, jitter, the
	// visibility timeout, the breaker.
	"poison-counter", "poison-body-validation", "backoff-schedules", "jitter-wave",
	"backoff-held-past-visibility-timeout", "backoff-on-queue-timeline",
	"retry-storm-without-breaker", "circuit-breaker",
	// Dead letters and ordered messages.
	"ordered-orphan", "ordered-depends-on",
	"ordered-crash-cascade", "ordered-remember-poisoned-ids",
	"ordered-silent-corruption", "ordered-replay-in-order",
	"ordered-block-key-not-partition", "ordered-publish-failure-event",
	"ordered-permanent-vs-transient",
	// Governance outbox poison-message controls.
	"governance-threshold", "governance-legacy-max-retry-count", "governance-deferred-results",
	"governance-dead-letter-alerts", "governance-dead-letter-disabled",
	"governance-stale-claim-overwrites", "governance-fenced-claim", "governance-host-replay",
	// Many writers.
	"worker-throughput",
}

// rank places a name in an order: its index, or after every named one.
func rank(order []string, name string) int {
	if i := slices.Index(order, name); i >= 0 {
		return i
	}
	return len(order)
}

// compareCourse orders scenarios as a student should meet them.
func compareCourse(a, b *Scenario) int {
	if c := rank(familyOrder, a.Family) - rank(familyOrder, b.Family); c != 0 {
		return c
	}
	if c := strings.Compare(a.Family, b.Family); c != 0 {
		return c
	}
	if c := rank(courseOrder, a.Name) - rank(courseOrder, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// StartHere is the scenario a new student runs first.
const StartHere = "session-13-pending-lost-on-restart"

// familyTitles say what each family is, where a student first meets it.
var familyTitles = map[string]string{
	"wassal": "Wassal: Days 13-17 of a distributed-systems course that builds Wassal, a food-delivery " +
		"lab, here its payments (a scenario named session-16-... is Day 16); Day 18 is the lab's own continuation",
	"retry":      "Poison messages and retry: the attempt counter, backoff, jitter, the visibility timeout, the breaker",
	"ordered":    "Dead letters and ordered messages",
	"governance": "Governance outbox: poison-message controls of a host's emission drain",
	"workers":    "Many writers: worker throughput and overload",
}

// FamilyTitle is the line that introduces family in the catalogue and help.
func FamilyTitle(family string) string { return orName(familyTitles, family) }

// familySources name the material each family reproduces, as a report's
// header names it (the README credits each with its license).
var familySources = map[string]string{
	"wassal":     "mohamed Tayel, Fundamentals of Distributed Systems on DEV (Wassal, Days 13-17)",
	"retry":      "\"Poison Messages and Retry\", academia.sh (CC BY-SA 4.0)",
	"ordered":    "\"Dead letters and ordered messages\", a course article",
	"governance": "\"Governance Outbox Poison-Message Controls\", AsiBackbone's outbox documentation",
	"workers":    "the lab's own measurement (SQLite's one writer; PostgreSQL's many)",
}

// Source is the material the scenarios of family reproduce, for the
// "Source" line of their reports' headers.
func Source(family string) string { return orName(familySources, family) }

// orName is what m says of family, or the family's own name when it says nothing.
func orName(m map[string]string, family string) string {
	if s, ok := m[family]; ok {
		return s
	}
	return family
}
