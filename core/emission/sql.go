package emission

import (
	"context"
	"fmt"

	"outboxlab/core/claim"
)

// The package's statements are written once, with ? and :name placeholders,
// and run through the claim store's Exec, QueryRow and QueryAll, which bind
// them for the store's database (SQLite keeps them, PostgreSQL numbers them).

// queryAll is claim.QueryAll with an error that says what was being read.
func queryAll[T any](ctx context.Context, s *Store, q claim.Querier, what string, scan func(claim.Scanner) (T, error), query string, args ...any) ([]T, error) {
	out, err := claim.QueryAll(ctx, s.Store, q, scan, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
