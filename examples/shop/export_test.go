package shop

import (
	"context"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Tests hash passwords at the lowest cost: they create many users.
func init() { bcryptCost = bcrypt.MinCost }

// AddProductForTest adds a product with one variant to the catalog.
func (s *Shop) AddProductForTest(ctx context.Context, slug, name string, price int, sku string, stock int) error {
	_, err := s.store.w.ExecContext(ctx, `
		INSERT INTO products (slug, name, description, category, price, tone, position)
		VALUES (?, ?, 'A product made by a test.', 'home', ?, 0, 1000)`, slug, name, price)
	if err != nil {
		return err
	}
	_, err = s.store.w.ExecContext(ctx, `
		INSERT INTO variants (sku, product_id, label, stock, position)
		VALUES (?, (SELECT id FROM products WHERE slug = ?), 'One size', ?, 0)`, sku, slug, stock)
	return err
}

// StockForTest returns the stock of a variant.
func (s *Shop) StockForTest(ctx context.Context, sku string) (int, error) {
	var n int
	err := s.store.r.QueryRowContext(ctx, `SELECT stock FROM variants WHERE sku = ?`, sku).Scan(&n)
	return n, err
}

// OrderedForTest returns how many of a variant all orders hold, and in how
// many orders.
func (s *Shop) OrderedForTest(ctx context.Context, sku string) (quantity, orders int, err error) {
	err = s.store.r.QueryRowContext(ctx, `SELECT coalesce(sum(quantity), 0), count(DISTINCT order_id) FROM order_lines WHERE sku = ?`, sku).Scan(&quantity, &orders)
	return quantity, orders, err
}

// CartCountForTest returns how many items a user's cart holds.
func (s *Shop) CartCountForTest(ctx context.Context, email string) (int, error) {
	var n int
	err := s.store.r.QueryRowContext(ctx, `
		SELECT coalesce(sum(ci.quantity), 0) FROM cart_items ci JOIN users u ON u.id = ci.user_id WHERE u.email = ?`, email).Scan(&n)
	return n, err
}

// OldSchemaForTest turns the database back into its shape before the
// checkout flow: each user's one address and card are columns of users
// (the given user's line1 and last4; everyone else's the defaults), and
// the tables of addresses, cards and choices do not exist.
func (s *Shop) OldSchemaForTest(ctx context.Context, email, line1, last4 string) error {
	for _, q := range []string{
		`DROP TABLE checkout_choices`,
		`DROP TABLE cards`,
		`DROP TABLE addresses`,
		`ALTER TABLE users ADD COLUMN card_last4 TEXT NOT NULL DEFAULT '4242'`,
		`ALTER TABLE users ADD COLUMN ship_line1 TEXT NOT NULL DEFAULT '1 Main St'`,
		`ALTER TABLE users ADD COLUMN ship_city TEXT NOT NULL DEFAULT 'Springfield'`,
		`ALTER TABLE users ADD COLUMN ship_postcode TEXT NOT NULL DEFAULT '12345'`,
		`ALTER TABLE users ADD COLUMN ship_country TEXT NOT NULL DEFAULT 'US'`,
	} {
		if _, err := s.store.w.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	_, err := s.store.w.ExecContext(ctx, `UPDATE users SET ship_line1 = ?, card_last4 = ? WHERE email = ?`, line1, last4, email)
	return err
}

// SetClockForTest makes now the clock that decides whether an order can
// still be cancelled. Call it before serving the shop.
func (s *Shop) SetClockForTest(now func() time.Time) { s.now = now }
