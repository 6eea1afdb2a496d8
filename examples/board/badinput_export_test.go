package board

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// DumpForTest returns every row of every table, sorted: two dumps are equal
// when nothing in the store changed.
func (b *Board) DumpForTest(ctx context.Context) (string, error) {
	return dumpTables(ctx, b.store.db)
}

// SetTokenForTest gives the user with email the bearer token.
func (b *Board) SetTokenForTest(ctx context.Context, email, token string) error {
	return b.store.setToken(ctx, email, token)
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
