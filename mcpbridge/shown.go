package mcpbridge

import (
	"maps"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shownCap is how many pages shownPages keeps, the latest.
const shownCap = 256

// shownPages is what the bridge showed its model of each page: the
// entities, by MCP session and page URL, as last read or changed, so
// that a call's result says what changed since
// (internal/modeltext.DeltaSince). It keeps the latest [shownCap]. A
// session the SDK does not keep (a stateless request) has its own each
// time: nothing shown, every result whole. Safe for concurrent use; the
// zero value is empty.
type shownPages struct {
	mu    sync.Mutex
	pages map[shownKey]map[string]any
	order []shownKey // oldest first
}

type shownKey struct {
	session *mcp.ServerSession
	page    string
}

// get returns the entities the model was shown of page, nil for none.
func (s *shownPages) get(session *mcp.ServerSession, page string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pages[shownKey{session, page}]
}

// put notes that the model was shown entities of page: all of them when
// whole, else those in entities, beside what it was shown before; a nil
// value is an entity gone.
func (s *shownPages) put(session *mcp.ServerSession, page string, entities map[string]any, whole bool) {
	k := shownKey{session, page}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pages == nil {
		s.pages = map[shownKey]map[string]any{}
	}
	m := map[string]any{}
	if old, ok := s.pages[k]; ok && !whole {
		m = maps.Clone(old)
	}
	for name, v := range entities {
		if v == nil {
			delete(m, name)
		} else {
			m[name] = v
		}
	}
	if _, ok := s.pages[k]; !ok {
		s.order = append(s.order, k)
		if len(s.order) > shownCap {
			delete(s.pages, s.order[0])
			s.order = s.order[1:]
		}
	}
	s.pages[k] = m
}
