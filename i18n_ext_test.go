package affordances_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"golang.org/x/text/language"
)

// withFrench is a site's languages: English, and the library's French.
func withFrench() map[language.Tag]map[string]string {
	return map[language.Tag]map[string]string{language.French: nil}
}

// TestLibraryErrorsInFrench: an agent whose Accept-Language prefers
// French gets the library's errors, and their issues, in French, said so
// in Content-Language; the application's own words stay as it wrote them
// (docs/protocol.md decision 13).
func TestLibraryErrorsInFrench(t *testing.T) {
	site, _ := testSite(t, &affordances.SiteOptions{Languages: withFrench()})
	h := site.Handler(app)
	for _, tc := range []struct {
		name    string
		r       *http.Request
		code    affordances.Code
		message string
		issues  []string // "path message"
		lang    string   // Content-Language
	}{
		{"no such action", post("/", `{"action":"nope"}`), affordances.NotFound, `Cette page n'a pas d'action "nope".`, nil, "fr"},
		{"invalid input, with its issues", post("/", `{"action":"increment","input":{"by":0}}`), affordances.InvalidInput,
			"L'entrée ne correspond pas au schéma.", []string{"/by doit valoir au moins 1"}, "fr"},
		{"a missing field and a wrong type", post("/", `{"action":"raw","input":{}}`), affordances.InvalidInput,
			"L'entrée ne correspond pas au schéma.", []string{"/n est obligatoire"}, "fr"},
		{"a call with no action", post("/", `{"input":{}}`), affordances.InvalidInput,
			"L'appel ne nomme aucune action.", []string{"/action doit être une chaîne non vide"}, "fr"},
		{"a body that is no call", post("/", `{"action":`), affordances.InvalidInput,
			"Le corps n'est pas un Call\u00a0: un objet JSON avec une \"action\".", nil, "fr"},
		{"sign in first", post("/", `{"action":"addNote","input":{"text":"hi"}}`), affordances.Unauthorized, "Connectez-vous pour faire ceci.", nil, "fr"},
		{"a cookie call without the Origin", post("/", `{"action":"ping"}`, "Cookie: sid=s1"), affordances.Unauthorized,
			"Un appel par cookie doit porter l'en-tête Origin de ce site.", nil, "fr"},
		{"a bad token", post("/", `{"action":"ping"}`, "Authorization: Bearer bad"), affordances.Unauthorized, "Le jeton bearer n'est pas valide.", nil, "fr"},
		{"a failure of the server", post("/", `{"action":"broken"}`), affordances.Internal, "Une erreur s'est produite sur le serveur. Réessayez plus tard.", nil, "fr"},
		{"the site's own error is the site's", post("/", `{"action":"soldOut"}`), affordances.Unavailable, "Only 2 left in stock.", nil, ""},
		{"the site's guard is the site's", post("/", `{"action":"reset"}`, "Authorization: Bearer good"), affordances.Unavailable, "The counter is already zero.", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(t, h, with(tc.r, []string{"Accept-Language: fr"}))
			if res.code() != tc.code || res.delta.Error.Message != tc.message {
				t.Fatalf("got %d %s, want %s %q", res.status, res.body, tc.code, tc.message)
			}
			var issues []string
			for _, is := range res.delta.Error.Issues {
				issues = append(issues, is.Path+" "+is.Message)
			}
			if !slices.Equal(issues, tc.issues) {
				t.Errorf("issues: got %q, want %q", issues, tc.issues)
			}
			if got := res.header.Get("Content-Language"); got != tc.lang {
				t.Errorf("Content-Language: got %q, want %q", got, tc.lang)
			}
			if !slices.Contains(res.header.Values("Vary"), "Accept-Language") {
				t.Errorf("Vary: got %q, want Accept-Language among them", res.header.Values("Vary"))
			}
		})
	}
}

// TestRateLimitedInFrench: the rate limit's refusal, with its wait, in
// French.
func TestRateLimitedInFrench(t *testing.T) {
	site, _ := testSite(t, &affordances.SiteOptions{Languages: withFrench(), Limit: affordances.Limit{Calls: 1, Per: time.Hour, Burst: 1}})
	h := site.Handler(app)
	do(t, h, post("/", `{"action":"ping"}`, "Accept-Language: fr"))
	res := do(t, h, post("/", `{"action":"ping"}`, "Accept-Language: fr"))
	if res.code() != affordances.RateLimited || res.delta.Error.Message != "Trop d'appels. Réessayez dans 3600 secondes." {
		t.Errorf("got %d %s, want rate_limited in French", res.status, res.body)
	}
}

