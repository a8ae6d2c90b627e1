package emission

import (
	"context"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/claim"
)

// Pass selects (store mode) or claims (claim mode) up to Batch due entries,
// emits each one and persists what the policy decides. When none is due it
// moves the clock to claim.WakeupSlack past the next retry time or lease end
// instead, or reports Idle when nothing is waiting.
func (d *Drain) Pass(ctx context.Context) (PassResult, error) {
	now := d.clock.Now()
	var claims []Claim
	if d.cfg.Mode == ClaimMode {
		var err error
		if claims, err = d.store.Claim(ctx, d.cfg.Owner, now, d.cfg.Lease, d.cfg.Batch); err != nil {
			return PassResult{}, err
		}
	} else {
		entries, err := d.store.Due(ctx, now, d.cfg.Batch)
		if err != nil {
			return PassResult{}, err
		}
		for _, e := range entries {
			claims = append(claims, Claim{Entry: e, Owner: d.cfg.Owner})
		}
	}
	if len(claims) == 0 {
		return d.wait(ctx, now)
	}
	res := PassResult{Selected: len(claims)}
	if d.cfg.Mode == ClaimMode {
		for _, c := range claims {
			res.Events = append(res.Events, d.emit(Event{Kind: Claimed, At: now, Entry: c.Entry, Token: c.Token, LeaseUntil: c.LeaseUntil}))
		}
	}
	for _, c := range claims {
		ev, err := d.handle(ctx, c)
		if err != nil {
			return res, err
		}
		res.Events = append(res.Events, ev)
	}
	return res, nil
}

func (d *Drain) wait(ctx context.Context, now time.Time) (PassResult, error) {
	due, ok, err := d.store.NextDue(ctx, now)
	if err != nil {
		return PassResult{}, err
	}
	if !ok {
		return PassResult{Idle: true}, nil
	}
	claim.Advance(d.clock, due)
	return PassResult{Events: []Event{d.emit(Event{Kind: Advanced, At: now, Due: due})}}, nil
}

// handle emits one entry and persists the policy's decision: by Id in store
// mode (or when unfenced), checked against the claim in claim mode.
func (d *Drain) handle(ctx context.Context, c Claim) (Event, error) {
	ev := Event{Entry: c.Entry, Token: c.Token, LeaseUntil: c.LeaseUntil, EmittedAt: d.clock.Now()}
	ev.Result, ev.Unexpected = SafeEmit(ctx, d.emitter, c.Entry, ev.EmittedAt)
	if err := ctx.Err(); err != nil {
		return ev, err
	}
	ev.At = d.clock.Now()
	ev.Transition = d.policy.Decide(c.Entry.RetryCount, ev.Result, ev.At)
	var err error
	if d.cfg.Mode == ClaimMode && !d.cfg.Unfenced {
		err = d.store.ApplyClaimed(ctx, c, ev.Transition)
	} else {
		err = d.store.Apply(ctx, c.Entry.ID, d.cfg.Owner, ev.Transition)
	}
	switch {
	case errors.Is(err, ErrNotOwner):
		ev.Kind, ev.Err = Refused, err.Error()
	case err != nil:
		return ev, err
	default:
		ev.Kind = Handled
	}
	return d.emit(ev), nil
}

func (d *Drain) emit(ev Event) Event {
	ev.Drainer, ev.Mode = d.cfg.Owner, d.cfg.Mode
	for _, fn := range d.observers {
		fn(ev)
	}
	return ev
}

// Run passes until the drain is idle or maxPasses passes have run, and
// returns every event. stop, when not nil, is asked after each pass whether
// to end early (a demo cap); stopped reports whether it did.
func (d *Drain) Run(ctx context.Context, maxPasses int, stop func([]Event) bool) (events []Event, stopped bool, err error) {
	for pass := 0; pass < maxPasses; pass++ {
		res, err := d.Pass(ctx)
		events = append(events, res.Events...)
		if err != nil {
			return events, false, err
		}
		if res.Idle {
			return events, false, nil
		}
		if stop != nil && stop(events) {
			return events, true, nil
		}
	}
	return events, false, fmt.Errorf("the %s drain did not settle after %d passes", d.cfg.Mode, maxPasses)
}
