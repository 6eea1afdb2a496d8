package board

import "context"

// DumpForTest returns every row of every table, sorted: two dumps are equal
// when nothing in the store changed.
func (b *Board) DumpForTest(ctx context.Context) (string, error) {
	return b.store.db.Dump(ctx)
}

// SetTokenForTest gives the user with email the bearer token.
func (b *Board) SetTokenForTest(ctx context.Context, email, token string) error {
	return b.store.setToken(ctx, email, token)
}