// TestLanguageChosen: the language is the one of the site's that
// Accept-Language prefers, as golang.org/x/text's matcher reads it;
// English when it names none of them, and on a site that has only
// English.
func TestLanguageChosen(t *testing.T) {
	const fr, en = `Cette page n'a pas d'action "nope".`, `This page has no action "nope".`
	french, _ := testSite(t, &affordances.SiteOptions{Languages: withFrench()})
	english, _ := testSite(t, nil)
	for _, tc := range []struct {
		name, accept string
		site         *affordances.Site
		want, lang   string
	}{
		{"French", "fr", french, fr, "fr"},
		{"Canadian French, then English", "fr-CA, en;q=0.5", french, fr, "fr"},
		{"German, then French", "de, fr;q=0.5", french, fr, "fr"},
		{"English before French", "en-GB, fr;q=0.8", french, en, "en"},
		{"a language the site does not have", "de", french, en, "en"},
		{"no Accept-Language", "", french, en, "en"},
		{"a site with English alone", "fr", english, en, "en"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(t, tc.site.Handler(app), post("/", `{"action":"nope"}`, "Accept-Language: "+tc.accept))
			if res.code() != affordances.NotFound || res.delta.Error.Message != tc.want {
				t.Errorf("got %s, want %q", res.body, tc.want)
			}
			if got := res.header.Get("Content-Language"); got != tc.lang {
				t.Errorf("Content-Language: got %q, want %q", got, tc.lang)
			}
		})
	}
	if res := do(t, english.Handler(app), post("/", `{"action":"nope"}`)); slices.Contains(res.header.Values("Vary"), "Accept-Language") {
		t.Error("a site with English alone varies on Accept-Language")
	}
}

// TestReasonsInFrench: the reasons the library gives for an action that
// is not available, in the graph and on the page, are in the person's
// language; an action the page does not list is "Indisponible ici.".
func TestReasonsInFrench(t *testing.T) {
	site, _ := testSite(t, &affordances.SiteOptions{Languages: withFrench()})
	res := do(t, site.Handler(app), get("/", "Accept-Language: fr"))
	if a, _ := res.action("addNote"); a.Available || a.Reason != "Connectez-vous pour faire ceci." {
		t.Errorf("addNote in the graph: got %+v, want the French reason to sign in", a)
	}
	h := site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pg := affordances.PageFrom(r.Context())
		fmt.Fprintf(w, "addNote=%s audit=%s", pg.Action("addNote").Reason(), pg.Action("audit").Reason())
	}))
	for accept, want := range map[string]string{
		"fr": "addNote=Connectez-vous pour faire ceci. audit=Indisponible ici.",
		"":   "addNote=Sign in to do this. audit=Not available here.",
	} {
		r := httptest.NewRequest(http.MethodGet, "http://shop.test/", nil)
		r.Header.Set("Accept-Language", accept)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Body.String() != want {
			t.Errorf("the page's reasons with Accept-Language %q: got %q, want %q", accept, rec.Body.String(), want)
		}
	}
	own, _ := testSite(t, &affordances.SiteOptions{Languages: withFrench(), SignInReason: "Log in first."})
	if a, _ := do(t, own.Handler(app), get("/", "Accept-Language: fr")).action("addNote"); a.Reason != "Log in first." {
		t.Errorf("the site's own SignInReason: got %q, want it as written", a.Reason)
	}
}

// TestFormErrorsInFrench: a person's form refused by the library shows
// its message and the issues of its fields in their language; the
// site's own issues stay as written, and the page's language is the
// site's, not said by the library.
func TestFormErrorsInFrench(t *testing.T) {
	h, _ := formSite(t, &affordances.SiteOptions{Languages: withFrench()})
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"a number that is not one", "_action=increment&by=two", []string{
			"error=Vérifiez les champs signalés ci-dessous et renvoyez le formulaire.", "issue(by)=doit être un nombre entier"}},
		{"a missing field and a date that is not one", "count=1&due=2026-13-45&_action=settings", []string{
			"issue(address.city)=est obligatoire", "issue(due)=doit être une date réelle, au format AAAA-MM-JJ"}},
		{"a form from another site", "_action=increment&by=1", []string{
			"error=Ce formulaire a été envoyé depuis un autre site, il a donc été refusé. Rien n&#39;a changé."}},
		{"the site's own issue", "_action=chooseAddress&address=moon", []string{"error=You have no address &#34;moon&#34;."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			headers := []string{"Accept-Language: fr-FR, fr;q=0.9"}
			if strings.Contains(tc.name, "another site") {
				headers = append(headers, "Origin: https://evil.example", "Sec-Fetch-Site: cross-site")
			}
			rec := postForm(h, tc.body, headers...)
			for _, want := range tc.want {
				if !strings.Contains(rec.Body.String(), want) {
					t.Errorf("the page lacks %q:\n%s", want, rec.Body.String())
				}
			}
			if got := rec.Header().Get("Content-Language"); got != "" {
				t.Errorf("Content-Language of the site's page: got %q, want none", got)
			}
		})
	}
}

