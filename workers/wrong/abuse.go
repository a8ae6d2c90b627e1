package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// status is the provider call of one claimed message, with the protocol
// abuses that happen around it.
func (w *Worker) status(ctx context.Context, m claimed) (Status, error) {
	switch {
	case bug("floods-provider"):
		for range 199 {
			if _, err := w.lab.Status(m.key, m.id); err != nil {
				return Status{}, err
			}
		}
	case bug("second-call"):
		return w.statusWithSecondCalls(m)
	case bug("holds-transaction"):
		var s Status
		err := w.db.InTx(ctx, func() error {
			var err error
			s, err = w.lab.Status(m.key, m.id) // a lab call inside a transaction
			return err
		})
		return s, err
	}
	return w.lab.Status(m.key, m.id)
}

// statusWithSecondCalls sends the provider call and three clock calls at
// the same moment, so that some arrive while another is outstanding.
func (w *Worker) statusWithSecondCalls(m claimed) (Status, error) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, _, _ = w.lab.call("/v1/clock/now", struct{}{})
		}()
	}
	var s Status
	var err error
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-start
		s, err = w.lab.Status(m.key, m.id)
	}()
	close(start)
	wg.Wait()
	return s, err
}

// vandalise changes what is not the worker's to change.
func (w *Worker) vandalise(ctx context.Context) error {
	now := timeText(w.lab.Now())
	return w.db.InTx(ctx, func() error {
		var err error
		switch {
		case bug("garbage-rows"):
			_, err = w.db.Exec(ctx, `INSERT INTO Payments (PaymentKey, AmountCents, Status, CreatedAtUtc, UpdatedAtUtc)
				VALUES ('PAY-999', 1, 'Paid', $1, $1)`, now)
			if err == nil {
				_, err = w.db.Exec(ctx, `INSERT INTO OutboxMessages (MessageKey, Type, Status, CreatedAtUtc)
					VALUES ('PAY-999', 'Garbage', 'Processed', $1)`, now)
			}
		case bug("drops-table"):
			_, err = w.db.Exec(ctx, `DROP TABLE Payments`)
		case bug("drops-change-log"):
			_, err = w.db.Exec(ctx, `DROP TABLE LabChangeLog`)
		}
		return err
	})
}

// settleWithoutLab marks every live message Processed on the machine's
// clock, without hello or any other call.
func settleWithoutLab(ctx context.Context, cfg Config) error {
	db, err := openDB(ctx, cfg.DBKind, cfg.Database, cfg.BusyTimeoutMS)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	return db.InTx(ctx, func() error {
		_, err := db.Exec(ctx, `UPDATE OutboxMessages SET Status = 'Processed', ProcessedAtUtc = $1
			 WHERE Status IN ('Pending', 'Processing')`, now)
		if err != nil {
			return fmt.Errorf("settle: %w", err)
		}
		return nil
	})
}
