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
}
