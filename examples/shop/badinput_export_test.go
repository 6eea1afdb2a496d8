package shop

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// DumpForTest returns every row of every table, sorted: two dumps are equal
// when nothing in the store changed.
func (s *Shop) DumpForTest(ctx context.Context) (string, error) {
	return dumpTables(ctx, s.store.r)
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
	u, err := s.store.userBy(ctx, `SELECT id, email, name, is_admin FROM users WHERE email = ?`, email)
	if err != nil {
		return "", err
	}
	if _, err := s.store.addToCart(ctx, u.ID, slug, sku, 1); err != nil {
		return "", err
	}
	o, err := s.store.placeOrder(ctx, u.ID)
	if err != nil {
		return "", err
	}
	return o.ID, nil
}

// ReviewIDForTest returns the id of the review by email of slug.
func (s *Shop) ReviewIDForTest(ctx context.Context, email, slug string) (int64, error) {
	var id int64
	err := s.store.r.QueryRowContext(ctx, `SELECT r.id FROM reviews r JOIN users u ON u.id = r.user_id JOIN products p ON p.id = r.product_id WHERE u.email = ? AND p.slug = ?`, email, slug).Scan(&id)
	return id, err
}

// dumpTables reads every row of every table of db, each table's rows sorted.
func dumpTables(ctx context.Context, db *sql.DB) (string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return "", err
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return "", err
		}
		tables = append(tables, n)
	}
	rows.Close()
	var out strings.Builder
	for _, table := range tables {
		rs, err := db.QueryContext(ctx, `SELECT * FROM "`+table+`"`)
		if err != nil {
			return "", err
		}
		cols, _ := rs.Columns()
		var lines []string
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				rs.Close()
				return "", err
			}
			var b strings.Builder
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%s=%v ", cols[i], v)
			}
			lines = append(lines, b.String())
		}
		rs.Close()
		slices.Sort(lines)
		fmt.Fprintf(&out, "%s (%d rows)\n\t%s\n", table, len(lines), strings.Join(lines, "\n\t"))
	}
	return out.String(), nil
}
