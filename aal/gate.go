package aal

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/affordances/affordances-go/internal/weborigin"
	"golang.org/x/text/unicode/norm"
)

// A Class is a kind of risk for which an affordance needs a person's
// authority (docs/protocol.md decision 8).
type Class string

// The classes of docs/protocol.md decision 8, in the order [Classify] lists them.
const (
	// ClassDestructive: destructive and not reversible.
	ClassDestructive Class = "destructive"
	// ClassFinancial: trust financial, or a cost above zero, or financial
	// by an override.
	ClassFinancial Class = "financial"
	// ClassAdmin: trust admin.
	ClassAdmin Class = "admin"
	// ClassConfirm: the Affordances action it maps to has expose "confirm".
	ClassConfirm Class = "confirm"
)

// Classes returns every [Class] in the order [Classify] lists them, in a
// new slice.
func Classes() []Class { return []Class{ClassDestructive, ClassFinancial, ClassAdmin, ClassConfirm} }

// An Assessment is what an affordance risks once the overrides of
// docs/protocol.md decision 8 have tightened what its publisher declared.
type Assessment struct {
	// Destructive, Reversible and Financial are the effective flags.
	Destructive bool
	Reversible  bool
	Financial   bool
	// Classes needing authority, in the order of [Classes]; empty when
	// none does.
	Classes []Class
	// Amount is the cost when it is above zero, nil otherwise.
	Amount *Cost
	// Reasons say why, in sentences for a person, the overrides included.
	Reasons []string
}

// moneyWords name money in the id or label of a submit, a create or an
// update (docs/protocol.md decision 8);
// "send money" is two words in a row.
var moneyWords = []string{"pay", "payment", "checkout", "purchase", "buy", "order", "transfer", "donate", "subscribe", "withdraw", "deposit", "tip", "bid"}

// Classify assesses a, which maps to an Affordances action with the given
// expose ("" when there is none or it is unknown). The overrides of
// docs/protocol.md decision 8 only tighten what a declares: a purchase is destructive,
// irreversible and financial whatever is declared; a delete is destructive
// and irreversible; a submit, a create or an update is financial when its
// trust is financial, its cost is above zero, or its id or label, after NFKC
// folding ("Ｐａｙ" is "Pay") and compared by its Unicode TR39 confusable
// skeleton (Cyrillic "Рау" reads as "Pay"), names money (pay, payment,
// checkout, purchase, buy, order, transfer, send money, donate, subscribe,
// withdraw, deposit, tip, bid) as whole words in any case. Words are split
// at every character that is not a letter, and in a label also where
// camelCase changes case ("PayNow").
//
// Classify does not check that a follows the rules of docs/protocol.md decision 7;
// [Gate.Decide] does.
func Classify(a Affordance, expose string) Assessment {
	as := Assessment{Destructive: a.Destructive, Reversible: a.Reversible}
	cost := a.Cost != nil && a.Cost.Amount > 0
	if cost {
		c := *a.Cost
		as.Amount = &c
	}
	costs := ""
	if cost {
		costs = "costs " + a.Cost.String()
	}
	var notes []string
	switch a.Action {
	case Purchase:
		as.Destructive, as.Reversible, as.Financial = true, false, true
		what := "commits to pay"
		if cost {
			what = costs
		}
		as.Reasons = append(as.Reasons, fmt.Sprintf("Places an order: destructive, cannot be undone, and %s.", what))
		notes = lies(a, "a purchase is destructive, irreversible and financial")
		if a.Trust != TrustFinancial {
			notes = append(notes, fmt.Sprintf("The site declares its trust %s; a purchase is financial whatever is declared.", quote(string(a.Trust))))
		}
	case Delete:
		as.Destructive, as.Reversible = true, false
		as.Reasons = append(as.Reasons, "Deletes something: destructive and cannot be undone.")
		notes = lies(a, "a delete is destructive and irreversible")
	default:
		if as.Destructive && !as.Reversible {
			as.Reasons = append(as.Reasons, "Destructive and cannot be undone, as the site declares.")
		}
	}
	if a.Action == Submit || a.Action == Create || a.Action == Update {
		switch field, written, word := namesMoney(a); {
		case a.Trust == TrustFinancial, cost:
			as.Financial = true
		case word != "":
			as.Financial = true
			text := a.ID
			if field == "label" {
				text = a.Label
			}
			names := fmt.Sprintf("%q", word)
			if strings.ToLower(written) != word {
				names = fmt.Sprintf("%s reads as %q", quote(written), word)
			}
			as.Reasons = append(as.Reasons, fmt.Sprintf("Its %s %s names money (%s), so this %s is financial whatever its trust says.", field, quote(text), names, a.Action))
		}
	}
	if a.Trust == TrustFinancial {
		as.Financial = true
		if a.Action != Purchase {
			as.Reasons = append(as.Reasons, `Moves money or commits to pay (trust "financial").`)
		}
	}
	if cost {
		as.Financial = true
		if a.Action != Purchase {
			as.Reasons = append(as.Reasons, "Costs "+a.Cost.String()+".")
		}
	}
	if as.Destructive && !as.Reversible {
		as.Classes = append(as.Classes, ClassDestructive)
	}
	if as.Financial {
		as.Classes = append(as.Classes, ClassFinancial)
	}
	if a.Trust == TrustAdmin {
		as.Classes = append(as.Classes, ClassAdmin)
		as.Reasons = append(as.Reasons, `Acts on other users or on the site itself (trust "admin").`)
	}
	if expose == "confirm" {
		as.Classes = append(as.Classes, ClassConfirm)
		as.Reasons = append(as.Reasons, `The site wants a person to confirm this action (expose "confirm").`)
	}
	as.Reasons = append(as.Reasons, notes...)
	return as
}