// TestApprovalInFrench: a human-verified call's refusal and its approval
// page speak the person's language, <html lang> and Content-Language
// included; without Accept-Language, English.
func TestApprovalInFrench(t *testing.T) {
	site := affordances.NewSite(&affordances.SiteOptions{
		Name:      "Banque <i>",
		Languages: withFrench(),
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
				return affordances.Principal{ID: tok}, nil
			}
			if c, err := r.Cookie("who"); err == nil {
				return affordances.Principal{ID: c.Value}, nil
			}
			return affordances.Principal{}, nil
		},
	})
	type payInput struct {
		Amount int `json:"amount"`
	}
	affordances.AddAction(site.Route("/pay", nil), &affordances.Action{
		Name: "pay", Description: "Pay", Expose: affordances.ExposeConfirm, Verify: true,
		Summary: affordances.Summarize(func(_ context.Context, _ *affordances.Request, in payInput) (string, error) {
			return fmt.Sprintf("Payer %d €.", in.Amount), nil
		}),
		AAL: &aal.Meta{Action: aal.Purchase, Trust: aal.TrustFinancial, Label: "Payer"},
	}, func(context.Context, *affordances.Request, payInput) (struct{}, error) { return struct{}{}, nil })
	srv := httptest.NewServer(site.Handler(http.NotFoundHandler()))
	defer srv.Close()

	res := do(t, site.Handler(http.NotFoundHandler()), post("/pay", `{"action":"pay","input":{"amount":18}}`, "Authorization: Bearer alice", "Accept-Language: fr"))
	if res.code() != affordances.ConfirmRequired || res.delta.Approval == nil ||
		res.delta.Error.Message != "Payer 18 €. Une personne doit l'approuver sur la page d'approbation avant que confirm: true ne l'exécute." {
		t.Fatalf("the call: got %s, want confirm_required in French with an approval", res.body)
	}
	page := func(cookie, accept string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+res.delta.Approval.URL, nil)
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		if accept != "" {
			req.Header.Set("Accept-Language", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for _, tc := range []struct {
		name, cookie, accept string
		lang                 string
		want                 []string
	}{
		{"the page in French", "who=alice", "fr", "fr", []string{`<html lang="fr">`, "<title>Approuver\u00a0: Payer · Banque &lt;i&gt;</title>",
			"Votre agent vous demande d'approuver ceci sur Banque &lt;i&gt;\u00a0:", "<dt>Détails</dt>",
			"<li>Cela dépense de l'argent.</li>", "<li>C'est irréversible.</li>", "<dt>Le lien expire</dt>", " UTC</dd>",
			"Rien ne s'est encore passé.", ">Approuver</button>", ">Refuser</button>"}},
		{"the page in English", "who=alice", "", "en", []string{`<html lang="en">`, "<title>Approve: Payer · Banque &lt;i&gt;</title>",
			"<li>It spends money.</li>", "<li>It cannot be undone.</li>", ">Approve</button>", ">Deny</button>"}},
		{"the refusal in French", "", "fr", "fr", []string{`<html lang="fr">`, "<title>Approbation · Banque &lt;i&gt;</title>",
			"Connectez-vous à ce site dans ce navigateur, avec le compte qui a fait l&#39;appel, puis ouvrez à nouveau ce lien."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := page(tc.cookie, tc.accept)
			if strings.Contains(body, "<i>") {
				t.Errorf("the site's name is not escaped:\n%s", body)
			}
			for _, want := range tc.want {
				if !strings.Contains(body, want) {
					t.Errorf("the page lacks %q:\n%s", want, body)
				}
			}
			if got := resp.Header.Get("Content-Language"); got != tc.lang {
				t.Errorf("Content-Language: got %q, want %q", got, tc.lang)
			}
		})
	}
	months := []string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"}
	if _, body := page("who=alice", "fr"); !strings.Contains(body, " "+months[time.Now().Add(15*time.Minute).UTC().Month()-1]+" ") {
		t.Errorf("the expiry is not in French:\n%s", body)
	}
}

// TestAppLanguages: a site adds a language of its own, each message it
// lacks said in English, and rewords the library's French; NewSite
// refuses a key the library does not write and a message that would
// format its arguments otherwise.
func TestAppLanguages(t *testing.T) {
	site, _ := testSite(t, &affordances.SiteOptions{Languages: map[language.Tag]map[string]string{
		language.German: {"This page has no action %q.": "Diese Seite hat keine Aktion %q."},
		language.French: {"Sign in to do this.": "Identifiez-vous d'abord."},
	}})
	h := site.Handler(app)
	for _, tc := range []struct{ accept, body, want string }{
		{"de", `{"action":"nope"}`, `Diese Seite hat keine Aktion "nope".`},
		{"de", `{"action":"addNote","input":{"text":"x"}}`, "Sign in to do this."},
		{"fr", `{"action":"addNote","input":{"text":"x"}}`, "Identifiez-vous d'abord."},
		{"fr", `{"action":"nope"}`, `Cette page n'a pas d'action "nope".`},
	} {
		if res := do(t, h, post("/", tc.body, "Accept-Language: "+tc.accept)); res.delta.Error == nil || res.delta.Error.Message != tc.want {
			t.Errorf("%s in %s: got %s, want %q", tc.body, tc.accept, res.body, tc.want)
		}
	}
	for name, langs := range map[string]map[language.Tag]map[string]string{
		"a key the library does not write": {language.German: {"No such page.": "Keine solche Seite."}},
		"a verb changed":                   {language.German: {"This page has no action %q.": "Diese Seite hat keine Aktion %s."}},
		"a verb missing":                   {language.German: {"The call is larger than %d bytes.": "Der Aufruf ist zu groß."}},
		"a language without messages":      {language.German: nil},
	} {
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.HasPrefix(fmt.Sprint(v), "affordances: SiteOptions.Languages[de]") {
					t.Errorf("%s: got panic %v, want one naming SiteOptions.Languages[de]", name, v)
				}
			}()
			affordances.NewSite(&affordances.SiteOptions{Languages: langs})
		}()
	}
}

