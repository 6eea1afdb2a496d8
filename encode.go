package affordances

import (
	"strconv"

	"github.com/affordances/affordances-go/internal/wirejson"
)

// The protocol's own documents are written without reflection, by the
// encoders of package wirejson, byte for byte as json.Marshal writes them
// (graph_test.go and encode_test.go compare them).

// appendNav appends json.Marshal(nav), each link's path as s's wire has it
// ([Site.full]).
func appendNav(dst []byte, nav []NavLink, s *Site) []byte {
	dst = append(dst, '[')
	for i, l := range nav {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"to":`...)
		dst = wirejson.AppendString(dst, s.full(l.To))
		if l.Label != "" {
			dst = append(dst, `,"label":`...)
			dst = wirejson.AppendString(dst, l.Label)
		}
		if l.When != "" {
			dst = append(dst, `,"when":`...)
			dst = wirejson.AppendString(dst, l.When)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// encodeDelta appends json.Marshal(d) to dst, with cs for its changed
// when d has none.
func encodeDelta(dst []byte, d *Delta, cs changeSet) ([]byte, error) {
	var err error
	dst = append(dst, `{"ok":`...)
	dst = strconv.AppendBool(dst, d.OK)
	if len(d.Changed) > 0 {
		dst = append(dst, `,"changed":`...)
		if dst, err = wirejson.AppendObject(dst, d.Changed); err != nil {
			return nil, err
		}
	} else if len(cs.keys) > 0 {
		dst = append(dst, `,"changed":{`...)
		for i, k := range cs.keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(wirejson.AppendString(dst, k), ':')
			if dst, err = wirejson.AppendValue(dst, cs.in[k]); err != nil {
				return nil, err
			}
		}
		dst = append(dst, '}')
	}
	if d.Output != nil {
		dst = append(dst, `,"output":`...)
		if dst, err = wirejson.AppendValue(dst, d.Output); err != nil {
			return nil, err
		}
	}
	if len(d.ActionsAdded) > 0 {
		dst = append(dst, `,"actionsAdded":`...)
		if dst, err = wirejson.AppendValue(dst, d.ActionsAdded); err != nil {
			return nil, err
		}
	}
	if len(d.ActionsRemoved) > 0 {
		dst = append(dst, `,"actionsRemoved":[`...)
		for i, name := range d.ActionsRemoved {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = wirejson.AppendString(dst, name)
		}
		dst = append(dst, ']')
	}
	if d.Redirect != "" {
		dst = append(dst, `,"redirect":`...)
		dst = wirejson.AppendString(dst, d.Redirect)
	}
	if d.Message != "" {
		dst = append(dst, `,"message":`...)
		dst = wirejson.AppendString(dst, d.Message)
	}
	if d.Error != nil {
		dst = append(dst, `,"error":`...)
		if dst, err = wirejson.AppendValue(dst, d.Error); err != nil {
			return nil, err
		}
	}
	if d.Approval != nil {
		dst = append(dst, `,"approval":`...)
		if dst, err = wirejson.AppendValue(dst, d.Approval); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}
