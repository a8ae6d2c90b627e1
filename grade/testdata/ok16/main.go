// Command ok16 is a minimal Day 16 worker that follows docs/grade-protocol.md:
// the grade package's own tests drive their harness with it. With
// OK16_BUG set it makes one deliberate mistake (see bug).
package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

var (
	lab   = os.Getenv("OUTBOXLAB_LAB_URL")
	token = os.Getenv("OUTBOXLAB_TOKEN")
	me    = os.Getenv("OUTBOXLAB_WORKER_ID")
	pg    = os.Getenv("OUTBOXLAB_DB_KIND") == "postgres"
	bug   = os.Getenv("OK16_BUG")
)

func env(name string) int64 {
	n, err := strconv.ParseInt(os.Getenv("OUTBOXLAB_"+name), 10, 64)
	if err != nil {
		fail(fmt.Errorf("OUTBOXLAB_%s: %v", name, err))
	}
	return n
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ok16:", err)
	os.Exit(1)
}

// call makes one lab call and returns the answer's status and body.
func call(path string, body map[string]any) (int, map[string]any) {
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", lab+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fail(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode == 410 {
		os.Exit(0)
	}
	return resp.StatusCode, out
}

func nowMS(ans map[string]any) int64 {
	if bug == "wall-clock" {
		return time.Now().UnixMilli()
	}
	return int64(ans["now_ms"].(float64))
}

// abuse breaks one protocol rule right after hello, as OK16_BUG says.
func abuse() {
	switch bug {
	case "bad-token":
		saved := token
		token = "0123456789abcdef"
		call("/v1/clock/now", map[string]any{})
		token = saved
	case "double-call":
		done := make(chan bool)
		for i := 0; i < 2; i++ {
			go func() { call("/v1/clock/now", map[string]any{}); done <- true }()
		}
		<-done
		<-done
	case "drop-trigger", "delete-row":
		db, err := sql.Open("sqlite", "file:"+os.Getenv("OUTBOXLAB_DATABASE")+"?_pragma=busy_timeout(5000)")
		if pg {
			db, err = sql.Open("pgx", os.Getenv("OUTBOXLAB_DATABASE"))
		}
		if err != nil {
			fail(err)
		}
		stmt := "DELETE FROM Payments WHERE Id = 1"
		if bug == "drop-trigger" {
			stmt = "DROP TRIGGER LabLog_Payments_Update"
			if pg {
				stmt += " ON Payments"
			}
		}
		if _, err := db.Exec(stmt); err != nil {
			fail(err)
		}
		db.Close()
	}
}

func iso(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }

