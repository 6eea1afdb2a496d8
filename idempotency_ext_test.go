package affordances_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/store"
)

type (
	jobInput struct {
		Note string `json:"note,omitempty" affordances:"maxLength=50"`
	}
	jobRun struct {
		Run int `json:"run"`
	}
)

// jobsSite is [testSite] with a route for the idempotency tests
// (docs/protocol.md decision 10):
//
//	/jobs/[id]  start: counts its runs and answers {"run": n}, with
//	            Set-Cookie: run=n and Retry-After: 30; when gate is not
//	            nil it first waits for gate to close.
//	            fail: counts its runs and fails in the domain, with n in
//	            its message.
func jobsSite(t testing.TB, opts *affordances.SiteOptions, gate chan struct{}) (*affordances.Site, *board) {
	site, b := testSite(t, opts)
	jobs := site.Route("/jobs/[id]", &affordances.RouteOptions{
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return &affordances.State{Entities: map[string]any{"id": r.Param("id")}}, nil
		},
	})
	run := func(action string) int {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.ran[action]++
		return b.ran[action]
	}
	affordances.AddAction(jobs, &affordances.Action{
		Name: "start", Description: "Start the job", Expose: affordances.ExposePublic,
	}, func(ctx context.Context, r *affordances.Request, in jobInput) (jobRun, error) {
		if gate != nil {
			<-gate
		}
		n := run("start")
		r.Header().Add("Set-Cookie", fmt.Sprintf("run=%d; Path=/; HttpOnly", n))
		r.Header().Set("Retry-After", "30")
		return jobRun{Run: n}, nil
	})
	affordances.AddAction(jobs, &affordances.Action{
		Name: "mintToken", Description: "Answer a new secret", Expose: affordances.ExposePublic, Secret: true,
	}, func(ctx context.Context, r *affordances.Request, _ none) (jobRun, error) {
		return jobRun{Run: run("mintToken")}, nil
	})
	affordances.AddAction(jobs, &affordances.Action{
		Name: "fail", Description: "Fail in the domain", Expose: affordances.ExposePublic,
	}, func(ctx context.Context, r *affordances.Request, _ none) (none, error) {
		return none{}, affordances.NewError(affordances.Unavailable, fmt.Sprintf("Failure number %d.", run("fail")))
	})
	return site, b
}

const (
	jobKey   = "Idempotency-Key: 0b9f6c3e-5a3b-4c1e-9d1f-2f8e0a7b6c5d"
	otherKey = "Idempotency-Key: 7d2a41f0-8c6b-4e9a-b3d5-1e0f9c8a7b6d"
	startJob = `{"action":"start"}`
)

// from sets the request's client address.
func from(addr string, r *http.Request) *http.Request {
	r.RemoteAddr = addr
	return r
}

