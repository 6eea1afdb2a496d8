package store

import (
	"fmt"
	"testing"
)

// held returns how many values l holds, after checking that its map and
// its list, walked both ways, agree.
func held[K comparable, V any](t *testing.T, l *lru[K, V]) int {
	t.Helper()
	var forward, back []K
	for e := l.head; e != nil; e = e.next {
		forward = append(forward, e.key)
		if l.entries[e.key] != e {
			t.Fatalf("%v is listed but not mapped to its entry", e.key)
		}
	}
	for e := l.tail; e != nil; e = e.prev {
		back = append(back, e.key)
	}
	if len(forward) != len(l.entries) || len(back) != len(forward) {
		t.Fatalf("the map holds %d, the list %d forward and %d back", len(l.entries), len(forward), len(back))
	}
	for i, k := range forward {
		if back[len(back)-1-i] != k {
			t.Fatalf("the list forward %v is not the list back %v reversed", forward, back)
		}
	}
	return len(forward)
}

// TestLRU: a value got is the most recently used; past max the one used
// longest ago is forgotten, and its entry holds the new key; a value put
// again is replaced, not held twice.
func TestLRU(t *testing.T) {
	l := newLRU[string, int](3)
	for i, k := range []string{"a", "b", "c"} {
		l.put(k, i)
	}
	if v := l.get("a"); v == nil || *v != 0 {
		t.Fatalf("get a: got %v, want 0", v)
	}
	old := l.entries["b"]
	l.put("d", 3) // b is the least recently used
	if l.get("b") != nil {
		t.Error("b still held past max")
	}
	if l.entries["d"] != old {
		t.Error("d did not take the forgotten entry of b")
	}
	l.put("c", 20)
	if v := l.get("c"); v == nil || *v != 20 {
		t.Errorf("c put again: got %v, want 20", v)
	}
	if got := fmt.Sprint(*l.oldest()); got != "0" { // a, then d, then c used since
		t.Errorf("oldest: got %s, want a's 0", got)
	}
	l.dropOldest()
	l.remove("c")
	if n := held(t, l); n != 1 || l.get("d") == nil {
		t.Errorf("after dropping the oldest and removing c: %d held, want d alone", n)
	}
	l.remove("d")
	if n := held(t, l); n != 0 || l.oldest() != nil {
		t.Errorf("emptied: %d held, oldest %v", n, l.oldest())
	}
}