// lies notes what a's publisher declared that an override tightens.
func lies(a Affordance, rule string) []string {
	var said []string
	if !a.Destructive {
		said = append(said, "not destructive")
	}
	if a.Reversible {
		said = append(said, "reversible")
	}
	if len(said) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("The site declares it %s, but %s whatever is declared.", strings.Join(said, " and "), rule)}
}

// namesMoney returns the field ("id" or "label") of a that names money,
// the word as written and the money word it reads as, or "", "" and "".
func namesMoney(a Affordance) (field, written, word string) {
	for _, f := range []struct{ name, text string }{{"id", a.ID}, {"label", a.Label}} {
		ws := words(norm.NFKC.String(f.text))
		for i, w := range ws {
			switch m := readsAs(w); {
			case slices.Contains(moneyWords, m):
				return f.name, w, m
			case m == "send" && i+1 < len(ws) && readsAs(ws[i+1]) == "money":
				return f.name, w + " " + ws[i+1], "send money"
			}
		}
	}
	return "", "", ""
}

// readsAs returns the money word, or "send" or "money", that the word w
// reads as in any case, or "". A word reads as another when their
// skeletons are equal: in lower case ("Рау" is "pay"), or as written
// (Greek "Βυγ" is "Buy", though its lower case "βυγ" does not look like
// "buy").
func readsAs(w string) string {
	if m := moneySkeletons[skeleton(strings.ToLower(w))]; m != "" {
		return m
	}
	return moneySkeletons[skeleton(w)]
}

// moneySkeletons maps the skeleton of each money word, and of "send" and
// "money", in lower case, title case and upper case, to the word.
var moneySkeletons = func() map[string]string {
	m := map[string]string{}
	for _, w := range append([]string{"send", "money"}, moneyWords...) {
		for _, c := range []string{w, strings.ToUpper(w[:1]) + w[1:], strings.ToUpper(w)} {
			m[skeleton(c)] = w
		}
	}
	return m
}()

//go:generate go run ../internal/confusablesgen

// skeleton returns the Unicode TR39 confusable skeleton of w once NFKC
// folded (docs/protocol.md decision 8): NFD (after NFKC, that is NFKD), each
// character mapped to its prototype in confusables.txt, NFD again. Only
// the prototypes made of ASCII letters are at hand ([prototypes]), so the
// skeleton is exact whenever it is made of ASCII letters, as a money
// word's is, and holds some other character whenever the exact one does.
func skeleton(w string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(w) {
		if p, ok := prototypes[r]; ok {
			b.WriteString(p)
		} else {
			b.WriteRune(r)
		}
	}
	return norm.NFD.String(b.String())
}