// TestIdempotencyReplay: the first answer for (principal, key) is replayed
// for a retry with the same body, and the action runs once; the same key
// with another body is invalid_input and runs nothing; another principal,
// page or key runs its own call (docs/protocol.md decision 10).
func TestIdempotencyReplay(t *testing.T) {
	const (
		replay = "the first answer again"
		ran    = "an answer of its own"
	)
	// start is a call of start on /jobs/1 with jobKey and headers.
	start := func(headers ...string) *http.Request {
		return post("/jobs/1", startJob, append([]string{jobKey}, headers...)...)
	}
	const (
		good   = "Authorization: Bearer good"  // u1
		admin  = "Authorization: Bearer admin" // admin
		cookie = "Cookie: sid=s1"              // u1
	)
	for _, tc := range []struct {
		name          string
		before        *http.Request // sent before the first, when not nil
		first         *http.Request
		between       *http.Request // sent between the two, when not nil
		second        *http.Request
		action        string
		wantRuns      int
		want          string // replay, ran, or the second answer's code
		wantStatus    int    // of the second answer
		wantSecondMsg string
	}{
		{"anonymous, same key and body", nil, start(), nil, start(), "start", 1, replay, 200, ""},
		{"anonymous, same address from another port", nil, from("192.0.2.7:1000", start()), nil, from("192.0.2.7:2000", start()), "start", 1, replay, 200, ""},
		{"anonymous, same IPv6 /64, as the rate limit counts it", nil, from("[2001:db8:1:2::1]:1", start()), nil, from("[2001:db8:1:2::9]:1", start()), "start", 1, replay, 200, ""},
		{"bearer caller", nil, start(good), nil, start(good), "start", 1, replay, 200, ""},
		{"cookie caller", nil, start(cookie, sameOrigin), nil, start(cookie, sameOrigin), "start", 1, replay, 200, ""},
		{"the same principal by cookie, then by bearer", nil, start(cookie, sameOrigin), nil, start(good), "start", 1, replay, 200, ""},
		{"an action that failed after it ran is kept", nil, post("/jobs/1", `{"action":"fail"}`, jobKey), nil, post("/jobs/1", `{"action":"fail"}`, jobKey), "fail", 1, replay, 409, "Failure number 1."},
		{"another body: invalid_input (422), nothing runs", nil, start(), nil, post("/jobs/1", `{"action":"start","input":{"note":"again"}}`, jobKey), "start", 1, string(affordances.InvalidInput), 422, "This Idempotency-Key was used for another call."},
		{"the same call encoded otherwise is another body", nil, start(), nil, post("/jobs/1", `{ "action": "start" }`, jobKey), "start", 1, string(affordances.InvalidInput), 422, "This Idempotency-Key was used for another call."},
		{"a cookie call without Origin gets nothing kept (step 2 first)", nil, start(cookie, sameOrigin), nil, start(cookie), "start", 1, string(affordances.Unauthorized), 403, ""},
		{"another principal runs its own call", nil, start(good), nil, start(admin), "start", 2, ran, 200, ""},
		{"an anonymous caller, then a signed-in one", nil, start(), nil, start(good), "start", 2, ran, 200, ""},
		{"another anonymous network", nil, from("192.0.2.7:1000", start()), nil, from("198.51.100.7:1000", start()), "start", 2, ran, 200, ""},
		{"another page", nil, start(), nil, post("/jobs/2", startJob, jobKey), "start", 2, ran, 200, ""},
		{"another key", nil, start(), nil, post("/jobs/1", startJob, otherKey), "start", 2, ran, 200, ""},
		{"no key: runs twice, as without the extension", nil, post("/jobs/1", startJob), nil, post("/jobs/1", startJob), "start", 2, ran, 200, ""},
		{"a key on the second call only", nil, post("/jobs/1", startJob), nil, start(), "start", 2, ran, 200, ""},
		{"a guard refusal is not kept: the retry runs once the guard holds", nil, post("/", `{"action":"reset","confirm":true}`, jobKey, good), post("/", `{"action":"increment"}`), post("/", `{"action":"reset","confirm":true}`, jobKey, good), "reset", 1, ran, 200, ""},
		{"confirm_required is not kept: the key then runs the call with confirm", post("/", `{"action":"increment"}`), post("/", `{"action":"reset"}`, jobKey, good), nil, post("/", `{"action":"reset","confirm":true}`, jobKey, good), "reset", 1, ran, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, b := jobsSite(t, nil, nil)
			h := site.Handler(app)
			if tc.before != nil {
				do(t, h, tc.before)
			}
			first := do(t, h, tc.first)
			if tc.between != nil {
				do(t, h, tc.between)
			}
			second := do(t, h, tc.second)
			if got := b.runs(tc.action); got != tc.wantRuns {
				t.Errorf("runs of %s: got %d, want %d", tc.action, got, tc.wantRuns)
			}
			if second.status != tc.wantStatus {
				t.Errorf("second status: got %d, want %d (%s)", second.status, tc.wantStatus, second.body)
			}
			switch tc.want {
			case replay:
				if first.status != second.status || !bytes.Equal(first.body, second.body) {
					t.Errorf("second answer: got %d %s, want the first, %d %s", second.status, second.body, first.status, first.body)
				}
			case ran:
				if !second.delta.OK || bytes.Equal(first.body, second.body) {
					t.Errorf("second answer: got %d %s, want a delta of its own (first: %s)", second.status, second.body, first.body)
				}
			default:
				if got := string(second.code()); got != tc.want {
					t.Errorf("second code: got %q, want %q (%s)", got, tc.want, second.body)
				}
			}
			if tc.wantSecondMsg != "" && (second.delta.Error == nil || second.delta.Error.Message != tc.wantSecondMsg) {
				t.Errorf("second answer: got %s, want the message %q", second.body, tc.wantSecondMsg)
			}
		})
	}
}

