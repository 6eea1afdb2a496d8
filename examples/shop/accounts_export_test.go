package shop

import (
	"context"
	"fmt"
)

// UserIDForTest returns the id of the account with email.
func (s *Shop) UserIDForTest(ctx context.Context, email string) (int64, error) {
	var id int64
	err := s.store.db.QueryRow(ctx, `SELECT id FROM users WHERE email = $1`, email).Scan(&id)
	return id, err
}

// UserRowsForTest counts the rows that belong to the user id in each table
// that references users, orders included, and the users row itself.
func (s *Shop) UserRowsForTest(ctx context.Context, id int64) (map[string]int, error) {
	rows := map[string]int{}
	for _, table := range []string{"users", "sessions", "tokens", "cart_items", "addresses", "cards", "checkout_choices", "reviews", "orders"} {
		col := "user_id"
		if table == "users" {
			col = "id"
		}
		var n int
		if err := s.store.db.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s WHERE %s = $1`, table, col), id).Scan(&n); err != nil {
			return nil, err
		}
		rows[table] = n
	}
	return rows, nil
}

// AddReviewForTest adds a review by the account with email of the product
// slug, as the reviews table holds it.
func (s *Shop) AddReviewForTest(ctx context.Context, email, slug string) error {
	_, err := s.store.db.Exec(ctx, `
		INSERT INTO reviews (product_id, user_id, rating, body, created)
		VALUES ((SELECT id FROM products WHERE slug = $1), (SELECT id FROM users WHERE email = $2), 4, 'A review made by a test.', 0)`, slug, email)
	return err
}