// words splits s into words at every character that is not a letter and
// where camelCase changes case: "placeOrder" and "place-order" are "place
// Order" and "place order", "HTTPServer" is "HTTP Server".
func words(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, string(rs[start:end]))
			start = -1
		}
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) {
			flush(i)
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return out
}

// A Grant is a person's standing authority for one class of action on one
// site origin (docs/protocol.md decision 8), optionally capped per action and
// optionally expiring.
//
// A grant covers an affordance's class when the class matches, the
// origins match as RFC 6454 serialises them (scheme and host compared
// without case, a default port dropped: https://Shop.Example:443 is
// https://shop.example; a host with letters beyond ASCII compared by its
// A-labels),
// it has not expired, and, when Max is set, the action's amount is known,
// in Max's currency, and at most Max's amount (an unknown amount or another
// currency is not covered). A grant with an empty Origin covers nothing:
// bind it to the site it is for (a command line tool binds a grant parsed
// without an origin to the site it acts on).
type Grant struct {
	// Class is the class of action the grant covers.
	Class Class
	// Origin is the site, such as https://shop.example.
	Origin string
	// Max caps the amount of each action; nil: no cap.
	Max *Cost
	// Expires is when the grant ends; the zero time: never.
	Expires time.Time
}

// ParseGrant reads a grant written for a command line:
//
//	CLASS[:CAP][@ORIGIN][,until=TIME]
//
// CLASS is destructive, financial, admin or confirm; CAP an amount and a
// currency code with nothing between (50EUR, 49.99USD); ORIGIN a site
// origin (https://shop.example); TIME an RFC 3339 time
// (2026-12-31T23:59:59Z). Examples:
//
//	financial:50EUR@https://shop.example
//	financial:50.00EUR
//	admin@https://shop.example,until=2026-12-31T23:59:59Z
//
// A grant parsed without an origin has an empty Origin (see [Grant]).
// Errors say what is wrong and start with "aal: grant".
func ParseGrant(s string) (Grant, error) {
	fail := func(format string, args ...any) (Grant, error) {
		return Grant{}, fmt.Errorf("aal: grant %q: %s", Visible(s), fmt.Sprintf(format, args...))
	}
	head, opts, _ := strings.Cut(strings.TrimSpace(s), ",")
	var g Grant
	head, origin, hasOrigin := strings.Cut(head, "@")
	class, capText, hasCap := strings.Cut(head, ":")
	g.Class = Class(class)
	switch {
	case class == "":
		return fail("no class; write destructive, financial, admin or confirm first, as in financial:50EUR@https://shop.example")
	case !slices.Contains(Classes(), g.Class):
		return fail("unknown class %s; want destructive, financial, admin or confirm", quote(class))
	}
	if hasCap {
		m := capPattern.FindStringSubmatch(capText)
		if m == nil {
			return fail("the cap %s is not an amount followed by a currency code, such as 50EUR or 49.99USD", quote(capText))
		}
		amount, err := strconv.ParseFloat(m[1], 64)
		if err != nil || amount > MaxAmount {
			return fail("the cap %s is over the largest amount, 1,000,000,000", quote(m[1]))
		}
		g.Max = &Cost{Currency: strings.ToUpper(m[2]), Amount: amount}
	}
	if hasOrigin {
		o, err := grantOrigin(origin)
		if err != nil {
			return fail("%v", err)
		}
		g.Origin = o
	}
	if opts != "" {
		for opt := range strings.SplitSeq(opts, ",") {
			k, v, _ := strings.Cut(opt, "=")
			if k != "until" {
				return fail("unknown option %s; the only option is until=TIME (RFC 3339)", quote(opt))
			}
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return fail("until=%s is not an RFC 3339 time such as 2026-12-31T23:59:59Z", Visible(v))
			}
			g.Expires = t
		}
	}
	return g, nil
}

var capPattern = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)([A-Za-z]{3})$`)

// grantOrigin reads the origin of a grant: an origin, or one with a
// trailing "/".
func grantOrigin(s string) (string, error) {
	if s == "" {
		return "", errors.New(`nothing after "@"; write a site origin such as https://shop.example`)
	}
	o, err := weborigin.Parse(s)
	if err == nil {
		return o, nil
	}
	if o, err2 := weborigin.Of(s); err2 == nil {
		return "", fmt.Errorf("the origin %s has more than a scheme, a host and a port; write %s", quote(s), quote(o))
	}
	return "", fmt.Errorf("the origin %s is not an origin such as https://shop.example: %v", quote(s), err)
}