// TestSecretAnswersAreNotKept: an action whose answer carries a secret is
// never kept by the store (docs/protocol.md decision 10): the same key runs it again,
// and nothing was given to the store to keep.
func TestSecretAnswersAreNotKept(t *testing.T) {
	rec := &recordingStore{Idempotency: store.NewMemoryIdempotency(nil)}
	site, b := jobsSite(t, &affordances.SiteOptions{Idempotency: rec}, nil)
	h := site.Handler(app)
	first := do(t, h, post("/jobs/1", `{"action":"mintToken"}`, jobKey))
	second := do(t, h, post("/jobs/1", `{"action":"mintToken"}`, jobKey))
	if b.runs("mintToken") != 2 || second.header.Get("Idempotent-Replayed") != "" || string(first.body) == string(second.body) {
		t.Errorf("runs %d, second %s replayed %q; want two runs of their own", b.runs("mintToken"), second.body, second.header.Get("Idempotent-Replayed"))
	}
	if rec.finished != 0 {
		t.Errorf("the store was given %d answers to keep, want none", rec.finished)
	}
}

type recordingStore struct {
	store.Idempotency
	finished int
}

func (s *recordingStore) Finish(ctx context.Context, scope, key string, res *store.KeptDelta) error {
	s.finished++
	return s.Idempotency.Finish(ctx, scope, key, res)
}

// TestIdempotencyReplayHeaders: a replay carries the action's headers,
// Set-Cookie included, but not Retry-After, the media type and caching
// headers of every delta, and Idempotent-Replayed: true (docs/protocol.md decision 3,
// 10).
func TestIdempotencyReplayHeaders(t *testing.T) {
	site, _ := jobsSite(t, nil, nil)
	h := site.Handler(app)
	first := do(t, h, post("/jobs/1", startJob, jobKey))
	second := do(t, h, post("/jobs/1", startJob, jobKey))
	for _, tc := range []struct {
		res         response
		header      string
		want        string
		description string
	}{
		{first, "Set-Cookie", "run=1; Path=/; HttpOnly", "first"},
		{second, "Set-Cookie", "run=1; Path=/; HttpOnly", "replay"},
		{first, "Retry-After", "30", "first"},
		{second, "Retry-After", "", "replay"},
		{second, "Content-Type", affordances.MediaType, "replay"},
		{second, "Cache-Control", "private, no-store", "replay"},
		{second, "Vary", "Accept", "replay"},
		{first, "Idempotent-Replayed", "", "first"},
		{second, "Idempotent-Replayed", "true", "replay"},
	} {
		if got := strings.Join(tc.res.header.Values(tc.header), ", "); got != tc.want {
			t.Errorf("%s %s: got %q, want %q", tc.description, tc.header, got, tc.want)
		}
	}
}

