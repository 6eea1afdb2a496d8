package shop

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/affordances/affordances-go/internal/sqldb"
)

// The realistic seed ([Options.Seed] "realistic") is the demo seed and a
// catalog of the size a small real shop has: 192 more products (206 in
// all, 24 to 52 more in each category), each with its variants, and the
// reviews of 40 seeded shoppers, 0 to 12 a product (1,237 in all).
// Everything comes from a fixed generator, so every seeding makes the
// same rows; the demo's products, users and ids come first and are as the
// demo seed makes them.

// realisticLines are the product lines the realistic catalog adds to each
// category: every style in every material, as a shop's range is. Each
// line has its variants: colours, and sizes for clothes.
var realisticLines = []struct {
	category, noun, about string
	price                 int // cents, of the first material; the others cost more
	materials, styles     []string
	colours, sizes        []string
}{
	{"tees", "Tee", "A tee cut from %s, made to be worn every day.", 2400,
		[]string{"Slub Cotton", "Pima Cotton", "Hemp", "Bamboo"},
		[]string{"Crew", "V-neck", "Henley", "Ringer", "Raglan", "Boxy", "Long Sleeve", "Pocket", "Muscle", "Tall", "Curved Hem", "Garment-dyed", "Striped", "Oversized", "Baseball"},
		[]string{"White", "Black", "Navy", "Sage"}, []string{"S", "M", "L"}},
	{"knitwear", "Sweater", "A sweater knitted from %s, warm and easy to wash.", 7200,
		[]string{"Lambswool", "Cashmere", "Cotton", "Alpaca"},
		[]string{"Crew", "V-neck", "Roll-neck", "Cable", "Shawl", "Half-zip", "Fisherman", "Ribbed", "Mock-neck"},
		[]string{"Oat", "Charcoal", "Forest"}, []string{"M", "L"}},
	{"headwear", "Hat", "A hat in %s, one size, adjustable.", 2200,
		[]string{"Wool", "Cotton Twill", "Corduroy"},
		[]string{"Bucket", "Trapper", "Cycling", "Baker Boy", "Watch", "Dad", "Sun", "Rain", "Flat"},
		[]string{"Black", "Rust", "Olive"}, []string{"One size"}},
	{"bags", "Bag", "A bag of %s with an inside pocket and a zip.", 3600,
		[]string{"Canvas", "Leather", "Nylon", "Waxed Cotton"},
		[]string{"Tote", "Messenger", "Sling", "Duffel", "Bucket", "Market", "Hip", "Camera", "Laptop", "Drawstring", "Shopper", "Crossbody"},
		[]string{"Black", "Tan"}, nil},
	{"home", "", "Woven from %s in small batches, for the home.", 1400,
		[]string{"Linen", "Cotton", "Wool"},
		[]string{"Napkin Set", "Cushion Cover", "Blanket", "Apron", "Place Mat", "Bath Towel", "Table Runner", "Hand Towel"},
		[]string{"Natural", "Slate"}, nil},
	{"home", "", "Made of %s in small batches, for the home.", 1800,
		[]string{"Stoneware", "Oak", "Glass"},
		[]string{"Bowl", "Vase", "Plant Pot", "Tray", "Coaster Set", "Serving Board", "Cup", "Jug"},
		[]string{"Natural", "Slate"}, nil},
}

