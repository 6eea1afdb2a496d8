package modeltext

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	affordances "github.com/affordances/affordances-go"
)

// DeltaSince writes the answer to a call as [Delta] does, but each
// changed entity the model was shown before (shown: the page's entities
// as last shown, nil for none) as what changed since: the rows of a table
// removed, added and changed (by their key), the fields of an object that
// changed, or "unchanged"; an entity it was not shown, or one whose
// change reads no shorter that way, is written whole. A change to a row
// the model was not shown (a row past what a budget let through) is
// written too: shown holds the values, not what of them was read.
func DeltaSince(d *affordances.Delta, shown map[string]any) string {
	if shown == nil || len(d.Changed) == 0 {
		return Delta(d)
	}
	return delta(d, func(b *strings.Builder) {
		b.WriteString("changed:\n")
		now, _ := normal(d.Changed).(map[string]any)
		before, _ := normal(shown).(map[string]any)
		for _, k := range sortedKeys(now) {
			if old, ok := before[k]; ok {
				writeSince(b, "  ", key(k), old, now[k])
			} else {
				writeEntity(b, "  ", key(k), now[k], nil)
			}
		}
	})
}

// writeSince writes how the value of name went from old to now: in full
// when that is no longer than the change.
func writeSince(b *strings.Builder, indent, name string, old, now any) {
	if reflect.DeepEqual(old, now) {
		b.WriteString(indent + name + ": unchanged\n")
		return
	}
	var whole strings.Builder
	writeEntity(&whole, indent, name, now, nil)
	var since strings.Builder
	if !tableSince(&since, indent, name, old, now) && !objectSince(&since, indent, name, old, now) {
		b.WriteString(whole.String())
		return
	}
	if since.Len() < whole.Len() {
		b.WriteString(since.String())
		return
	}
	b.WriteString(whole.String())
}

// keyColumns are the columns a table's rows are known by, the first one
// every row of both tables has, unique in each, winning.
var keyColumns = []string{"id", "key", "slug", "sku", "uid", "uuid", "code", "ref", "email", "handle", "name", "title"}

// tableSince writes the rows of a table that were removed, added and
// changed, known by a key column, and their order when the rows moved,
// when old and now are both tables with one; false otherwise.
//
//	NAME (N rows, by KEY): removed K, ...
//	NAME added (N): COL | ...
//	  CELL | ...
//	NAME changed (N): KEY | COL | ...     the key, then the columns that changed
//	  CELL | ...
//	NAME order: K, ...                    the rows' keys in their new order
func tableSince(b *strings.Builder, indent, name string, old, now any) bool {
	oldCols, ok1 := records(old)
	nowCols, ok2 := records(now)
	if !ok1 || !ok2 {
		return false
	}
	oldRows, nowRows := old.([]any), now.([]any)
	k := keyOf(oldRows, nowRows)
	if k == "" {
		return false
	}
	oldBy := map[string]map[string]any{}
	var oldOrder []string
	for _, r := range oldRows {
		m := r.(map[string]any)
		id := value(m[k])
		oldBy[id] = m
		oldOrder = append(oldOrder, id)
	}
	var removed, kept []string
	var added []any
	var changed [][2]map[string]any
	nowIDs := map[string]bool{}
	for _, r := range nowRows {
		m := r.(map[string]any)
		id := value(m[k])
		nowIDs[id] = true
		o, ok := oldBy[id]
		switch {
		case !ok:
			added = append(added, m)
		case !reflect.DeepEqual(o, m):
			changed = append(changed, [2]map[string]any{o, m})
			kept = append(kept, id)
		default:
			kept = append(kept, id)
		}
	}
	for _, id := range oldOrder {
		if !nowIDs[id] {
			removed = append(removed, id)
		}
	}
	moved := !slices.Equal(kept, slices.DeleteFunc(slices.Clone(oldOrder), func(id string) bool { return !nowIDs[id] }))
	b.WriteString(indent + name + " (" + plural(len(nowRows), "row") + ", by " + key(k) + ")")
	if len(removed) > 0 {
		b.WriteString(": removed " + strings.Join(removed, ", "))
	}
	b.WriteString("\n")
	if len(added) > 0 {
		writeTable(b, indent, name+" added", nowCols, added, nil)
	}
	if len(changed) > 0 {
		cols := []string{k}
		for _, c := range unionKeys(oldCols, nowCols) {
			if c == k {
				continue
			}
			for _, pair := range changed {
				if !reflect.DeepEqual(pair[0][c], pair[1][c]) {
					cols = append(cols, c)
					break
				}
			}
		}
		rows := make([]any, len(changed))
		for i, pair := range changed {
			row := map[string]any{}
			for _, c := range cols {
				if v, ok := pair[1][c]; ok {
					row[c] = v
				} else if _, had := pair[0][c]; had {
					row[c] = nil // the row lost the key
				}
			}
			rows[i] = row
		}
		writeTable(b, indent, name+" changed", cols, rows, nil)
	}
	if moved { // the rows' new order, by key, when they moved
		ids := make([]string, len(nowRows))
		for i, r := range nowRows {
			ids[i] = value(r.(map[string]any)[k])
		}
		b.WriteString(indent + name + " order: " + strings.Join(ids, ", ") + "\n")
	}
	return true
}

// objectSince writes the fields of an object that changed, when old and
// now are both objects that are not tables: NAME.FIELD: VALUE, a field
// gone as NAME.FIELD: gone, a table field as what changed in it.
func objectSince(b *strings.Builder, indent, name string, old, now any) bool {
	o, ok1 := old.(map[string]any)
	n, ok2 := now.(map[string]any)
	if !ok1 || !ok2 {
		return false
	}
	for _, f := range unionKeys(sortedKeys(o), sortedKeys(n)) {
		ov, had := o[f]
		nv, has := n[f]
		switch {
		case !has:
			b.WriteString(indent + name + "." + key(f) + ": gone\n")
		case !had:
			writeEntity(b, indent, name+"."+key(f), nv, nil)
		case !reflect.DeepEqual(ov, nv):
			if !tableSince(b, indent, name+"."+key(f), ov, nv) {
				writeEntity(b, indent, name+"."+key(f), nv, nil)
			}
		}
	}
	return true
}

// keyOf returns the key column of two tables: the first of keyColumns
// that every row of both has, as a string or a number, unique in each;
// "" when none is.
func keyOf(tables ...[]any) string {
	for _, k := range keyColumns {
		if keyed(k, tables) {
			return k
		}
	}
	return ""
}

func keyed(k string, tables [][]any) bool {
	for _, rows := range tables {
		seen := map[string]bool{}
		for _, r := range rows {
			v, ok := r.(map[string]any)[k]
			if !ok {
				return false
			}
			switch v.(type) {
			case string, interface{ String() string }:
			default:
				return false
			}
			id := value(v)
			if seen[id] {
				return false
			}
			seen[id] = true
		}
	}
	return true
}

// unionKeys returns the keys of a and b, sorted, each once.
func unionKeys(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// plural writes n and the noun, with an s when n is not 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
