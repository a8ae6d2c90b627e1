package keyedlog

import (
	"context"
	"strings"
	"testing"
)

func TestLogRefusesWhatIsNotThere(t *testing.T) {
	ctx := context.Background()
	s, clk := testLog(t)
	c := &Consumer{Store: s, Clock: clk, Handler: &breakable{}}
	tests := []struct {
		name    string
		err     error
		wantErr string
	}{
		{"append to a partition that does not exist", func() error {
			_, err := s.Append(ctx, NewRecord{Partition: 2, MessageID: "x/1", Key: "x", CorrelationID: "x", Type: "T", Sequence: 1}, clk.Now())
			return err
		}(), "append x/1: partition 2 does not exist"},
		{"a dependency must come earlier", func() error {
			_, err := s.Append(ctx, NewRecord{Partition: 0, MessageID: "x/1", Key: "x", CorrelationID: "x", Type: "T", Sequence: 1, DependsOn: 1}, clk.Now())
			return err
		}(), "CHECK constraint failed"},
		{"resume a partition that is not paused", func() error { _, err := c.Resume(ctx, 0); return err }(),
			"resume partition 0: partition 0 is not paused"},
		{"no partitions", s.CreatePartitions(ctx, 0), "create partitions: need at least 1, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil || !strings.Contains(tt.err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one containing %q", tt.err, tt.wantErr)
			}
		})
	}
}

func TestAppendNumbersOffsetsPerPartition(t *testing.T) {
	ctx := context.Background()
	s, _ := testLog(t)
	records, err := s.Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range records {
		got = append(got, r.Place()+"="+r.MessageID)
	}
	want := "p0:0=a/1 p0:1=b/1 p0:2=a/2 p0:3=b/2 p0:4=a/3 p0:5=b/3 p1:0=c/1 p1:1=c/2 p1:2=c/3"
	if strings.Join(got, " ") != want {
		t.Errorf("log %s, want %s", strings.Join(got, " "), want)
	}
}