// realisticProducts returns the products the realistic seed adds: the
// lines' products in turn, so that each category gets its share.
func realisticProducts() []seedProduct {
	var out []seedProduct
	for _, l := range realisticLines {
		for i, style := range l.styles {
			for j, material := range l.materials {
				if (i+j)%7 == 6 { // a range has gaps: not every style in every material
					continue
				}
				name := strings.TrimSpace(material + " " + style + " " + l.noun)
				slug := strings.ToLower(strings.NewReplacer(" ", "-").Replace(name))
				p := seedProduct{slug: slug, name: name, category: l.category,
					description: fmt.Sprintf(l.about, strings.ToLower(material)),
					price:       l.price + 400*j + 200*(i%4), tone: (i + j) % 6}
				for k, colour := range l.colours {
					// R012-BLK-M is the black M of the 12th product.
					sku := fmt.Sprintf("R%03d-%s", len(out)+1, strings.ToUpper(colour[:3]))
					stock := (7*len(out) + 3*k) % 16
					if l.sizes == nil {
						p.variants = append(p.variants, variantView{SKU: sku, Label: colour, Stock: stock})
					}
					for n, size := range l.sizes {
						code := size
						if size == "One size" {
							code = "OS"
						}
						p.variants = append(p.variants, variantView{SKU: sku + "-" + code, Label: colour + " / " + size, Stock: (stock + 5*n) % 16})
					}
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// shopperNames are the realistic seed's shoppers, who write its reviews.
// Each signs in as the demo users do: the part of the email before the @
// is the password (jonas.berg@example.net / jonas.berg).
var shopperNames = strings.Split("Jonas Berg,Maya Patel,Tom Okafor,Ines Costa,Lena Novak,Sam Reid,Priya Shah,"+
	"Omar Haddad,Clara Jensen,Luis Romero,Hana Sato,Ben Carter,Eva Lindqvist,Noah Fischer,Zoe Martin,Ravi Kumar,"+
	"Julia Weber,Kofi Mensah,Anna Kowalski,Leo Rossi,Mia Dubois,Theo Walsh,Sara Nilsson,Yusuf Demir,Nora Quinn,"+
	"Ivan Petrov,Lucy Evans,Marco Bianchi,Elif Yilmaz,Finn Murphy,Aiko Tanaka,Dan Levi,Rosa Alvarez,Kai Meyer,"+
	"Amara Obi,Pete Novak,Lisa Horvat,Jack Byrne,Nina Sokol,Oscar Lund", ",")

// reviewLines are what seeded reviews say, by rating (index 0 is one star).
var reviewLines = [5][]string{
	{"It came damaged and the shop was slow to answer.", "Not what the photos show. Sent it back."},
	{"The colour is duller than on screen.", "Fine at first, but it wore out within a month.", "Smaller than I expected."},
	{"Does the job; nothing special for the price.", "Decent, though the finish is a little rough in places.", "Good quality, but it runs large."},
	{"Well made and arrived quickly.", "Very nice. I would buy it again in another colour.", "Solid and simple; exactly what I wanted.", "Lovely, though it took a week to arrive."},
	{"Beautiful quality, better than I hoped.", "I use it every day and it still looks new.", "Bought one for a friend too. Perfect.", "Excellent: the fit and the feel are just right.", "Worth every penny."},
}

// seedRealistic adds the realistic seed's products, after the demo's,
// its shoppers, after the demo's users, and their reviews of every
// product, dated in the year before 1 December 2025.
func seedRealistic(ctx context.Context, tx *sqldb.Tx) error {
	if err := insertProducts(ctx, tx, realisticProducts(), len(seedProducts)); err != nil {
		return err
	}
	var shoppers []int64
	for _, name := range shopperNames {
		email := strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "@example.net"
		id, err := insertUser(ctx, tx, email, name, strings.TrimSuffix(email, "@example.net"), seedCost)
		if err != nil {
			return err
		}
		shoppers = append(shoppers, id)
	}
	rows, err := tx.Query(ctx, `SELECT id FROM products ORDER BY position`)
	if err != nil {
		return err
	}
	var products []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		products = append(products, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	end := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	for i, product := range products {
		n := (i*7 + 3) % 13 // 0 to 12 reviews
		for j := range n {
			rating := 5 - (i+3*j)%5/2 - (i*j)%7/6*2 // mostly 4 and 5, some lower
			lines := reviewLines[rating-1]
			created := end.Add(-time.Duration(i*37+j*211+5) * time.Hour)
			_, err := tx.Exec(ctx, `INSERT INTO reviews (product_id, user_id, rating, body, created) VALUES ($1, $2, $3, $4, $5)`,
				product, shoppers[(i*11+j*7)%len(shoppers)], rating, lines[(i+j)%len(lines)], created.Unix())
			if err != nil {
				return fmt.Errorf("review: %w", err)
			}
		}
	}
	return nil
}
