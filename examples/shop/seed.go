package shop

import (
	"context"
	"fmt"

	"github.com/affordances/affordances-go/internal/sqldb"
	"golang.org/x/crypto/bcrypt"
)

// The seeded catalog. Prices are integer cents.
var seedCategories = []categoryView{
	{Slug: "tees", Name: "Tees"},
	{Slug: "knitwear", Name: "Knitwear"},
	{Slug: "headwear", Name: "Headwear"},
	{Slug: "bags", Name: "Bags"},
	{Slug: "home", Name: "Home"},
}

type seedProduct struct {
	slug, name, category, description string
	price, tone                       int
	variants                          []variantView
}

var seedProducts = []seedProduct{
	{"heavyweight-tee", "Heavyweight Tee", "tees", "A boxy tee in 240 g organic cotton that keeps its shape wash after wash.", 3200, 0, []variantView{
		{"HWT-BLK-S", "Black / S", 6}, {"HWT-BLK-M", "Black / M", 8}, {"HWT-BLK-L", "Black / L", 5}, {"HWT-WHT-M", "White / M", 4}}},
	{"pocket-tee", "Pocket Tee", "tees", "A lighter everyday tee with a chest pocket.", 2800, 1, []variantView{
		{"PKT-NVY-S", "Navy / S", 5}, {"PKT-NVY-M", "Navy / M", 7}, {"PKT-NVY-L", "Navy / L", 3}}},
	{"striped-long-sleeve", "Striped Long Sleeve", "tees", "Breton stripes in soft cotton jersey.", 3800, 2, []variantView{
		{"SLS-ECR-M", "Ecru / M", 4}, {"SLS-ECR-L", "Ecru / L", 2}}},
	{"merino-crew", "Merino Crew Sweater", "knitwear", "Fine merino wool, warm without bulk.", 9600, 3, []variantView{
		{"MCS-OAT-M", "Oat / M", 3}, {"MCS-OAT-L", "Oat / L", 2}, {"MCS-CHR-M", "Charcoal / M", 4}}},
	{"cotton-cardigan", "Cotton Cardigan", "knitwear", "A relaxed cardigan with horn buttons.", 8400, 4, []variantView{
		{"CCD-SGE-S", "Sage / S", 2}, {"CCD-SGE-M", "Sage / M", 3}}},
	{"fisherman-beanie", "Fisherman Beanie", "headwear", "A short ribbed beanie in lambswool.", 2400, 5, []variantView{
		{"FBN-RST-OS", "Rust / One size", 9}, {"FBN-NVY-OS", "Navy / One size", 6}}},
	{"canvas-cap", "Canvas Cap", "headwear", "A six-panel cap in washed canvas. Back in the spring.", 2600, 0, []variantView{
		{"CAP-OLV-OS", "Olive / One size", 0}}},
	{"canvas-tote", "Canvas Tote", "bags", "A sturdy tote with an inside pocket.", 1800, 1, []variantView{
		{"TOTE-NAT", "Natural", 4}}},
	{"waxed-weekender", "Waxed Weekender", "bags", "A waxed cotton holdall that fits a long weekend.", 14500, 2, []variantView{
		{"WKD-TAN", "Tan", 2}}},
	{"roll-top-backpack", "Roll-top Backpack", "bags", "A waterproof roll-top pack with a laptop sleeve.", 11000, 3, []variantView{
		{"RTB-BLK", "Black", 5}, {"RTB-OLV", "Olive", 3}}},
	{"stoneware-mug", "Stoneware Mug", "home", "A hand-glazed mug that holds 350 ml.", 1600, 4, []variantView{
		{"MUG-CRM", "Cream", 12}, {"MUG-SLT", "Slate", 10}}},
	{"linen-tea-towel", "Linen Tea Towel", "home", "Stonewashed linen that dries quickly.", 1200, 5, []variantView{
		{"TWL-NAT", "Natural", 15}, {"TWL-STR", "Stripe", 8}}},
	{"wool-throw", "Wool Throw", "home", "A soft throw woven from undyed wool.", 12000, 0, []variantView{
		{"THR-GRY", "Grey", 3}}},
	{"beeswax-candle", "Beeswax Candle", "home", "A pillar candle that burns for 40 hours.", 2200, 1, []variantView{
		{"CDL-HNY", "Honey", 7}}},
}

// seedCost is the bcrypt cost of the seeded accounts' hashes. Their
// passwords are published (the README, the demo's banner): a costly hash of
// them protects nothing, and every new demo, and every test that starts
// one, would pay for it, a second a hash under the race detector. Accounts
// people make by signing up get [bcryptCost].
const seedCost = bcrypt.MinCost

// seed fills a new database: categories, products, variants, the demo
// user and the administrator; for a realistic seed, then its catalog,
// shoppers and reviews (realistic.go).
func seed(ctx context.Context, tx *sqldb.Tx, realistic bool) error {
	for i, c := range seedCategories {
		if _, err := tx.Exec(ctx, `INSERT INTO categories (slug, name, position) VALUES ($1, $2, $3)`, c.Slug, c.Name, i); err != nil {
			return err
		}
	}
	if err := insertProducts(ctx, tx, seedProducts, 0); err != nil {
		return err
	}
	alice, err := insertUser(ctx, tx, DemoEmail, "Alice Liddell", DemoPassword, seedCost)
	if err != nil {
		return err
	}
	if err := seedDemoWallet(ctx, tx, alice); err != nil {
		return err
	}
	if err := seedAdmin(ctx, tx); err != nil {
		return err
	}
	if realistic {
		return seedRealistic(ctx, tx)
	}
	return nil
}

// insertProducts adds products and their variants, the first at position
// from.
func insertProducts(ctx context.Context, tx *sqldb.Tx, products []seedProduct, from int) error {
	for i, p := range products {
		var id int64
		err := tx.QueryRow(ctx, `INSERT INTO products (slug, name, description, category, price, tone, position) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
			p.slug, p.name, p.description, p.category, p.price, p.tone, from+i).Scan(&id)
		if err != nil {
			return fmt.Errorf("product %s: %w", p.slug, err)
		}
		for j, v := range p.variants {
			if _, err := tx.Exec(ctx, `INSERT INTO variants (sku, product_id, label, stock, position) VALUES ($1, $2, $3, $4, $5)`,
				v.SKU, id, v.Label, v.Stock, j); err != nil {
				return fmt.Errorf("variant %s: %w", v.SKU, err)
			}
		}
	}
	return nil
}

// AdminEmail and AdminPassword sign in the demo's administrator, who sees
// /admin.
const (
	AdminEmail    = "admin@example.com"
	AdminPassword = "admin"
)

// seedAdmin adds the administrator.
func seedAdmin(ctx context.Context, tx *sqldb.Tx) error {
	id, err := insertUser(ctx, tx, AdminEmail, "Ada Admin", AdminPassword, seedCost)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE users SET is_admin = 1 WHERE id = $1`, id)
	return err
}

// seedDemoWallet gives the demo user (id) a second shipping address and a
// second card beside the ones every customer gets ("home", Visa ending
// 4242), so the checkout has something to choose.
func seedDemoWallet(ctx context.Context, tx *sqldb.Tx, id int64) error {
	if err := addAddress(ctx, tx, id, addressView{ID: "work", Name: "Alice Liddell", Line1: "500 Market St", City: "Shelbyville", Postcode: "54321", Country: "US"}); err != nil {
		return err
	}
	return addCard(ctx, tx, id, cardView{Last4: "1881", Brand: "Mastercard"})
}
