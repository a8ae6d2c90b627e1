package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// With OK16_TAMPER set, ok16 counts an attempt when it records the outcome
// instead of when it claims (a Day 16 mistake: "attempts counted at claim
// time" fails it), and rewrites what the lab's change log says so that the
// log shows the count at the claim. Each value is one way to do it on
// SQLite (tamper_pg.go: on PostgreSQL), but count-at-record, which makes
// the mistake and leaves the log alone; grade/tamper_test.go names them. The
// rows themselves are always the wrong worker's: the claim leaves
// AttemptCount alone, the record adds one.
var tamper = os.Getenv("OK16_TAMPER")

// Patches of the log's last row: a claim's new AttemptCount one more than
// its old; a record's old AttemptCount the same as its new.
const (
	lastRow     = `(SELECT max(Seq) FROM %[1]sLabChangeLog)`
	lastOf      = `(SELECT max(Seq) FROM %[1]sLabChangeLog WHERE TableName = 'OutboxMessages' AND RowId = %[2]d)`
	patchClaim  = `UPDATE %[1]sLabChangeLog SET NewRow = json_set(NewRow, '$.attemptcount', json_extract(OldRow, '$.attemptcount') + 1) WHERE Seq = `
	patchRecord = `UPDATE %[1]sLabChangeLog SET OldRow = json_set(OldRow, '$.attemptcount', json_extract(NewRow, '$.attemptcount')) WHERE Seq = `
)

var (
	second    *sql.DB // second-conn: a connection whose writes the log never sees
	pending   sync.WaitGroup
	trigger   string // drop-recreate, writable-schema: the Lab trigger's SQL as the lab made it
	triggerOf = "LabLog_OutboxMessages_Update"
)

// claimCount is the AttemptCount a claim writes: the attempt the worker
// counts, or one less when it counts at record time.
func claimCount(attempt int64) int64 {
	if tamper != "" && !hides() {
		return attempt - 1
	}
	return attempt
}

// hides: the claim writes the count (the log sees +1) and a write the log
// does not see takes it back.
func hides() bool {
	return tamper == "drop-recreate" || tamper == "log-delete" || tamper == "second-conn" || tamper == "pg-drop-recreate" ||
		tamper == "pg-disable-trigger" || tamper == "pg-temp-log"
}

// tamperSetup prepares the attack once the worker has its connection.
func tamperSetup(db *sql.DB) {
	if tamper == "" {
		return
	}
	if pg {
		tamperSetupPG(db)
		return
	}
	var err error
	switch tamper {
	case "temp-trigger":
		err = execAll(db,
			`CREATE TEMP TRIGGER ok16_claim AFTER INSERT ON main.LabChangeLog
			 WHEN NEW.TableName = 'OutboxMessages' AND NEW.Op = 'UPDATE'
			  AND json_extract(NEW.NewRow, '$.claimtoken') != json_extract(NEW.OldRow, '$.claimtoken')
			 BEGIN `+fmt.Sprintf(patchClaim, "main.")+`NEW.Seq; END`,
			`CREATE TEMP TRIGGER ok16_record AFTER INSERT ON main.LabChangeLog
			 WHEN NEW.TableName = 'OutboxMessages' AND NEW.Op = 'UPDATE'
			  AND json_extract(NEW.NewRow, '$.claimtoken') = json_extract(NEW.OldRow, '$.claimtoken')
			 BEGIN `+fmt.Sprintf(patchRecord, "main.")+`NEW.Seq; END`)
	case "temp-view":
		err = tempView(db)
	case "drop-recreate", "writable-schema":
		err = db.QueryRow(`SELECT sql FROM sqlite_schema WHERE name = ?`, triggerOf).Scan(&trigger)
		if err == nil && tamper == "writable-schema" {
			err = editSchema(patchedTrigger(trigger))
		}
	case "attach":
	case "second-conn":
		second, err = sql.Open("sqlite", "file:"+os.Getenv("OUTBOXLAB_DATABASE")+"?_pragma=busy_timeout(5000)")
		if err == nil {
			second.SetMaxOpenConns(1)
			_, err = second.Exec(`CREATE TEMP TRIGGER ok16_quiet BEFORE INSERT ON main.LabChangeLog BEGIN SELECT RAISE(IGNORE); END`)
		}
	case "log-update", "log-delete", "count-at-record":
	default:
		err = fmt.Errorf("OK16_TAMPER %q: no such attack", tamper)
	}
	if err != nil {
		fail(fmt.Errorf("tamper %s: %w", tamper, err))
	}
}

