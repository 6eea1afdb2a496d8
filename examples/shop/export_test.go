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
	_, err := s.store.db.Exec(ctx, `
		INSERT INTO products (slug, name, description, category, price, tone, position)
		VALUES ($1, $2, 'A product made by a test.', 'home', $3, 0, 1000)`, slug, name, price)
	if err != nil {
		return err
	}
	_, err = s.store.db.Exec(ctx, `
		INSERT INTO variants (sku, product_id, label, stock, position)
		VALUES ($1, (SELECT id FROM products WHERE slug = $2), 'One size', $3, 0)`, sku, slug, stock)
	return err
}

// StockForTest returns the stock of a variant.
func (s *Shop) StockForTest(ctx context.Context, sku string) (int, error) {
	var n int
	err := s.store.db.QueryRow(ctx, `SELECT stock FROM variants WHERE sku = $1`, sku).Scan(&n)
	return n, err
}

// OrderedForTest returns how many of a variant all orders hold, and in how
// many orders.
func (s *Shop) OrderedForTest(ctx context.Context, sku string) (quantity, orders int, err error) {
	err = s.store.db.QueryRow(ctx, `SELECT coalesce(sum(quantity), 0), count(DISTINCT order_id) FROM order_lines WHERE sku = $1`, sku).Scan(&quantity, &orders)
	return quantity, orders, err
}

// CartCountForTest returns how many items a user's cart holds.
func (s *Shop) CartCountForTest(ctx context.Context, email string) (int, error) {
	var n int
	err := s.store.db.QueryRow(ctx, `
		SELECT coalesce(sum(ci.quantity), 0) FROM cart_items ci JOIN users u ON u.id = ci.user_id WHERE u.email = $1`, email).Scan(&n)
	return n, err
}

// SetSchemaForTest records version as the shape of the database's tables.
func (s *Shop) SetSchemaForTest(ctx context.Context, version string) error {
	_, err := s.store.db.Exec(ctx, `UPDATE meta SET value = $1 WHERE key = 'schema'`, version)
	return err
}

// SetClockForTest makes now the clock that decides whether an order can
// still be cancelled. Call it before serving the shop.
func (s *Shop) SetClockForTest(now func() time.Time) { s.now = now }

// OrdersForTest reports of every order whether it is whole: it has lines,
// and they add up to its total.
func (s *Shop) OrdersForTest(ctx context.Context) (map[string]bool, error) {
	rows, err := s.store.db.Query(ctx, `
		SELECT o.id, o.total = coalesce((SELECT sum(l.quantity * l.price) FROM order_lines l WHERE l.order_id = o.id), -1)
		FROM orders o`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	whole := map[string]bool{}
	for rows.Next() {
		var id string
		var ok bool
		if err := rows.Scan(&id, &ok); err != nil {
			return nil, err
		}
		whole[id] = ok
	}
	return whole, rows.Err()
}