// String writes g in the syntax [ParseGrant] reads.
func (g Grant) String() string {
	s := string(g.Class)
	if g.Max != nil {
		s += ":" + strconv.FormatFloat(g.Max.Amount, 'f', -1, 64) + g.Max.Currency
	}
	if g.Origin != "" {
		s += "@" + g.Origin
	}
	if !g.Expires.IsZero() {
		s += ",until=" + g.Expires.Format(time.RFC3339)
	}
	return s
}

// describe names the grant for a person: "your grant for financial
// actions on https://shop.example up to EUR 50.00".
func (g Grant) describe() string {
	s := fmt.Sprintf("your grant for %s actions", g.Class)
	if g.Origin != "" {
		s += " on " + Visible(g.Origin)
	}
	if g.Max != nil {
		s += " up to " + g.Max.String()
	}
	if !g.Expires.IsZero() {
		s += " until " + g.Expires.Format(time.RFC3339)
	}
	return s
}

// covers reports whether g covers class on origin (normalised) for an
// action of the given amount (nil: unknown or none) at now; when it does
// not, why says why in a sentence.
func (g Grant) covers(class Class, origin string, amount *Cost, now time.Time) (ok bool, why string) {
	if g.Class != class {
		return false, ""
	}
	if g.Origin == "" {
		return false, fmt.Sprintf("%s names no site origin, so it covers none.", capitalize(g.describe()))
	}
	o, err := weborigin.Of(g.Origin)
	if err != nil || o != origin {
		return false, fmt.Sprintf("%s is for another site.", capitalize(g.describe()))
	}
	if !g.Expires.IsZero() && !now.Before(g.Expires) {
		return false, fmt.Sprintf("%s has expired.", capitalize(g.describe()))
	}
	if g.Max != nil {
		switch {
		case amount == nil:
			return false, fmt.Sprintf("%s has a cap, and this action declares no amount.", capitalize(g.describe()))
		case amount.Currency != g.Max.Currency:
			return false, fmt.Sprintf("%s is in %s, and this action costs %s.", capitalize(g.describe()), g.Max.Currency, amount.String())
		case !(amount.Amount <= g.Max.Amount):
			return false, fmt.Sprintf("%s does not reach this action's %s.", capitalize(g.describe()), amount.String())
		}
	}
	return true, ""
}

// A Decision is what a consumer does with an affordance.
type Decision string

// The decisions of a [Gate].
const (
	// Allow: act without asking.
	Allow Decision = "allow"
	// Ask: show the person the affordance (its id and label through
	// [Visible]) and the reasons, and act only if they agree.
	Ask Decision = "ask"
	// Refuse: do not act.
	Refuse Decision = "refuse"
)

// A Gate decides whether an agent may act on an affordance on its own,
// must ask a person, or must refuse (docs/protocol.md decision 8). The zero Gate has
// no grants and a person to ask: it asks for everything that needs
// authority. A Gate is safe for concurrent use as long as its fields are
// not changed meanwhile.
type Gate struct {
	// Grants are the person's standing authorities.
	Grants []Grant
	// Unattended says no person can be asked: Ask becomes Refuse.
	Unattended bool
	// Now tells the time grants expire against; nil: time.Now.
	Now func() time.Time
}

// A Verdict is a [Gate]'s decision on one affordance, and why.
type Verdict struct {
	Decision Decision
	// Classes needing authority, as [Classify] lists them.
	Classes []Class
	// Uncovered are the classes no live grant covers; empty on Allow.
	Uncovered []Class
	// Amount is the cost when it is above zero.
	Amount *Cost
	// Reasons say why, in sentences for a person. Text from the site in
	// them has passed through [Visible].
	Reasons []string
}

