package dialect

import (
	"context"
	"database/sql"
	"fmt"
)

// The change log on PostgreSQL: one plpgsql function and one row trigger
// per table, each writing the row with row_to_json.

// ChangeLogDDL: the function's search_path is the run's schema, then
// pg_temp, so that a worker's TEMP table named LabChangeLog does not catch
// its rows.
func (postgresDialect) ChangeLogDDL(ctx context.Context, q Querier, tables []string) ([]string, error) {
	var schema string
	if err := q.QueryRowContext(ctx, `SELECT quote_ident(current_schema())`).Scan(&schema); err != nil {
		return nil, err
	}
	stmts := []string{
		`CREATE TABLE LabChangeLog (
    Seq       BIGSERIAL PRIMARY KEY,
    TableName TEXT COLLATE "C" NOT NULL,
    RowId     BIGINT,
    Op        TEXT COLLATE "C" NOT NULL,
    OldRow    TEXT COLLATE "C",
    NewRow    TEXT COLLATE "C"
)`,
		`CREATE FUNCTION LabLogChange() RETURNS trigger LANGUAGE plpgsql SET search_path = ` + schema + `, pg_temp AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO LabChangeLog (TableName, RowId, Op, OldRow)
            VALUES (TG_ARGV[0], OLD.id, TG_OP, row_to_json(OLD)::text);
        RETURN OLD;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO LabChangeLog (TableName, RowId, Op, OldRow, NewRow)
            VALUES (TG_ARGV[0], NEW.id, TG_OP, row_to_json(OLD)::text, row_to_json(NEW)::text);
        RETURN NEW;
    END IF;
    INSERT INTO LabChangeLog (TableName, RowId, Op, NewRow)
        VALUES (TG_ARGV[0], NEW.id, TG_OP, row_to_json(NEW)::text);
    RETURN NEW;
END $$`,
	}
	for _, table := range tables {
		stmts = append(stmts, fmt.Sprintf(`CREATE TRIGGER LabLog_%[1]s AFTER INSERT OR UPDATE OR DELETE ON %[1]s
    FOR EACH ROW EXECUTE FUNCTION LabLogChange('%[1]s')`, table))
	}
	return stmts, nil
}

func (postgresDialect) RowsAsJSON(_ context.Context, _ Querier, table string) (string, error) {
	return `SELECT l.id, row_to_json(l)::text FROM ` + table + ` l ORDER BY l.id`, nil
}

func (postgresDialect) ShapeQuery() string {
	return `SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
			FROM information_schema.columns WHERE table_schema = current_schema()
			UNION ALL
			SELECT 'trigger ' || t.tgname || ' ' || t.tgenabled::text || ' ' || c.relname
			FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
			WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
			UNION ALL
			SELECT 'function ' || p.proname || ' ' || md5(p.prosrc) FROM pg_proc p
			WHERE p.pronamespace = current_schema()::regnamespace
			UNION ALL
			SELECT 'index ' || indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname = current_schema()`
}

// StructureQuery: the schema's relations, triggers and functions with their
// object ids, so that one dropped and made again the same differs.
func (postgresDialect) StructureQuery() string {
	return `
		SELECT 'relation ' || c.relname || ' ' || c.relkind::text || ' #' || c.oid::text FROM pg_class c
		WHERE c.relnamespace = current_schema()::regnamespace
		UNION ALL
		SELECT 'trigger ' || t.tgname || ' ' || t.tgenabled::text || ' #' || t.oid::text || ' on ' || c.relname
		FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
		WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
		UNION ALL
		SELECT 'function ' || p.proname || ' ' || md5(p.prosrc) || ' #' || p.oid::text FROM pg_proc p
		WHERE p.pronamespace = current_schema()::regnamespace`
}

func (postgresDialect) SnapshotTx() *sql.TxOptions {
	return &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
}

func (postgresDialect) GaplessKeys() bool { return false }