// tamperClaimed runs after a claim's commit, in the claim's turn: the log
// must show +1 on each claimed row while the rows show none.
func tamperClaimed(db *sql.DB, got []claimed) {
	if tamper == "" || len(got) == 0 {
		return
	}
	if pg {
		tamperClaimedPG(db, got)
		return
	}
	for _, c := range got {
		undo := fmt.Sprintf(`UPDATE OutboxMessages SET AttemptCount = AttemptCount - 1 WHERE Id = %d`, c.id)
		var err error
		switch tamper {
		case "log-update":
			err = execAll(db, fmt.Sprintf(patchClaim+lastOf, "", c.id))
		case "attach":
			err = throughTwin(db, fmt.Sprintf(patchClaim+lastOf, "twin.", c.id))
		case "drop-recreate", "log-delete":
			err = hidden(db, undo)
		case "second-conn":
			// While the worker waits in its next lab call, not in its turn.
			pending.Add(1)
			go func() {
				defer pending.Done()
				time.Sleep(20 * time.Millisecond)
				if _, err := second.Exec(undo); err != nil {
					fail(err)
				}
			}()
		}
		if err != nil {
			fail(fmt.Errorf("tamper %s: %w", tamper, err))
		}
	}
}

// tamperRecord counts the attempt when the outcome is recorded, before the
// record itself, and makes the log show no count there.
func tamperRecord(db *sql.DB, c claimed) {
	if tamper == "" {
		return
	}
	pending.Wait()
	count := fmt.Sprintf(`UPDATE OutboxMessages SET AttemptCount = %d WHERE Id = %d`, c.attempt, c.id)
	var err error
	switch {
	case pg:
		err = tamperRecordPG(db, count)
	case tamper == "log-update":
		err = execAll(db, count, fmt.Sprintf(patchRecord+lastRow, ""))
	case tamper == "attach":
		if _, err = db.Exec(count); err == nil {
			err = throughTwin(db, fmt.Sprintf(patchRecord+lastRow, "twin."))
		}
	case tamper == "second-conn":
		_, err = second.Exec(count)
	case hides():
		err = hidden(db, count)
	default: // the log is patched as it is written
		err = execAll(db, count)
	}
	if err != nil {
		fail(fmt.Errorf("tamper %s: %w", tamper, err))
	}
}

// tamperEnd puts back what the attack changed before the worker says done.
func tamperEnd() {
	if tamper == "writable-schema" {
		if err := editSchema(trigger); err != nil {
			fail(fmt.Errorf("tamper %s: %w", tamper, err))
		}
	}
}

// throughTwin attaches the database's own file as twin, runs stmt and
// detaches it, outside a transaction: while twin is attached, a
// transaction that writes would wait for its own lock on the same file.
func throughTwin(db *sql.DB, stmt string) error {
	if _, err := db.Exec(`ATTACH DATABASE ? AS twin`, "file:"+os.Getenv("OUTBOXLAB_DATABASE")); err != nil {
		return err
	}
	_, err := db.Exec(stmt)
	if _, derr := db.Exec(`DETACH DATABASE twin`); err == nil {
		err = derr
	}
	return err
}

// affected is how many rows a record changed: through the TEMP view's
// INSTEAD OF trigger SQLite counts none, and the view's worker knows better.
func affected(res sql.Result) int64 {
	n, _ := res.RowsAffected()
	if tamper == "temp-view" {
		return 1
	}
	return n
}

