package perf

import (
	"encoding/json"
	"net/http"

	"github.com/affordances/affordances-go/internal/benchshop"
)

// Tuned returns [Hand] tuned as its author would after a profile: each
// action's descriptor encoded once at start-up, up to its availability,
// and the graph's JSON appended into one buffer around the entities and
// nav that json.Marshal encodes. Calls are Hand's.
func Tuned(shop *benchshop.Shop) http.Handler {
	s := &site{shop: shop}
	// Each descriptor's JSON but its closing brace, and the available and
	// sign-in endings of one.
	prefixes := make([][]byte, len(actions))
	for i, a := range actions {
		b, err := json.Marshal(a)
		if err != nil {
			panic(err)
		}
		prefixes[i] = b[:len(b)-1]
	}
	available := []byte(`,"available":true}`)
	signedOut := []byte(`,"available":false,"reason":"` + signIn + `"}`)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		if !wantsGraph(r) {
			benchshop.Page(w, r)
			return
		}
		req, err := s.load(r)
		if err != nil {
			fail(w, err)
			return
		}
		entities, err := json.Marshal(req.State.Entities)
		if err != nil {
			fail(w, err)
			return
		}
		nav, err := json.Marshal(req.State.Nav)
		if err != nil {
			fail(w, err)
			return
		}
		b := make([]byte, 0, 4096)
		b = append(b, `{"v":"0","page":"/","route":"/","entities":`...)
		b = append(b, entities...)
		b = append(b, `,"actions":[`...)
		for i, a := range actions {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, prefixes[i]...)
			switch ok, why := a.available(r.Context(), req); {
			case ok:
				b = append(b, available...)
			case why == signIn:
				b = append(b, signedOut...)
			default:
				reason, _ := json.Marshal(why)
				b = append(b, `,"available":false,"reason":`...)
				b = append(append(b, reason...), '}')
			}
		}
		b = append(b, `],"nav":`...)
		b = append(append(b, nav...), '}')
		header(w)
		w.Write(b)
	})
	mux.HandleFunc("POST /{$}", func(w http.ResponseWriter, r *http.Request) {
		d, err := s.call(r)
		if err != nil {
			fail(w, err)
			return
		}
		write(w, http.StatusOK, d)
	})
	return calls(mux)
}
