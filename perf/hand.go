package perf

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/affordances/affordances-go/internal/benchshop"
)

// maxBody is the largest call body the hand-written versions read.
const maxBody = 64 << 10

// Hand returns the bench shop written by hand on net/http and
// encoding/json: each graph and delta built as Go values and encoded by
// json.Marshal, the action descriptors with them; calls rate-limited and
// replayed by their Idempotency-Key in a middleware.
func Hand(shop *benchshop.Shop) http.Handler {
	s := &site{shop: shop}
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
		write(w, http.StatusOK, s.graph(req))
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

// call reads and runs the call of r.
func (s *site) call(r *http.Request) (*delta, error) {
	if err := originRule(r); err != nil {
		return nil, err
	}
	req, err := s.load(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return nil, invalid("The body is too large.")
	}
	var c call
	if err := json.Unmarshal(body, &c); err != nil || c.Action == "" {
		return nil, invalid("The body is not a call.")
	}
	a, err := find(req, c.Action)
	if err != nil {
		return nil, err
	}
	return s.run(req, a, func(v any) error {
		if len(c.Input) > 0 {
			if err := json.Unmarshal(c.Input, v); err != nil {
				return invalid("The input does not match the schema.")
			}
		}
		return check(v)
	})
}

// check applies the bounds of an action's input.
func check(v any) error {
	switch in := v.(type) {
	case *benchshop.AddInput:
		return checkAdd(*in)
	case *benchshop.SearchInput:
		return checkSearch(*in)
	case *benchshop.RemoveInput:
		return checkRemove(*in)
	}
	return nil
}

// write answers v in JSON, in the media type.
func write(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	header(w)
	w.WriteHeader(status)
	w.Write(b)
}

// fail answers err as a delta that did nothing.
func fail(w http.ResponseWriter, err error) {
	var e *callError
	if !errors.As(err, &e) {
		e = &callError{http.StatusInternalServerError, "internal", "Something went wrong."}
	}
	write(w, e.status, &delta{Error: e})
}
