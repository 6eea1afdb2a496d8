package servicetest_test

import (
	"database/sql"
	"testing"

	"github.com/affordances/affordances-go/internal/servicetest"
)

func TestStartPostgres(t *testing.T) {
	pg := servicetest.StartPostgres(t)
	a, b := pg.NewDatabase(t), pg.NewDatabase(t)
	if a == b {
		t.Fatalf("two databases share the URL %s", a)
	}
	db, err := sql.Open("pgx", a)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var one int
	if err := db.QueryRow("SELECT $1::int", 1).Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %d, %v", one, err)
	}
	if _, err := db.Exec("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('copied')"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	c := pg.CopyDatabase(t, a)
	if c == a || c == b {
		t.Fatalf("the copy has the URL %s of another database", c)
	}
	copied, err := sql.Open("pgx", c)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	var v string
	if err := copied.QueryRow("SELECT v FROM kept").Scan(&v); err != nil || v != "copied" {
		t.Fatalf("the copy's row: %q, %v; want the original's", v, err)
	}
}
