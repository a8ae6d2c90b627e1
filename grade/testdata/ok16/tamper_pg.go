package main

import (
	"database/sql"
	"fmt"
	"os"
)

// The attacks on PostgreSQL (OK16_TAMPER pg-…), with whatever the URL the
// lab gave the worker lets it do.

const (
	pgLastRow     = `(SELECT max(Seq) FROM LabChangeLog)`
	pgPatchClaim  = `UPDATE LabChangeLog SET NewRow = jsonb_set(NewRow::jsonb, '{attemptcount}', to_jsonb((OldRow::jsonb->>'attemptcount')::bigint + 1))::text WHERE Seq = `
	pgPatchRecord = `UPDATE LabChangeLog SET OldRow = jsonb_set(OldRow::jsonb, '{attemptcount}', NewRow::jsonb->'attemptcount')::text WHERE Seq = `
	pgTrigger     = `LabLog_OutboxMessages`
)

func tamperSetupPG(db *sql.DB) {
	var err error
	switch tamper {
	case "pg-log-update", "pg-drop-recreate", "pg-disable-trigger":
	case "pg-temp-log":
		// A connection of its own whose log rows go to a TEMP table of the
		// same name, if the Lab's trigger function would find it first.
		second, err = sql.Open("pgx", os.Getenv("OUTBOXLAB_DATABASE"))
		if err == nil {
			second.SetMaxOpenConns(1)
			_, err = second.Exec(`CREATE TEMP TABLE LabChangeLog (Seq bigserial, TableName text, RowId bigint,
				Op text, OldRow text, NewRow text)`)
		}
	default:
		err = fmt.Errorf("OK16_TAMPER %q: no such attack on PostgreSQL", tamper)
	}
	if err != nil {
		fail(fmt.Errorf("tamper %s: %w", tamper, err))
	}
}

func tamperClaimedPG(db *sql.DB, got []claimed) {
	for _, c := range got {
		var err error
		if tamper == "pg-log-update" {
			err = execAll(db, pgPatchClaim+fmt.Sprintf(`(SELECT max(Seq) FROM LabChangeLog WHERE TableName = 'OutboxMessages' AND RowId = %d)`, c.id))
		} else {
			err = hiddenPG(db, fmt.Sprintf(`UPDATE OutboxMessages SET AttemptCount = AttemptCount - 1 WHERE Id = %d`, c.id))
		}
		if err != nil {
			fail(fmt.Errorf("tamper %s: %w", tamper, err))
		}
	}
}

func tamperRecordPG(db *sql.DB, count string) error {
	if tamper == "pg-log-update" {
		return execAll(db, count, pgPatchRecord+pgLastRow)
	}
	return hiddenPG(db, count)
}

// hiddenPG runs stmt so that the log does not see it.
func hiddenPG(db *sql.DB, stmt string) error {
	switch tamper {
	case "pg-drop-recreate":
		return execAll(db, `DROP TRIGGER `+pgTrigger+` ON OutboxMessages`, stmt,
			`CREATE TRIGGER `+pgTrigger+` AFTER INSERT OR UPDATE OR DELETE ON OutboxMessages
			 FOR EACH ROW EXECUTE FUNCTION LabLogChange('OutboxMessages')`)
	case "pg-disable-trigger":
		return execAll(db, `ALTER TABLE OutboxMessages DISABLE TRIGGER `+pgTrigger, stmt,
			`ALTER TABLE OutboxMessages ENABLE TRIGGER `+pgTrigger)
	}
	_, err := second.Exec(stmt) // pg-temp-log
	return err
}
