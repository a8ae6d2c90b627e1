package retry

import (
	"fmt"
	"time"
)

// script is how the fake notification gateway treats one notification.
type script int

const (
	healthy script = iota // goes through on the first send
	flaky                 // the first failFirst sends fail at once, then it goes through
	failing               // every send fails at once (503)
	hanging               // every send hangs for the hang time, then times out
)

// send is one line of the gateway's ledger: a call and what came of it.
type send struct {
	seq      int
	at, done time.Time
	consumer string
	key      string
	attempt  int
	ok       bool
	err      string
	short    string // the failure as the timeline says it: "failed (503)", "hung 25 s"
}

// gateway is the fake notification gateway: scripted per key, down during
// an outage window if one is set, and keeping a ledger of every send.
type gateway struct {
	scripts   map[string]script
	failFirst int           // sends a flaky notification fails before it goes through
	sendTime  time.Duration // how long a send takes, failed or not
	hangTime  time.Duration // how long a hanging send takes before it times out
	downFrom  time.Time     // outage window [downFrom, downUntil); zero: never down
	downUntil time.Time
	calls     map[string]int
	ledger    []send
}

func newGateway(sendTime, hangTime time.Duration) *gateway {
	return &gateway{scripts: map[string]script{}, calls: map[string]int{}, sendTime: sendTime, hangTime: hangTime}
}

// down reports whether the gateway is in its outage at t.
func (g *gateway) down(t time.Time) bool {
	return !g.downFrom.IsZero() && !t.Before(g.downFrom) && t.Before(g.downUntil)
}

// send records a call for key made at at and returns its ledger line; the
// result is known at done.
func (g *gateway) send(consumer, key string, attempt int, at time.Time) send {
	g.calls[key]++
	s := send{seq: len(g.ledger) + 1, at: at, done: at.Add(g.sendTime), consumer: consumer, key: key, attempt: attempt, ok: true}
	switch sc := g.scripts[key]; {
	case g.down(at):
		s.ok, s.err, s.short = false, "gateway down (503)", "failed (503, down)"
	case sc == failing, sc == flaky && g.calls[key] <= g.failFirst:
		s.ok, s.err, s.short = false, "gateway rejected the send (503)", "failed (503)"
	case sc == hanging:
		s.done = at.Add(g.hangTime)
		s.ok, s.err = false, fmt.Sprintf("send timed out after %s", clockText(g.hangTime))
		s.short = "hung " + clockText(g.hangTime)
	}
	g.ledger = append(g.ledger, s)
	return s
}

// delivered counts the sends of key that went through: notifications the
// customer received.
func (g *gateway) delivered(key string) int {
	n := 0
	for _, s := range g.ledger {
		if s.key == key && s.ok {
			n++
		}
	}
	return n
}

func (sc script) String() string {
	switch sc {
	case flaky:
		return "flaky"
	case failing:
		return "always fails"
	case hanging:
		return "hangs"
	}
	return "healthy"
}
