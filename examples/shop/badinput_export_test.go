package shop

import "context"

// DumpForTest returns every row of every table, sorted: two dumps are equal
// when nothing in the store changed.
func (s *Shop) DumpForTest(ctx context.Context) (string, error) {
	return s.store.db.Dump(ctx)
}

// AddUserWithTokenForTest adds a customer with a bearer token.
func (s *Shop) AddUserWithTokenForTest(ctx context.Context, email, name, password, token string) error {
	id, err := s.store.createUser(ctx, email, name, password)
	if err != nil {
		return err
	}
	return s.store.addToken(ctx, id, "test", token)
}

// PlaceOrderForTest puts one of sku in the user's cart and places the order.
func (s *Shop) PlaceOrderForTest(ctx context.Context, email, slug, sku string) (string, error) {
	u, err := s.store.userBy(ctx, `SELECT id, email, name, is_admin FROM users WHERE email = $1`, email)
	if err != nil {
		return "", err
	}
	if _, err := s.store.addToCart(ctx, u.ID, slug, sku, 1); err != nil {
		return "", err
	}
	o, err := s.store.placeOrder(ctx, u.ID, func(*cartView, *choice) error { return nil })
	if err != nil {
		return "", err
	}
	return o.ID, nil
}

// ReviewIDForTest returns the id of the review by email of slug.
func (s *Shop) ReviewIDForTest(ctx context.Context, email, slug string) (int64, error) {
	var id int64
	err := s.store.db.QueryRow(ctx, `SELECT r.id FROM reviews r JOIN users u ON u.id = r.user_id JOIN products p ON p.id = r.product_id WHERE u.email = $1 AND p.slug = $2`, email, slug).Scan(&id)
	return id, err
}