// hidden runs stmt so that the log does not see it: the Lab trigger
// dropped and made again around it, or its log row deleted and the log's
// numbering set back.
func hidden(db *sql.DB, stmt string) error {
	if tamper == "log-delete" {
		return execAll(db, stmt, `DELETE FROM LabChangeLog WHERE Seq = `+fmt.Sprintf(lastRow, ""),
			`UPDATE sqlite_sequence SET seq = (SELECT max(Seq) FROM LabChangeLog) WHERE name = 'LabChangeLog'`)
	}
	return execAll(db, `DROP TRIGGER `+triggerOf, stmt, trigger)
}

// tempView shadows OutboxMessages with a TEMP view of it whose INSTEAD OF
// trigger writes the table and patches the log row it wrote.
func tempView(db *sql.DB) error {
	rows, err := db.Query(`SELECT name FROM pragma_table_info('OutboxMessages') WHERE name != 'Id' ORDER BY cid`)
	if err != nil {
		return err
	}
	var set []string
	for rows.Next() {
		var c string
		rows.Scan(&c)
		set = append(set, c+" = NEW."+c)
	}
	rows.Close()
	return execAll(db, `CREATE TEMP VIEW OutboxMessages AS SELECT * FROM main.OutboxMessages`,
		`CREATE TEMP TRIGGER ok16_view INSTEAD OF UPDATE ON OutboxMessages BEGIN
		   UPDATE main.OutboxMessages SET `+strings.Join(set, ", ")+` WHERE Id = OLD.Id;
		   UPDATE main.LabChangeLog SET
		     NewRow = CASE WHEN OLD.ClaimToken != NEW.ClaimToken THEN json_set(NewRow, '$.attemptcount', OLD.AttemptCount + 1) ELSE NewRow END,
		     OldRow = CASE WHEN OLD.ClaimToken = NEW.ClaimToken THEN json_set(OldRow, '$.attemptcount', NEW.AttemptCount) ELSE OldRow END
		   WHERE Seq = (SELECT max(Seq) FROM main.LabChangeLog);
		 END`)
}

// patchedTrigger is the Lab's update trigger writing a claim's new count
// one more than its old, and a record's old count the same as its new.
func patchedTrigger(sql string) string {
	sql = strings.Replace(sql, "'attemptcount', OLD.AttemptCount",
		"'attemptcount', CASE WHEN NEW.ClaimToken = OLD.ClaimToken THEN NEW.AttemptCount ELSE OLD.AttemptCount END", 1)
	return strings.Replace(sql, "'attemptcount', NEW.AttemptCount",
		"'attemptcount', CASE WHEN NEW.ClaimToken != OLD.ClaimToken THEN OLD.AttemptCount + 1 ELSE NEW.AttemptCount END", 1)
}

// editSchema writes the Lab trigger's SQL through writable_schema, on a
// connection of its own, and moves the schema cookie on so that every
// connection reads it again.
func editSchema(sql string) error {
	db, err := sqlOpen()
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var version int64
	if err := db.QueryRow(`PRAGMA schema_version`).Scan(&version); err != nil {
		return err
	}
	return execAll(db, `PRAGMA writable_schema = ON`,
		fmt.Sprintf(`UPDATE sqlite_schema SET sql = '%s' WHERE name = '%s'`, strings.ReplaceAll(sql, "'", "''"), triggerOf),
		fmt.Sprintf(`PRAGMA schema_version = %d`, version+1), `PRAGMA writable_schema = OFF`)
}

func sqlOpen() (*sql.DB, error) {
	return sql.Open("sqlite", "file:"+os.Getenv("OUTBOXLAB_DATABASE")+"?_pragma=busy_timeout(5000)")
}

// execAll runs statements in one transaction.
func execAll(db *sql.DB, stmts ...string) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	for _, s := range stmts {
		if _, err := tx.Exec(s); err != nil {
			tx.Rollback()
			return fmt.Errorf("%s: %w", strings.Fields(s)[0], err)
		}
	}
	return tx.Commit()
}
