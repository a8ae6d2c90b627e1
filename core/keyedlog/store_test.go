package keyedlog

import (
	"context"
	"testing"
)

func TestOpenMarksAnOrderedDatabaseAndAddsTheBusinessTablesLast(t *testing.T) {
	ctx := context.Background()
	s, _ := testLog(t)
	var version string
	if err := s.DB().QueryRowContext(ctx, `SELECT Value FROM LabInfo WHERE Key = 'schema'`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != SchemaVersion {
		t.Errorf("LabInfo schema = %q, want %q", version, SchemaVersion)
	}
	tables, err := s.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first, last := tables[0].Name, tables[len(tables)-1].Name; first != "LabInfo" || last != "Seen" {
		t.Errorf("tables run from %s to %s, want LabInfo to Seen", first, last)
	}
}