// Decide decides on a, an affordance of the site at origin (an origin such
// as https://shop.example, or any URL of the site), which maps to an
// Affordances action with the given expose ("" when unknown). An affordance that
// breaks a rule of docs/protocol.md decision 7 (an id, a label, a selector, an action
// or trust outside the closed sets, a cost, a precondition...) is refused
// whatever the grants. Otherwise Decide allows it when no class needs
// authority or a live grant for origin covers every class, and asks (when
// Unattended, refuses) when not.
//
// A nil *Gate decides as the zero Gate.
func (g *Gate) Decide(origin string, a Affordance, expose string) Verdict {
	if g == nil {
		g = &Gate{}
	}
	as := Classify(a, expose)
	v := Verdict{Classes: as.Classes, Amount: as.Amount}
	if ps := checkAffordance(a); len(ps) > 0 {
		v.Decision = Refuse
		v.Reasons = []string{"Refused whatever the grants: the affordance breaks the rules of AAL 0.1."}
		for _, p := range ps {
			v.Reasons = append(v.Reasons, capitalize(p.Message)+".")
		}
		return v
	}
	v.Reasons = as.Reasons
	if len(as.Classes) == 0 {
		v.Decision = Allow
		v.Reasons = append(v.Reasons, "Nothing in it needs a person's authority.")
		return v
	}
	now := time.Now
	if g.Now != nil {
		now = g.Now
	}
	t := now()
	o, err := weborigin.Of(origin)
	if err != nil {
		v.Reasons = append(v.Reasons, fmt.Sprintf("The site's origin %s is not an origin, so no grant covers it.", quote(origin)))
	}
	for _, c := range as.Classes {
		covered, why := false, []string{}
		for _, gr := range g.Grants {
			if o == "" {
				break
			}
			ok, w := gr.covers(c, o, as.Amount, t)
			if ok {
				covered = true
				v.Reasons = append(v.Reasons, fmt.Sprintf("Covered by %s.", gr.describe()))
				break
			}
			if w != "" {
				why = append(why, w)
			}
		}
		if !covered {
			v.Uncovered = append(v.Uncovered, c)
			v.Reasons = append(v.Reasons, why...)
		}
	}
	if len(v.Uncovered) == 0 {
		v.Decision = Allow
		return v
	}
	need := fmt.Sprintf("It needs a person's authority for %s, and no grant covers it", classList(v.Uncovered))
	if o != "" {
		need += " on " + Visible(o)
	}
	if g.Unattended {
		v.Decision = Refuse
		v.Reasons = append(v.Reasons, need+"; no person can be asked, so it is refused.")
	} else {
		v.Decision = Ask
		v.Reasons = append(v.Reasons, need+": ask the person.")
	}
	return v
}

// checkAffordance checks a against the rules of docs/protocol.md decision 7, as
// [ValidateFragment] checks an affordance of a fragment.
func checkAffordance(a Affordance) []Problem {
	bad := invalidStrings("", a)
	if a.Cost != nil && (math.IsNaN(a.Cost.Amount) || math.IsInf(a.Cost.Amount, 0)) {
		return finish(append(bad, problem{Problem{"/cost/amount", "the amount is not a finite number"}, ruleType}))
	}
	doc, err := json.Marshal(a)
	if err != nil {
		return finish(append(bad, problem{Problem{"", "the affordance cannot be encoded as JSON: " + err.Error()}, ruleJSON}))
	}
	d, err := decode(doc)
	if err != nil {
		return finish(append(bad, d.problems...))
	}
	c := &checker{out: append(bad, d.problems...), numbers: d.numbers}
	c.affordance("", d.v)
	return finish(merge(c.out, schemaProblems(mustSchemas().affordance, d.v)))
}

func classList(cs []Class) string {
	s := strs(cs)
	if len(s) == 1 {
		return s[0] + " actions"
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1] + " actions"
}

func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// minorUnits are the ISO 4217 currencies whose minor unit is not a
// hundredth.
var minorUnits = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
	"RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
	"CLF": 4, "UYW": 4,
}

// String writes the cost for a person: "USD 36.00", "JPY 1,200",
// "USD 0.015"; never fewer decimals than the currency's minor unit, and
// never rounded.
func (c Cost) String() string {
	digits := 2
	if d, ok := minorUnits[c.Currency]; ok {
		digits = d
	}
	s := strconv.FormatFloat(c.Amount, 'f', -1, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	sign := ""
	if strings.HasPrefix(intPart, "-") {
		sign, intPart = "-", intPart[1:]
	}
	for len(frac) < digits {
		frac += "0"
	}
	out := sign + group(intPart)
	if frac != "" {
		out += "." + frac
	}
	return Visible(c.Currency) + " " + out
}
