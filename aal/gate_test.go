package aal_test

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/affordances/affordances-go/aal"
)

const shop = "https://shop.example"

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// placeOrder is the affordance of the EXAMPLES fragment.
func placeOrder() aal.Affordance {
	var f aal.Fragment
	if err := json.Unmarshal([]byte(examplesFragment), &f); err != nil {
		panic(err)
	}
	return f.Affordances[0]
}

// affordance returns a valid affordance changed by edit.
func affordance(edit func(a *aal.Affordance)) aal.Affordance {
	a := aal.Affordance{ID: "save", Selector: `[data-aal="save"]`, Action: aal.Update, Label: "Save", Trust: aal.TrustUser}
	if edit != nil {
		edit(&a)
	}
	return a
}

func usd(amount float64) *aal.Cost { return &aal.Cost{Currency: "USD", Amount: amount} }

func grant(t *testing.T, s string) aal.Grant {
	t.Helper()
	g, err := aal.ParseGrant(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestClassify covers each class and each override of docs/protocol.md decision 8,
// with publishers that lie.
func TestClassify(t *testing.T) {
	type flags struct{ destructive, reversible, financial bool }
	for _, tc := range []struct {
		name    string
		a       aal.Affordance
		expose  string
		classes []aal.Class
		flags   flags
		amount  *aal.Cost
		reason  string // one of the reasons contains it
	}{
		// The classes (docs/protocol.md decision 8).
		{name: "safe navigate needs nothing", a: affordance(func(a *aal.Affordance) { a.Action, a.Trust = aal.Navigate, aal.TrustSafe })},
		{name: "destructive but reversible needs nothing", a: affordance(func(a *aal.Affordance) { a.Destructive, a.Reversible = true, true }),
			flags: flags{destructive: true, reversible: true}},
		{name: "destructive and irreversible", a: affordance(func(a *aal.Affordance) { a.Destructive = true }),
			classes: []aal.Class{aal.ClassDestructive}, flags: flags{destructive: true}, reason: "Destructive and cannot be undone"},
		{name: "trust financial", a: affordance(func(a *aal.Affordance) { a.Trust = aal.TrustFinancial }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}, reason: `trust "financial"`},
		{name: "cost above zero", a: affordance(func(a *aal.Affordance) { a.Cost = usd(12) }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}, amount: usd(12), reason: "Costs USD 12.00."},
		{name: "cost zero is no cost", a: affordance(func(a *aal.Affordance) { a.Cost = usd(0) })},
		{name: "trust admin", a: affordance(func(a *aal.Affordance) { a.Trust = aal.TrustAdmin }),
			classes: []aal.Class{aal.ClassAdmin}, reason: `trust "admin"`},
		{name: "expose confirm", a: affordance(nil), expose: "confirm",
			classes: []aal.Class{aal.ClassConfirm}, reason: `expose "confirm"`},
		{name: "expose session", a: affordance(nil), expose: "session"},
		{name: "the EXAMPLES purchase", a: placeOrder(),
			classes: []aal.Class{aal.ClassDestructive, aal.ClassFinancial}, flags: flags{destructive: true, financial: true}, amount: usd(36),
			reason: "Places an order: destructive, cannot be undone, and costs USD 36.00."},
		{name: "every class at once", a: affordance(func(a *aal.Affordance) { a.Destructive, a.Trust, a.Cost = true, aal.TrustAdmin, usd(1) }), expose: "confirm",
			classes: []aal.Class{aal.ClassDestructive, aal.ClassFinancial, aal.ClassAdmin, aal.ClassConfirm}, flags: flags{destructive: true, financial: true}, amount: usd(1)},

		// The overrides, which only tighten (docs/protocol.md decision 8).
		{name: "a purchase declared non-destructive, reversible and safe", a: affordance(func(a *aal.Affordance) {
			a.Action, a.Destructive, a.Reversible, a.Trust = aal.Purchase, false, true, aal.TrustSafe
		}), classes: []aal.Class{aal.ClassDestructive, aal.ClassFinancial}, flags: flags{destructive: true, financial: true},
			reason: "The site declares it not destructive and reversible, but a purchase is destructive, irreversible and financial whatever is declared."},
		{name: "a delete declared reversible", a: affordance(func(a *aal.Affordance) { a.Action, a.Destructive, a.Reversible = aal.Delete, true, true }),
			classes: []aal.Class{aal.ClassDestructive}, flags: flags{destructive: true},
			reason: "The site declares it reversible, but a delete is destructive and irreversible whatever is declared."},
		{name: "a delete declared non-destructive", a: affordance(func(a *aal.Affordance) { a.Action = aal.Delete }),
			classes: []aal.Class{aal.ClassDestructive}, flags: flags{destructive: true}, reason: "Deletes something"},
		{name: `a submit labelled "Pay now" with trust safe`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label, a.Trust = aal.Submit, "Pay now", aal.TrustSafe }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}, reason: `Its label "Pay now" names money ("pay")`},
		{name: `a submit with id "place-order"`, a: affordance(func(a *aal.Affordance) {
			a.Action, a.ID, a.Label, a.Trust = aal.Submit, "place-order", "Continue", aal.TrustSafe
		}),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}, reason: `Its id "place-order" names money ("order")`},
		{name: "a submit costing 0.01 with trust safe", a: affordance(func(a *aal.Affordance) { a.Action, a.Trust, a.Cost = aal.Submit, aal.TrustSafe, usd(0.01) }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}, amount: usd(0.01), reason: "Costs USD 0.01."},
		{name: `a submit labelled "Send money"`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label, a.Trust = aal.Submit, "Send money", aal.TrustSafe }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}, reason: `("send money")`},
		{name: `a submit labelled "SendMoney"`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label, a.Trust = aal.Submit, "SendMoney", aal.TrustSafe }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}},
		{name: `a submit with id "send-money"`, a: affordance(func(a *aal.Affordance) { a.Action, a.ID, a.Trust = aal.Submit, "send-money", aal.TrustSafe }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}},
		{name: `a submit labelled "PayNow" (camelCase)`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label = aal.Submit, "PayNow" }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}},
		{name: `a submit labelled "CHECKOUT"`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label = aal.Submit, "CHECKOUT" }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}},
		{name: `a submit with id "tip.jar"`, a: affordance(func(a *aal.Affordance) { a.Action, a.ID = aal.Submit, "tip.jar" }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}},
		{name: `a submit labelled "Subscribe"`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label = aal.Submit, "Subscribe to the newsletter" }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}},
		{name: `a submit labelled "Send your money" (not two words in a row)`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label = aal.Submit, "Send your money" })},
		{name: `a submit labelled "Display settings" (pay inside a word)`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label = aal.Submit, "Display settings" })},
		{name: `a submit labelled "Reorder list" (order inside a word)`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label = aal.Submit, "Reorder list" })},
		{name: `a submit with id "payments2" (plural is another word)`, a: affordance(func(a *aal.Affordance) { a.Action, a.ID = aal.Submit, "payments2" })},
		{name: `a create labelled "Pay now"`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label, a.Trust = aal.Create, "Pay now", aal.TrustUser }),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}, reason: `Its label "Pay now" names money ("pay"), so this create is financial`},
		{name: `an update with id "donate-monthly"`, a: affordance(func(a *aal.Affordance) {
			a.Action, a.ID, a.Label, a.Trust = aal.Update, "donate-monthly", "Save", aal.TrustUser
		}),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}, reason: `Its id "donate-monthly" names money ("donate"), so this update is financial`},
		{name: `an update labelled "Save settings"`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label, a.Trust = aal.Update, "Save settings", aal.TrustUser })},
		{name: `a navigate labelled "Pay now" (only submit, create and update are read for money)`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label = aal.Navigate, "Pay now" })},
		{name: `a toggle labelled "Subscribe" (not read for money)`, a: affordance(func(a *aal.Affordance) { a.Action, a.Label = aal.Toggle, "Subscribe" })},
		{name: `a submit labelled in fullwidth "Ｐａｙ now" (NFKC)`, a: affordance(func(a *aal.Affordance) {
			a.Action, a.Label, a.Trust = aal.Submit, "\uff30\uff41\uff59 now", aal.TrustSafe
		}),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}, reason: `("pay")`},
		{name: `a create labelled in mathematical bold "𝐁𝐮𝐲" (NFKC)`, a: affordance(func(a *aal.Affordance) {
			a.Action, a.Label, a.Trust = aal.Create, "\U0001d401\U0001d42e\U0001d432", aal.TrustUser
		}),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}, reason: `("buy")`},
		{name: `an update with a fullwidth id "ｏｒｄｅｒ" (NFKC)`, a: affordance(func(a *aal.Affordance) {
			a.Action, a.ID, a.Label, a.Trust = aal.Update, "\uff4f\uff52\uff44\uff45\uff52", "Save", aal.TrustUser
		}),
			classes: []aal.Class{aal.ClassFinancial}, flags: flags{financial: true}, reason: `("order")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := aal.Classify(tc.a, tc.expose)
			if !slices.Equal(as.Classes, tc.classes) {
				t.Errorf("classes: got %q, want %q", as.Classes, tc.classes)
			}
			if got := (flags{as.Destructive, as.Reversible, as.Financial}); got != tc.flags {
				t.Errorf("flags: got %+v, want %+v", got, tc.flags)
			}
			if (as.Amount == nil) != (tc.amount == nil) || as.Amount != nil && *as.Amount != *tc.amount {
				t.Errorf("amount: got %v, want %v", as.Amount, tc.amount)
			}
			if tc.reason != "" && !slices.ContainsFunc(as.Reasons, func(r string) bool { return strings.Contains(r, tc.reason) }) {
				t.Errorf("reasons: got %q, want one that contains %q", as.Reasons, tc.reason)
			}
			for _, r := range as.Reasons {
				if !strings.HasSuffix(r, ".") || strings.ToUpper(r[:1]) != r[:1] {
					t.Errorf("reason %q is not a sentence", r)
				}
			}
		})
	}
}

// TestMoneyWordsBySkeleton: a submit, create or update whose label names
// money once NFKC folded and compared by its Unicode TR39 confusable
// skeleton is financial (docs/protocol.md decision 8), so an all-Cyrillic "Рау" is
// not posted unattended; a word that only resembles a money word ("Play")
// is not, and neither is a money word of another language (the list is
// English). The label rule of docs/protocol.md decision 7 is unchanged: it refuses a
// word mixing Latin with Cyrillic or Greek letters, and a word of one
// script ("Рау", "Оплатить") passes it.
func TestMoneyWordsBySkeleton(t *testing.T) {
	for _, tc := range []struct {
		name, label string
		financial   bool
		reason      string // in the reasons when financial
		mixed       bool   // refused by the label rule
	}{
		{name: `Cyrillic "Рау"`, label: "\u0420\u0430\u0443", financial: true, reason: `names money ("Рау" reads as "pay")`},
		{name: `Cyrillic "Рау now"`, label: "\u0420\u0430\u0443 now", financial: true},
		{name: `Cyrillic capitals "РАУ"`, label: "\u0420\u0410\u0423", financial: true},
		{name: `Cyrillic and Latin "Рaу"`, label: "\u0420a\u0443", financial: true, mixed: true},
		{name: `Latin and Cyrillic "Pау"`, label: "P\u0430\u0443", financial: true, mixed: true},
		{name: `Greek "Βυγ", which reads as "Buy" as written`, label: "\u0392\u03c5\u03b3", financial: true, reason: `reads as "buy"`},
		{name: `fullwidth "Ｐａｙ"`, label: "\uff30\uff41\uff59", financial: true, reason: `names money ("pay")`},
		{name: `fullwidth capitals "ＰＡＹ"`, label: "\uff30\uff21\uff39", financial: true},
		{name: `"Payrnent" (rn reads as m)`, label: "Payrnent", financial: true, reason: `reads as "payment"`},
		{name: `"Рlау" is not "Pay"`, label: "\u0420l\u0430\u0443", mixed: true},
		{name: `"Play" is not "Pay"`, label: "Play"},
		{name: `"Display" holds "pay" inside a word`, label: "Display"},
		{name: `"Páy" is another word (a mark is no look-alike)`, label: "P\u00e1y"},
		{name: `Russian "Оплатить" (pay, in Russian: not an English money word)`, label: "\u041e\u043f\u043b\u0430\u0442\u0438\u0442\u044c"},
		{name: `Greek "Πληρωμή" (payment, in Greek)`, label: "\u03a0\u03bb\u03b7\u03c1\u03c9\u03bc\u03ae"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := affordance(func(a *aal.Affordance) { a.Action, a.Label, a.Trust = aal.Submit, tc.label, aal.TrustSafe })
			as := aal.Classify(a, "")
			if as.Financial != tc.financial {
				t.Errorf("financial: got %v, want %v (reasons %q)", as.Financial, tc.financial, as.Reasons)
			}
			if tc.reason != "" && !slices.ContainsFunc(as.Reasons, func(r string) bool { return strings.Contains(r, tc.reason) }) {
				t.Errorf("reasons: got %q, want one that contains %q", as.Reasons, tc.reason)
			}
			ps := aal.ValidateFragment(frag(setAff("label", tc.label)))
			if got := len(ps) > 0; got != tc.mixed {
				t.Errorf("refused by the label rule: got %v (%v), want %v", got, ps, tc.mixed)
			}
			if tc.mixed {
				return
			}
			g := &aal.Gate{Unattended: true, Now: func() time.Time { return now }}
			want := map[bool]aal.Decision{true: aal.Refuse, false: aal.Allow}[tc.financial]
			if v := g.Decide(shop, a, ""); v.Decision != want {
				t.Errorf("unattended: got %s, want %s (reasons %q)", v.Decision, want, v.Reasons)
			}
		})
	}
}

// TestGateDecide covers grants, Unattended and refusals (docs/protocol.md decision 8).
func TestGateDecide(t *testing.T) {
	purchase := placeOrder()
	financialNoAmount := affordance(func(a *aal.Affordance) { a.Action, a.Trust = aal.Submit, aal.TrustFinancial })
	safe := affordance(func(a *aal.Affordance) { a.Action, a.Trust = aal.Navigate, aal.TrustSafe })
	all := []string{"destructive@" + shop, "financial@" + shop, "admin@" + shop, "confirm@" + shop}
	for _, tc := range []struct {
		name       string
		grants     []string
		unattended bool
		origin     string // "" is shop
		a          aal.Affordance
		expose     string
		decision   aal.Decision
		uncovered  []aal.Class
		reason     string
	}{
		{name: "nothing risky is allowed without grants", a: safe, decision: aal.Allow},
		{name: "nothing risky is allowed unattended", a: safe, unattended: true, decision: aal.Allow},
		{name: "a purchase without grants asks", a: purchase, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassDestructive, aal.ClassFinancial}, reason: "ask the person"},
		{name: "a purchase unattended is refused", a: purchase, unattended: true, decision: aal.Refuse,
			uncovered: []aal.Class{aal.ClassDestructive, aal.ClassFinancial}, reason: "no person can be asked"},
		{name: "grants covering every class", a: purchase, grants: []string{"destructive@" + shop, "financial@" + shop}, decision: aal.Allow,
			reason: "Covered by your grant for financial actions on https://shop.example."},
		{name: "a capped grant over the amount", a: purchase, grants: []string{"destructive@" + shop, "financial:50USD@" + shop}, decision: aal.Allow},
		{name: "a capped grant at the amount", a: purchase, grants: []string{"destructive@" + shop, "financial:36.00USD@" + shop}, decision: aal.Allow},
		{name: "a capped grant under the amount", a: purchase, grants: []string{"destructive@" + shop, "financial:20USD@" + shop}, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassFinancial}, reason: "up to USD 20.00 does not reach this action's USD 36.00"},
		{name: "a capped grant in another currency", a: purchase, grants: []string{"destructive@" + shop, "financial:50EUR@" + shop}, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassFinancial}, reason: "is in EUR, and this action costs USD 36.00"},
		{name: "a capped grant and an unknown amount", a: financialNoAmount, grants: []string{"financial:50USD@" + shop}, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassFinancial}, reason: "declares no amount"},
		{name: "an uncapped grant and an unknown amount", a: financialNoAmount, grants: []string{"financial@" + shop}, decision: aal.Allow},
		{name: "an expired grant", a: purchase, grants: []string{"destructive@" + shop, "financial@" + shop + ",until=2026-06-01T12:00:00Z"}, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassFinancial}, reason: "has expired"},
		{name: "a grant not yet expired", a: purchase, grants: []string{"destructive@" + shop, "financial@" + shop + ",until=2026-06-01T12:00:01Z"}, decision: aal.Allow},
		{name: "a grant for another origin", a: purchase, grants: []string{"destructive@https://other.example", "financial@" + shop}, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassDestructive}, reason: "is for another site"},
		{name: "a grant for the same host over http", a: purchase, grants: []string{"destructive@http://shop.example", "financial@" + shop}, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassDestructive}},
		{name: "a grant for another port", a: purchase, grants: []string{"destructive@https://shop.example:8443", "financial@" + shop}, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassDestructive}},
		{name: "origins compared without case and default port", a: purchase, origin: "HTTPS://Shop.Example:443/checkout",
			grants: []string{"destructive@https://SHOP.example", "financial@https://shop.example:443/"}, decision: aal.Allow},
		{name: "origins compared as RFC 6454 serialises them", a: purchase, origin: "https://BÜCHER.example:0443/checkout",
			grants: []string{"destructive@https://xn--bcher-kva.example", "financial@https://bücher.example"}, decision: aal.Allow},
		{name: "a site of another scheme has no origin", a: purchase, origin: "ftp://shop.example", grants: all, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassDestructive, aal.ClassFinancial}, reason: "is not an origin"},
		{name: "a grant of the wrong class", a: purchase, grants: []string{"admin@" + shop, "confirm@" + shop}, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassDestructive, aal.ClassFinancial}},
		{name: "a grant without origin covers nothing", a: purchase, grants: []string{"destructive", "financial"}, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassDestructive, aal.ClassFinancial}, reason: "names no site origin"},
		{name: "a site origin that is no origin", a: purchase, origin: "shop.example", grants: all, decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassDestructive, aal.ClassFinancial}, reason: "is not an origin"},
		{name: "a confirm action", a: affordance(nil), expose: "confirm", decision: aal.Ask,
			uncovered: []aal.Class{aal.ClassConfirm}, reason: `expose "confirm"`},
		{name: "a confirm action with a grant", a: affordance(nil), expose: "confirm", grants: []string{"confirm@" + shop}, decision: aal.Allow},
		{name: "an admin action", a: affordance(func(a *aal.Affordance) { a.Trust = aal.TrustAdmin }), unattended: true, decision: aal.Refuse,
			uncovered: []aal.Class{aal.ClassAdmin}},
		{name: "a lying purchase still asks", a: affordance(func(a *aal.Affordance) { a.Action, a.Reversible, a.Trust = aal.Purchase, true, aal.TrustSafe }),
			grants: []string{"destructive:100USD@" + shop}, decision: aal.Ask, uncovered: []aal.Class{aal.ClassDestructive, aal.ClassFinancial}},

		// docs/protocol.md decision 7 broken: refused whatever the grants.
		{name: "refused: bad id", a: affordance(func(a *aal.Affordance) { a.ID = "Place Order" }), grants: all, decision: aal.Refuse, reason: "The id"},
		{name: "refused: label with an invisible character", a: affordance(func(a *aal.Affordance) { a.Label = "Save\u200b" }), grants: all, decision: aal.Refuse,
			reason: `The label has an invisible character U+200B (ZERO WIDTH SPACE) at position 5: "Save\u200b".`},
		{name: "refused: label of 121 characters", a: affordance(func(a *aal.Affordance) { a.Label = strings.Repeat("x", 121) }), grants: all, decision: aal.Refuse},
		{name: "refused: label that is not UTF-8", a: affordance(func(a *aal.Affordance) { a.Label = "Save\xff" }), grants: all, decision: aal.Refuse, reason: "not valid UTF-8"},
		{name: "refused: empty selector", a: affordance(func(a *aal.Affordance) { a.Selector = "" }), grants: all, decision: aal.Refuse},
		{name: "refused: unknown action", a: affordance(func(a *aal.Affordance) { a.Action = "pay" }), grants: all, decision: aal.Refuse, reason: "is not an AAL 0.1 action type"},
		{name: "refused: unknown trust", a: affordance(func(a *aal.Affordance) { a.Trust = "root" }), grants: all, decision: aal.Refuse, reason: "is not an AAL 0.1 trust class"},
		{name: "refused: empty trust", a: affordance(func(a *aal.Affordance) { a.Trust = "" }), grants: all, decision: aal.Refuse},
		{name: "refused: negative cost", a: affordance(func(a *aal.Affordance) { a.Cost = usd(-5) }), grants: all, decision: aal.Refuse, reason: "negative"},
		{name: "refused: cost that is not a number", a: affordance(func(a *aal.Affordance) { a.Cost = usd(math.NaN()) }), grants: all, decision: aal.Refuse},
		{name: "refused: cost over 1e9", a: affordance(func(a *aal.Affordance) { a.Cost = usd(1e9 + 1) }), grants: all, decision: aal.Refuse},
		{name: "refused: currency in lowercase", a: affordance(func(a *aal.Affordance) { a.Cost = &aal.Cost{Currency: "usd", Amount: 1} }), grants: all, decision: aal.Refuse},
		{name: "refused: 17 preconditions", a: affordance(func(a *aal.Affordance) { a.Preconditions = slices.Repeat([]string{"cart.non_empty"}, 17) }), grants: all, decision: aal.Refuse},
		{name: "refused: bad success_schema", a: affordance(func(a *aal.Affordance) { a.SuccessSchema = map[string]string{"id": "uuid"} }), grants: all, decision: aal.Refuse},
		{name: "refused: a safe navigate with a bad id", a: affordance(func(a *aal.Affordance) { a.Action, a.Trust, a.ID = aal.Navigate, aal.TrustSafe, "" }), decision: aal.Refuse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &aal.Gate{Unattended: tc.unattended, Now: func() time.Time { return now }}
			for _, s := range tc.grants {
				g.Grants = append(g.Grants, grant(t, s))
			}
			origin := tc.origin
			if origin == "" {
				origin = shop
			}
			v := g.Decide(origin, tc.a, tc.expose)
			if v.Decision != tc.decision {
				t.Errorf("decision: got %s, want %s (reasons %q)", v.Decision, tc.decision, v.Reasons)
			}
			if !slices.Equal(v.Uncovered, tc.uncovered) {
				t.Errorf("uncovered: got %q, want %q", v.Uncovered, tc.uncovered)
			}
			if tc.reason != "" && !slices.ContainsFunc(v.Reasons, func(r string) bool { return strings.Contains(r, tc.reason) }) {
				t.Errorf("reasons: got %q, want one that contains %q", v.Reasons, tc.reason)
			}
			if len(v.Reasons) == 0 {
				t.Error("no reason")
			}
			if v.Decision != aal.Refuse && !slices.Equal(v.Classes, aal.Classify(tc.a, tc.expose).Classes) {
				t.Errorf("classes: got %q, want Classify's", v.Classes)
			}
		})
	}
}

// TestGateZero checks that the zero Gate, and a nil one, ask for what is
// risky (docs/protocol.md decision 8: without a grant the consumer asks).
func TestGateZero(t *testing.T) {
	var zero aal.Gate
	var null *aal.Gate
	for name, g := range map[string]*aal.Gate{"zero": &zero, "nil": null} {
		if got := g.Decide(shop, placeOrder(), ""); got.Decision != aal.Ask {
			t.Errorf("%s gate: got %s, want ask", name, got.Decision)
		}
	}
}

// TestVerdictReasons checks the sentences a person reads for the EXAMPLES
// purchase.
func TestVerdictReasons(t *testing.T) {
	g := &aal.Gate{Grants: []aal.Grant{grant(t, "financial:20USD@"+shop)}, Now: func() time.Time { return now }}
	got := g.Decide(shop, placeOrder(), "").Reasons
	want := []string{
		"Places an order: destructive, cannot be undone, and costs USD 36.00.",
		"Your grant for financial actions on https://shop.example up to USD 20.00 does not reach this action's USD 36.00.",
		"It needs a person's authority for destructive and financial actions, and no grant covers it on https://shop.example: ask the person.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestParseGrant(t *testing.T) {
	until := time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want aal.Grant
		text string // String(); "" is in
	}{
		{"financial:50EUR", aal.Grant{Class: aal.ClassFinancial, Max: &aal.Cost{Currency: "EUR", Amount: 50}}, ""},
		{"financial:50.00EUR@https://shop.example", aal.Grant{Class: aal.ClassFinancial, Origin: shop, Max: &aal.Cost{Currency: "EUR", Amount: 50}}, "financial:50EUR@https://shop.example"},
		{"financial:0.5usd", aal.Grant{Class: aal.ClassFinancial, Max: &aal.Cost{Currency: "USD", Amount: 0.5}}, "financial:0.5USD"},
		{"admin@https://shop.example", aal.Grant{Class: aal.ClassAdmin, Origin: shop}, ""},
		{"admin@HTTPS://Shop.Example:443/", aal.Grant{Class: aal.ClassAdmin, Origin: shop}, "admin@https://shop.example"},
		{"destructive@http://127.0.0.1:8080", aal.Grant{Class: aal.ClassDestructive, Origin: "http://127.0.0.1:8080"}, ""},
		{"confirm@http://[::1]:80", aal.Grant{Class: aal.ClassConfirm, Origin: "http://[::1]"}, "confirm@http://[::1]"},
		{"financial:50EUR@https://shop.example,until=2026-12-31T23:59:59Z", aal.Grant{Class: aal.ClassFinancial, Origin: shop, Max: &aal.Cost{Currency: "EUR", Amount: 50}, Expires: until}, ""},
		{"destructive,until=2026-12-31T23:59:59Z", aal.Grant{Class: aal.ClassDestructive, Expires: until}, ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			g, err := aal.ParseGrant(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if g.Class != tc.want.Class || g.Origin != tc.want.Origin || !g.Expires.Equal(tc.want.Expires) ||
				(g.Max == nil) != (tc.want.Max == nil) || g.Max != nil && *g.Max != *tc.want.Max {
				t.Errorf("got %+v, want %+v", g, tc.want)
			}
			text := tc.text
			if text == "" {
				text = tc.in
			}
			if got := g.String(); got != text {
				t.Errorf("String() = %q, want %q", got, text)
			}
			if again, err := aal.ParseGrant(g.String()); err != nil || again.String() != g.String() {
				t.Errorf("ParseGrant(String()) = %v, %v", again, err)
			}
		})
	}
	for _, tc := range []struct{ in, want string }{
		{"", "no class"},
		{"finance:50EUR", `unknown class "finance"`},
		{"Financial", `unknown class "Financial"`},
		{"financial:EUR50", `the cap "EUR50" is not an amount followed by a currency code`},
		{"financial:50", `the cap "50" is not an amount`},
		{"financial:-5EUR", "is not an amount"},
		{"financial:1e3EUR", "is not an amount"},
		{"financial:50 EUR", "is not an amount"},
		{"financial:2000000000EUR", "over the largest amount"},
		{"admin@", `nothing after "@"`},
		{"admin@shop.example", "is not an origin"},
		{"admin@https://shop.example/admin", `write "https://shop.example"`},
		{"admin@https://user@shop.example", "more than a scheme, a host and a port"},
		{"admin@ftp://shop.example", "its scheme is ftp; an origin's is http or https"},
		{"admin@https://shop.example:70000", "its port is not a number from 1 to 65535"},
		{"admin@" + shop + ",until=tomorrow", "is not an RFC 3339 time"},
		{"admin@" + shop + ",for=1h", `unknown option "for=1h"`},
	} {
		t.Run("error "+tc.in, func(t *testing.T) {
			_, err := aal.ParseGrant(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "aal: grant ") {
				t.Errorf("got %v, want an error that starts with \"aal: grant\" and contains %q", err, tc.want)
			}
		})
	}
}
