package webmcp

import (
	"strconv"
	"strings"
)

// What this file reads of RFC 9651's structured fields: a dictionary (a
// Permissions-Policy) and an item (an Origin-Agent-Cluster), their bare
// items typed as the two headers need (a token, a string, a boolean;
// numbers, byte sequences, dates and display strings read and kept as
// text), parameters read and dropped.

// A token is a structured field's token (self, *), apart from a string.
type token string

// An item is a bare item: a token, a string, a bool, or the text of any
// other.
type item struct{ value any }

// A member is a dictionary's value: an item, or an inner list; text is
// how the header wrote it.
type member struct {
	inner bool
	item  item
	list  []item
	text  string
}

// A parser reads one field value.
type parser struct {
	s string
	i int
}

func (p *parser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *parser) spaces(tabs bool) {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || tabs && p.s[p.i] == '\t') {
		p.i++
	}
}

// parseItem reads a whole field value as an item.
func parseItem(s string) (item, bool) {
	p := &parser{s: s}
	p.spaces(false)
	it, ok := p.item()
	if !ok {
		return item{}, false
	}
	p.spaces(false)
	return it, p.i == len(p.s)
}

// parseDictionary reads a whole field value as a dictionary; a key given
// twice keeps its last value.
func parseDictionary(s string) (map[string]member, bool) {
	p := &parser{s: s}
	d := map[string]member{}
	p.spaces(false)
	for p.i < len(p.s) {
		key, ok := p.key()
		if !ok {
			return nil, false
		}
		start := p.i
		var m member
		if p.peek() == '=' {
			p.i++
			start = p.i
			if p.peek() == '(' {
				m.inner = true
				if m.list, ok = p.innerList(); !ok {
					return nil, false
				}
			} else if m.item, ok = p.item(); !ok {
				return nil, false
			}
		} else {
			m.item = item{true}
			if !p.params() {
				return nil, false
			}
		}
		m.text = p.s[start:p.i]
		d[key] = m
		p.spaces(true)
		if p.i == len(p.s) {
			return d, true
		}
		if p.peek() != ',' {
			return nil, false
		}
		p.i++
		p.spaces(true)
		if p.i == len(p.s) {
			return nil, false // a trailing comma
		}
	}
	return d, true
}

// key reads a key: a lowercase letter or *, then lowercase letters,
// digits, _, -, . and *.
func (p *parser) key() (string, bool) {
	start := p.i
	if c := p.peek(); !(c >= 'a' && c <= 'z' || c == '*') {
		return "", false
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("_-.*", c) >= 0) {
			break
		}
		p.i++
	}
	return p.s[start:p.i], true
}

func (p *parser) innerList() ([]item, bool) {
	p.i++ // (
	var list []item
	for {
		p.spaces(false)
		if p.peek() == ')' {
			p.i++
			return list, p.params()
		}
		it, ok := p.item()
		if !ok {
			return nil, false
		}
		list = append(list, it)
		if c := p.peek(); c != ' ' && c != ')' {
			return nil, false
		}
	}
}

// item reads a bare item and its parameters.
func (p *parser) item() (item, bool) {
	it, ok := p.bare()
	return it, ok && p.params()
}

// params reads and drops ;key[=bare] parameters.
func (p *parser) params() bool {
	for p.peek() == ';' {
		p.i++
		p.spaces(false)
		if _, ok := p.key(); !ok {
			return false
		}
		if p.peek() == '=' {
			p.i++
			if _, ok := p.bare(); !ok {
				return false
			}
		}
	}
	return true
}

func (p *parser) bare() (item, bool) {
	c := p.peek()
	start := p.i
	switch {
	case c == '"':
		var b strings.Builder
		for p.i++; p.i < len(p.s); p.i++ {
			switch c := p.s[p.i]; {
			case c == '\\':
				p.i++
				if p.i == len(p.s) || p.s[p.i] != '"' && p.s[p.i] != '\\' {
					return item{}, false
				}
				b.WriteByte(p.s[p.i])
			case c == '"':
				p.i++
				return item{b.String()}, true
			case c < 0x20 || c > 0x7e:
				return item{}, false
			default:
				b.WriteByte(c)
			}
		}
		return item{}, false
	case c == '?':
		if p.i+1 < len(p.s) && (p.s[p.i+1] == '0' || p.s[p.i+1] == '1') {
			p.i += 2
			return item{p.s[p.i-1] == '1'}, true
		}
		return item{}, false
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '*':
		for p.i++; p.i < len(p.s); p.i++ {
			c := p.s[p.i]
			if !(c > 0x20 && c < 0x7f && strings.IndexByte(`"(),;<=>?@[\]{}`, c) < 0) || c == '\\' {
				break
			}
		}
		return item{token(p.s[start:p.i])}, true
	case c == '-' || c >= '0' && c <= '9':
		p.i++
		for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.') {
			p.i++
		}
		if _, err := strconv.ParseFloat(p.s[start:p.i], 64); err != nil {
			return item{}, false
		}
		return item{p.s[start:p.i]}, true
	case c == ':' || c == '@' || c == '%':
		// A byte sequence, a date, a display string: kept as text, never
		// an origin or a token.
		end := strings.IndexAny(p.s[p.i+1:], ":, ;)")
		if end < 0 {
			end = len(p.s) - p.i - 1
		}
		p.i += end + 1
		if c == ':' && p.peek() == ':' {
			p.i++
		}
		return item{[]byte(p.s[start:p.i])}, true
	}
	return item{}, false
}
