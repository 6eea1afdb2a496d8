package store

// An lru holds values by key, at most max of them, in a map and in a list
// from the most recently used (head) to the least (tail). Each entry is one
// allocation, its links in it; once full, the entry it forgets holds the
// next new key, so a full lru allocates nothing more. Its user locks it.
type lru[K comparable, V any] struct {
	max        int
	entries    map[K]*entry[K, V]
	head, tail *entry[K, V]
}

// An entry is a key's value and its place in the list.
type entry[K comparable, V any] struct {
	key        K
	val        V
	prev, next *entry[K, V]
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	return &lru[K, V]{max: max, entries: map[K]*entry[K, V]{}}
}

// get returns the value of key, nil when there is none, and makes it the
// most recently used.
func (l *lru[K, V]) get(key K) *V {
	e := l.entries[key]
	if e == nil {
		return nil
	}
	l.unlink(e)
	l.pushFront(e)
	return &e.val
}

// put holds v under key as the most recently used, forgetting the least
// recently used when full, and returns where it holds v.
func (l *lru[K, V]) put(key K, v V) *V {
	e := l.entries[key]
	switch {
	case e != nil:
		l.unlink(e)
	case len(l.entries) >= l.max:
		e = l.tail
		l.drop(e)
		fallthrough
	default:
		if e == nil {
			e = new(entry[K, V])
		}
		e.key = key
		l.entries[key] = e
	}
	e.val = v
	l.pushFront(e)
	return &e.val
}

// oldest returns the value used longest ago, nil when the lru is empty.
func (l *lru[K, V]) oldest() *V {
	if l.tail == nil {
		return nil
	}
	return &l.tail.val
}

// dropOldest forgets the value used longest ago, if any.
func (l *lru[K, V]) dropOldest() {
	if e := l.tail; e != nil {
		l.drop(e)
	}
}

// remove forgets key.
func (l *lru[K, V]) remove(key K) {
	if e := l.entries[key]; e != nil {
		l.drop(e)
	}
}

// drop forgets e: out of the list and the map.
func (l *lru[K, V]) drop(e *entry[K, V]) {
	l.unlink(e)
	delete(l.entries, e.key)
}

// unlink takes e out of the list.
func (l *lru[K, V]) unlink(e *entry[K, V]) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		l.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		l.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

// pushFront puts e at the head of the list, as the most recently used.
func (l *lru[K, V]) pushFront(e *entry[K, V]) {
	e.next = l.head
	if l.head != nil {
		l.head.prev = e
	}
	l.head = e
	if l.tail == nil {
		l.tail = e
	}
}