// TestLanguageTheAppSays: the person's language is the one the
// application says (a setting of its user's, which Language reads from
// the requester the site authenticated), whatever the browser's
// Accept-Language; when it says none, or one the site does not have,
// Accept-Language chooses (docs/protocol.md decision 13, issue 38: a French user
// with an English browser read English; then Language was not told who
// asks, and a retrofit authenticated each call a second time to know).
func TestLanguageTheAppSays(t *testing.T) {
	settings := map[string]string{"u1": "fr", "admin": "ja"} // the users' own
	site, _ := testSite(t, &affordances.SiteOptions{Languages: withFrench(), Language: func(_ *http.Request, who affordances.Principal) language.Tag {
		if lang, ok := settings[who.ID]; ok {
			return language.Make(lang)
		}
		return language.Und
	}})
	h := site.Handler(app)
	for _, tc := range []struct{ name, token, accept, lang string }{
		{"the user's French, an English browser", "good", "en-US", "fr"},
		{"no user: the browser's", "", "fr", "fr"},
		{"no user: the browser's English", "", "en", "en"},
		{"a language the site does not have: the browser's", "admin", "fr", "fr"},
		{"a bad token, before anyone is known: the browser's", "bad", "en", "en"},
	} {
		r := post("/", `{"action":"addNote","input":{}}`)
		if tc.token != "" {
			r.Header.Set("Authorization", "Bearer "+tc.token)
		}
		r.Header.Set("Accept-Language", tc.accept)
		if res := do(t, h, r); res.header.Get("Content-Language") != tc.lang {
			t.Errorf("%s: got Content-Language %q (%s), want %q", tc.name, res.header.Get("Content-Language"), res.body, tc.lang)
		}
	}
}

// TestLanguageOfAGraphsRefusal: a graph the site refuses after it knew
// who asks (the page's loader failed) speaks that user's language, not
// the browser's.
func TestLanguageOfAGraphsRefusal(t *testing.T) {
	site := affordances.NewSite(&affordances.SiteOptions{Languages: withFrench(),
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			return affordances.Principal{ID: "marie"}, nil
		},
		Language: func(_ *http.Request, who affordances.Principal) language.Tag {
			if who.ID == "marie" {
				return language.French
			}
			return language.Und
		}})
	site.Route("/broken", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return nil, errors.New("the database is down")
	}})
	res := do(t, site.Handler(nil), get("/broken", "Accept-Language: en"))
	if res.status != 500 || res.header.Get("Content-Language") != "fr" {
		t.Errorf("got %d, Content-Language %q: %s; want 500 in marie's French", res.status, res.header.Get("Content-Language"), res.body)
	}
}