// q rewrites ? placeholders as $n for PostgreSQL.
func q(s string) string {
	if !pg {
		return s
	}
	var b []byte
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '?' {
			n++
			b = append(b, '$')
			b = strconv.AppendInt(b, int64(n), 10)
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

type claimed struct {
	id, token, attempt, max int64
	key                     string
}

func main() {
	base, capMS := env("BASE_BACKOFF_MS"), env("MAX_BACKOFF_MS")
	lease, batch := env("LEASE_MS"), env("BATCH_SIZE")
	redriving := os.Getenv("OUTBOXLAB_ROLE") == "redrive"
	if redriving && (os.Getenv("OUTBOXLAB_APPROVER") == "" || os.Getenv("OUTBOXLAB_REASON") == "") {
		fail(fmt.Errorf("refusing to redrive without an approver and a reason"))
	}
	call("/v1/hello", map[string]any{"language": "go"})
	abuse()
	driver, dsn := "sqlite", "file:"+os.Getenv("OUTBOXLAB_DATABASE")+"?_txlock=immediate&_pragma=busy_timeout(5000)"
	if pg {
		driver, dsn = "pgx", os.Getenv("OUTBOXLAB_DATABASE")
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		fail(err)
	}
	db.SetMaxOpenConns(1)
	defer db.Close()
	tamperSetup(db)
	if redriving {
		redrive(db)
		return
	}
	for {
		_, ans := call("/v1/clock/now", map[string]any{})
		now := nowMS(ans)
		tx, err := db.Begin()
		if err != nil {
			fail(err)
		}
		lock := ""
		if pg {
			lock = " FOR UPDATE SKIP LOCKED"
		}
		rows, err := tx.Query(q(`SELECT Id, MessageKey, ClaimToken, AttemptCount, MaxAttempts FROM OutboxMessages
			WHERE (Status = 'Pending' OR (Status = 'Processing' AND LockedUntilUtc < ?))
			  AND (NextAttemptUtc IS NULL OR NextAttemptUtc <= ?)
			ORDER BY CreatedAtUtc, Id LIMIT ?`+lock), iso(now), iso(now), batch)
		if err != nil {
			fail(err)
		}
		var got []claimed
		for rows.Next() {
			var c claimed
			var max sql.NullInt64
			rows.Scan(&c.id, &c.key, &c.token, &c.attempt, &max)
			c.max = max.Int64
			got = append(got, c)
		}
		rows.Close()
		var live []claimed
		for _, c := range got {
			if c.max > 0 && c.attempt >= c.max && bug != "no-claim-dead-letter" {
				// Delivered MaxAttempts times and never recorded: each delivery crashed.
				if _, err := tx.Exec(q(`UPDATE OutboxMessages SET Status = 'DeadLettered', DeadLetteredAtUtc = ?,
					LastError = ?, LockedBy = NULL, LockedUntilUtc = NULL WHERE Id = ?`), iso(now),
					fmt.Sprintf("delivered %d times, never completed", c.attempt), c.id); err != nil {
					fail(err)
				}
				continue
			}
			live = append(live, c)
		}
		dead := len(got) - len(live)
		got = live
		for i := range got {
			got[i].token++
			got[i].attempt++
			if bug == "count-on-failure" {
				got[i].attempt--
			}
			if _, err := tx.Exec(q(`UPDATE OutboxMessages SET Status = 'Processing', LockedBy = ?, LockedUntilUtc = ?,
				ClaimToken = ?, AttemptCount = ? WHERE Id = ?`), me, iso(now+lease), got[i].token, claimCount(got[i].attempt), got[i].id); err != nil {
				fail(err)
			}
		}
		if bug == "hold-transaction" && len(got) > 0 {
			call("/v1/clock/now", map[string]any{})
		}
		if err := tx.Commit(); err != nil {
			fail(err)
		}
		tamperClaimed(db, got)
		if len(got) == 0 && dead > 0 {
			continue
		}
		if len(got) == 0 {
			var next sql.NullString
			if err := db.QueryRow(`SELECT MIN(CASE WHEN Status = 'Pending' THEN coalesce(NextAttemptUtc, CreatedAtUtc)
				ELSE LockedUntilUtc END) FROM OutboxMessages WHERE Status IN ('Pending', 'Processing')`).Scan(&next); err != nil {
				fail(err)
			}
			if !next.Valid {
				tamperEnd()
				call("/v1/done", map[string]any{})
				return
			}
			t, _ := time.Parse("2006-01-02T15:04:05.000Z", next.String)
			call("/v1/clock/sleep", map[string]any{"until_ms": t.UnixMilli() + 1})
			continue
		}
		for _, c := range got {
			status, ans := call("/v1/provider/status", map[string]any{"payment_key": c.key, "message_id": c.id})
			now := nowMS(ans)
			tamperRecord(db, c)
			tx, err := db.Begin()
			if err != nil {
				fail(err)
			}
			owner := q(` WHERE Id = ? AND Status = 'Processing' AND LockedBy = ? AND ClaimToken = ?`)
			var res sql.Result
			if status == 200 {
				outcome, _ := ans["outcome"].(string)
				txID, _ := ans["transaction_id"].(string)
				payStatus, id := "Paid", any(txID)
				if outcome != "Paid" {
					payStatus, id = "Failed", nil
				}
				res, err = tx.Exec(q(`UPDATE OutboxMessages SET Status = 'Processed', ProcessedAtUtc = ?,
					LockedBy = NULL, LockedUntilUtc = NULL`)+shift(owner, 1), iso(now), c.id, me, c.token)
				if err == nil {
					_, err = tx.Exec(q(`UPDATE Payments SET Status = ?, ProviderTransactionId = ?, UpdatedAtUtc = ?
						WHERE PaymentKey = ?`), payStatus, id, iso(now), c.key)
				}
			} else {
				msg, _ := ans["error"].(string)
				attempt := c.attempt
				if bug == "count-on-failure" {
					attempt++
				}
				if c.max > 0 && attempt >= c.max {
					res, err = tx.Exec(q(`UPDATE OutboxMessages SET Status = 'DeadLettered', DeadLetteredAtUtc = ?,
						LastError = ?, AttemptCount = ?, LockedBy = NULL, LockedUntilUtc = NULL`)+shift(owner, 3), iso(now), msg, attempt, c.id, me, c.token)
				} else {
					d := base
					for i := int64(1); i < attempt; i++ {
						d *= 2
					}
					if capMS > 0 && d > capMS {
						d = capMS
					}
					if bug == "no-backoff" {
						d = 0
					}
					res, err = tx.Exec(q(`UPDATE OutboxMessages SET Status = 'Pending', NextAttemptUtc = ?,
						LastError = ?, AttemptCount = ?, LockedBy = NULL, LockedUntilUtc = NULL`)+shift(owner, 3), iso(now+d), msg, attempt, c.id, me, c.token)
				}
			}
			if err != nil {
				fail(err)
			}
			if affected(res) == 0 {
				tx.Rollback()
				continue
			}
			if err := tx.Commit(); err != nil {
				fail(err)
			}
		}
	}
}

// shift renumbers a $n WHERE clause to follow k earlier placeholders.
func shift(where string, k int) string {
	if !pg {
		return where
	}
	out := ""
	n := 0
	for i := 0; i < len(where); i++ {
		if where[i] == '$' {
			n++
			out += "$" + strconv.Itoa(k+n)
			for i+1 < len(where) && where[i+1] >= '0' && where[i+1] <= '9' {
				i++
			}
			continue
		}
		out += string(where[i])
	}
	return out
}
