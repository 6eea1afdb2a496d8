package oauth

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"golang.org/x/text/language"
)

// The consent and connected-assistants pages speak the person's language,
// as the site's other pages do (docs/protocol.md decision 13): English, as written
// here, or one of Options.Languages chosen by Accept-Language.

// phrase marks s, an English message of the pages, as a key of the
// catalogue (TestMessages reads them from the code); it returns s.
func phrase(s string) string { return s }

// langs are the languages of the pages: English first, then the site's.
type langs struct {
	matcher language.Matcher
	tags    []language.Tag
	msgs    []map[string]string // by tag; nil: English
	says    func(*http.Request, affordances.Principal) language.Tag
}

// newLangs returns the languages of m, French nil standing for this
// package's French, or the first message m has of no key of the package;
// says is the application's word on a person's language, or nil.
func newLangs(m map[language.Tag]map[string]string, says func(*http.Request, affordances.Principal) language.Tag) (*langs, error) {
	l := &langs{tags: []language.Tag{language.English}, msgs: []map[string]string{nil}, says: says}
	for _, tag := range slices.SortedFunc(maps.Keys(m), func(a, b language.Tag) int { return strings.Compare(a.String(), b.String()) }) {
		msgs := m[tag]
		if msgs == nil && tag == language.French {
			msgs = french
		}
		for k := range msgs {
			if _, ok := french[k]; !ok {
				return nil, fmt.Errorf("oauth: Options.Languages[%s] has %q, which is none of this package's messages", tag, k)
			}
		}
		l.tags, l.msgs = append(l.tags, tag), append(l.msgs, msgs)
	}
	if len(l.tags) > 1 {
		l.matcher = language.NewMatcher(l.tags)
	}
	return l, nil
}

// of returns the language who, r's person, reads: the one the
// application says, else the one Accept-Language prefers.
func (l *langs) of(r *http.Request, who affordances.Principal) said {
	if l.matcher == nil {
		return said{Lang: "en"}
	}
	i := -1
	if l.says != nil {
		if tag := l.says(r, who); tag != language.Und {
			if _, j, c := l.matcher.Match(tag); c != language.No {
				i = j
			}
		}
	}
	if i < 0 {
		_, i = language.MatchStrings(l.matcher, r.Header.Values("Accept-Language")...)
	}
	return said{Lang: l.tags[i].String(), msgs: l.msgs[i]}
}

// said is the language a page speaks: its tag, and its messages.
type said struct {
	Lang string
	msgs map[string]string
}

// T says the message format, a key of the catalogue, with args, in the
// page's language; an argument is the site's or the person's text, as
// it is. html/template escapes the result.
func (s said) T(format string, args ...any) string {
	if m, ok := s.msgs[format]; ok {
		format = m
	}
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}

// french is the package's French: every message its pages write, by its
// English key. A no-break space (\u00a0) goes before a colon, as French
// typography wants.
var french = map[string]string{
	"Connect %s":                           "Connecter %s",
	"Connect an assistant to your account": "Connecter un assistant à votre compte",
	"%s (registered here, sends you back to %s) asks to act on %s as you, %s.":    "%s (inscrit ici, vous renvoie vers %s) demande à agir sur %s en votre nom, %s.",
	"%s (%s) asks to act on %s as you, %s.":                                       "%s (%s) demande à agir sur %s en votre nom, %s.",
	"What it may do":                                                              "Ce qu'il pourra faire",
	"Read what you can read on the site":                                          "Lire ce que vous pouvez lire sur le site",
	"Make ordinary changes to your account (a cart, a task), which can be undone": "Faire des modifications ordinaires de votre compte (un panier, une tâche), qui peuvent être annulées",
	"Read and change your personal data (addresses, your profile)":                "Lire et modifier vos données personnelles (adresses, votre profil)",
	"Spend your money, up to the amount you set here":                             "Dépenser votre argent, jusqu'au montant que vous fixez ici",
	"Administer the site with your administrator's powers":                        "Administrer le site avec vos pouvoirs d'administrateur",
	"At most":               "Au plus",
	"The most it may spend": "Le plus qu'il pourra dépenser",
	"USD in all":            "USD en tout",
	"Whatever you grant, it never confirms an order or a deletion for you: those still ask you, on this site.": "Quoi que vous accordiez, il ne confirme jamais une commande ni une suppression à votre place\u00a0: elles vous sont toujours demandées, sur ce site.",
	"It stays connected while it is used at least once every %d days, until you disconnect it on %s.":          "Il reste connecté tant qu'il sert au moins une fois tous les %d jours, jusqu'à ce que vous le déconnectiez sur %s.",
	"Allow":                               "Autoriser",
	"The assistant's request was refused": "La demande de l'assistant a été refusée",
	"Back to %s":                          "Retour vers %s",
	"Deny":                                "Refuser",
	"The form named something to grant that this page did not offer.":                 "Le formulaire demandait d'accorder quelque chose que cette page ne proposait pas.",
	"Set how much it may spend, an amount like 50 or 50.00, or untick spending.":      "Indiquez combien il pourra dépenser, un montant comme 50 ou 50.00, ou décochez la dépense.",
	"This form was posted from another site, so it was refused. Nothing was granted.": "Ce formulaire a été envoyé depuis un autre site, il a donc été refusé. Rien n'a été accordé.",
	"This form was posted from another site, so it was refused. Nothing changed.":     "Ce formulaire a été envoyé depuis un autre site, il a donc été refusé. Rien n'a changé.",
	"Something went wrong on the server. Try again later.":                            "Une erreur s'est produite sur le serveur. Réessayez plus tard.",
	"Connected assistants": "Assistants connectés",
	"Assistant":            "Assistant",
	"May":                  "Peut",
	"Last acted":           "Dernière action",
	"%s, since %s":         "%s, depuis le %s",
	"may still spend %s":   "peut encore dépenser %s",
	"never":                "jamais",
	"Disconnect":           "Déconnecter",
	"No assistant is connected to your account.": "Aucun assistant n'est connecté à votre compte.",
	"registered here":  "inscrit ici",
	"read":             "lire",
	"ordinary changes": "modifications ordinaires",
	"personal data":    "données personnelles",
	"spending":         "dépenses",
	"administration":   "administration",
}