// TestIdempotencyBadKeys: a key that is not 1 to 255 visible ASCII
// characters, or is sent twice, is invalid_input (400) before anything
// runs, the rate limit included (docs/protocol.md decision 10).
func TestIdempotencyBadKeys(t *testing.T) {
	for _, tc := range []struct {
		name       string
		keys       []string
		wantStatus int
	}{
		{"empty", []string{""}, 400},
		{"256 characters", []string{strings.Repeat("k", 256)}, 400},
		{"a control character", []string{"key\x01"}, 400},
		{"a tab", []string{"key\tkey"}, 400},
		{"a newline", []string{"key\nkey"}, 400},
		{"a space", []string{"key key"}, 400},
		{"DEL", []string{"key\x7f"}, 400},
		{"not ASCII", []string{"clé"}, 400},
		{"two keys", []string{"one", "two"}, 400},
		{"1 character is fine", []string{"k"}, 200},
		{"255 characters are fine", []string{strings.Repeat("k", 255)}, 200},
		{"punctuation is fine", []string{"!#$%&'*+-.^_`|~:/=?@[]{}\"<>(),;\\"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, b := jobsSite(t, &affordances.SiteOptions{Limit: affordances.Limit{Calls: 1, Per: time.Hour, Burst: 1}}, nil)
			h := site.Handler(app)
			r := post("/jobs/1", startJob)
			r.Header["Idempotency-Key"] = tc.keys
			res := do(t, h, r)
			if res.status != tc.wantStatus {
				t.Fatalf("status: got %d, want %d (%s)", res.status, tc.wantStatus, res.body)
			}
			if tc.wantStatus != 400 {
				return
			}
			if res.code() != affordances.InvalidInput || !strings.Contains(res.delta.Error.Message, "Idempotency-Key") {
				t.Errorf("answer: got %s, want invalid_input about the Idempotency-Key", res.body)
			}
			if got := b.runs("start"); got != 0 {
				t.Errorf("runs: got %d, want 0", got)
			}
			// The limit allows one call an hour: the refused call was not
			// counted, so this one runs.
			if res := do(t, h, post("/jobs/1", startJob)); res.status != 200 {
				t.Errorf("a call after the refusal: got %d %s, want 200: the refusal was counted", res.status, res.body)
			}
		})
	}
}

// TestIdempotencyExpires: a kept answer is replayed for 24 hours; after
// that the same key runs the call again (docs/protocol.md decision 10).
func TestIdempotencyExpires(t *testing.T) {
	for _, tc := range []struct {
		after    time.Duration
		wantRuns int
	}{
		{0, 1},
		{time.Hour, 1},
		{24*time.Hour - time.Second, 1},
		{24 * time.Hour, 2},
		{48 * time.Hour, 2},
	} {
		t.Run(tc.after.String(), func(t *testing.T) {
			var now atomic.Int64
			now.Store(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).UnixNano())
			idem := store.NewMemoryIdempotency(&store.MemoryOptions{Now: func() time.Time { return time.Unix(0, now.Load()) }})
			site, b := jobsSite(t, &affordances.SiteOptions{Idempotency: idem}, nil)
			h := site.Handler(app)
			first := do(t, h, post("/jobs/1", startJob, jobKey))
			now.Add(int64(tc.after))
			second := do(t, h, post("/jobs/1", startJob, jobKey))
			if got := b.runs("start"); got != tc.wantRuns {
				t.Errorf("runs: got %d, want %d", got, tc.wantRuns)
			}
			if replayed := bytes.Equal(first.body, second.body); replayed != (tc.wantRuns == 1) {
				t.Errorf("second answer: got %s, want replayed %v (first: %s)", second.body, tc.wantRuns == 1, first.body)
			}
		})
	}
}

// countingLimiter refuses the first refuse calls it is asked about, then
// allows every call; it counts what it was asked.
type countingLimiter struct {
	mu     sync.Mutex
	asked  int
	refuse int
}

func (l *countingLimiter) Allow(ctx context.Context, key string, limit affordances.Limit) (bool, time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked++
	if l.asked <= l.refuse {
		return false, 3 * time.Second, nil
	}
	return true, 0, nil
}

