package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// Lab is the HTTP client of the lab's clock and provider (section 5 of the
// protocol page). It makes one call at a time and remembers the time of the
// last answer: every timestamp the worker writes comes from there.
type Lab struct {
	url, token string
	client     *http.Client
	nowMS      int64 // the lab's clock at the last answer, epoch milliseconds
	drainByMS  int64 // Day 18: a drain's deadline (hosted.go); 0: none
}

// answer is the part of every answer the worker reads.
type answer struct {
	NowMS         int64  `json:"now_ms"`
	Protocol      int    `json:"protocol"`
	Outcome       string `json:"outcome"`
	TransactionID string `json:"transaction_id"`
	Error         string `json:"error"`
	// Day 18's hosted calls (hosted.go).
	Finished        bool  `json:"finished"`
	Drain           bool  `json:"drain"`
	DrainDeadlineMS int64 `json:"drain_deadline_ms"`
}

func newLab(url, token string) *Lab {
	// An answer may take a while: the other workers run in the meantime.
	return &Lab{url: url, token: token, client: &http.Client{Timeout: 10 * time.Minute}}
}

// call POSTs body to path and decodes the answer. A 503 from the provider is
// returned as an answer with Error set; any other status but 200 ends the worker.
func (l *Lab) call(path string, body any) (answer, int, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return answer{}, 0, err
	}
	req, err := http.NewRequest(http.MethodPost, l.url+path, bytes.NewReader(b))
	if err != nil {
		return answer{}, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+l.token)
	resp, err := l.client.Do(req)
	if err != nil {
		return answer{}, 0, fmt.Errorf("%s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, 0, fmt.Errorf("%s: %w", path, err)
	}
	var a answer
	if err := json.Unmarshal(data, &a); err != nil {
		return answer{}, resp.StatusCode, fmt.Errorf("%s: answer %d is not JSON: %w", path, resp.StatusCode, err)
	}
	if a.NowMS > 0 {
		l.nowMS = a.NowMS
	}
	if a.Drain {
		l.drainByMS = a.DrainDeadlineMS
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return a, resp.StatusCode, nil
	case resp.StatusCode == http.StatusGone:
		// The run is over (a limit was reached): exit at once.
		fmt.Fprintf(os.Stderr, "worker: %s: the run is over: %s\n", path, a.Error)
		os.Exit(1)
	}
	return a, resp.StatusCode, fmt.Errorf("%s: %d %s", path, resp.StatusCode, a.Error)
}

// Now is the lab's time at the last answer, as epoch milliseconds.
func (l *Lab) Now() int64 {
	if bug("wall-clock") {
		return time.Now().UnixMilli()
	}
	return l.nowMS
}

// ClockNow asks the lab the time (select-then-update's call between its
// SELECT and its UPDATE).
func (l *Lab) ClockNow() error {
	_, _, err := l.call("/v1/clock/now", struct{}{})
	return err
}

// Hello is always the first call.
func (l *Lab) Hello() error {
	a, _, err := l.call("/v1/hello", map[string]string{"language": "go"})
	if err != nil {
		return err
	}
	if a.Protocol != 1 {
		return fmt.Errorf("hello: the lab speaks protocol %d, this worker 1", a.Protocol)
	}
	return nil
}

// SleepUntil returns once the lab's clock has reached untilMS and the lab
// has chosen this worker to run again.
func (l *Lab) SleepUntil(untilMS int64) error {
	_, _, err := l.call("/v1/clock/sleep", map[string]int64{"until_ms": untilMS})
	return err
}

// Status is the provider's answer to a status check: an Outcome ("Paid",
// with its TransactionID, or "Declined"), or the Failure text of a check
// that failed (503), which the worker records as LastError.
type Status struct {
	Outcome, TransactionID, Failure string
}

// Status asks the provider what became of a payment.
func (l *Lab) Status(paymentKey string, messageID int64) (Status, error) {
	a, code, err := l.call("/v1/provider/status", map[string]any{"payment_key": paymentKey, "message_id": messageID})
	if code == http.StatusServiceUnavailable && a.Error != "" {
		return Status{Failure: a.Error}, nil
	}
	if err != nil {
		return Status{}, err
	}
	return Status{Outcome: a.Outcome, TransactionID: a.TransactionID}, nil
}

// Done says the worker has nothing left to do.
func (l *Lab) Done() error {
	_, _, err := l.call("/v1/done", struct{}{})
	return err
}