// TestIdempotencyRateLimit: a call refused by the rate limit is not kept,
// so the client's retry with the same key runs; a replay is not counted
// again (docs/protocol.md decision 5: each call that passed step 2 is counted once;
// docs/protocol.md decision 10: the retry gets the first delta).
func TestIdempotencyRateLimit(t *testing.T) {
	limiter := &countingLimiter{refuse: 1}
	site, b := jobsSite(t, &affordances.SiteOptions{RateLimiter: limiter}, nil)
	h := site.Handler(app)
	for i, want := range []struct {
		status, runs, asked int
	}{
		{429, 0, 1}, // refused, not kept
		{200, 1, 2}, // the retry runs
		{200, 1, 2}, // replayed, not counted
	} {
		res := do(t, h, post("/jobs/1", startJob, jobKey))
		if res.status != want.status || b.runs("start") != want.runs || limiter.asked != want.asked {
			t.Errorf("call %d: got status %d, runs %d, limiter asked %d; want %d, %d, %d",
				i+1, res.status, b.runs("start"), limiter.asked, want.status, want.runs, want.asked)
		}
	}
}

// TestIdempotencyConcurrent: 20 identical calls with one key at once, over
// real HTTP, run the action exactly once; every answer is that call's
// delta or the retryable refusal of a key still running (unavailable, 409,
// Retry-After: 1) (docs/protocol.md decision 10). With the action held until the
// others have answered, all 19 others are refusals; a later retry gets the
// delta.
func TestIdempotencyConcurrent(t *testing.T) {
	const n = 20
	for _, held := range []bool{false, true} {
		t.Run(fmt.Sprintf("held=%v", held), func(t *testing.T) {
			var gate chan struct{}
			release := func() {}
			if held {
				gate = make(chan struct{})
				release = sync.OnceFunc(func() { close(gate) })
			}
			site, b := jobsSite(t, nil, gate)
			srv := httptest.NewServer(site.Handler(app))
			defer srv.Close()
			defer release() // before Close, which waits for every call
			type answer struct {
				status     int
				retryAfter string
				body       []byte
				err        error
			}
			send := func() answer {
				r, _ := http.NewRequest(http.MethodPost, srv.URL+"/jobs/1", strings.NewReader(startJob))
				r.Header.Set("Content-Type", affordances.MediaType)
				r.Header.Set("Idempotency-Key", "concurrent-1")
				res, err := srv.Client().Do(r)
				if err != nil {
					return answer{err: err}
				}
				defer res.Body.Close()
				body, err := io.ReadAll(res.Body)
				return answer{res.StatusCode, res.Header.Get("Retry-After"), body, err}
			}
			answers := make(chan answer, n)
			for range n {
				go func() { answers <- send() }()
			}
			var got []answer
			for i := range n {
				if i == n-1 {
					release() // the others have answered; let the call run
				}
				select {
				case a := <-answers:
					got = append(got, a)
				case <-time.After(10 * time.Second):
					t.Fatalf("after %d answers the others wait: more than one call is running the action", i)
				}
			}
			got = append(got, send()) // a retry after all is done
			if runs := b.runs("start"); runs != 1 {
				t.Errorf("runs: got %d, want 1", runs)
			}
			const refusal = `{"ok":false,"error":{"code":"unavailable","message":"A call with this Idempotency-Key is still running; retry."}}`
			var delta []byte
			refused := 0
			for i, a := range got {
				switch {
				case a.err != nil:
					t.Fatalf("answer %d: %v", i, a.err)
				case a.status == 200 && delta == nil:
					delta = a.body
				case a.status == 200 && !bytes.Equal(a.body, delta):
					t.Errorf("answer %d: got %s, want the one delta %s", i, a.body, delta)
				case a.status == 409 && a.retryAfter == "1" && string(a.body) == refusal:
					refused++
				case a.status != 200:
					t.Errorf("answer %d: got %d Retry-After %q %s, want 200 or the refusal 409 Retry-After 1 %s", i, a.status, a.retryAfter, a.body, refusal)
				}
			}
			if delta == nil {
				t.Errorf("no answer carried the delta")
			}
			if held && refused != n-1 {
				t.Errorf("refusals while the call was held: got %d, want %d", refused, n-1)
			}
		})
	}
}
