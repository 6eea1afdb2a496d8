package affordances

import (
	"encoding/json"
	"slices"
)

// maxIssues bounds the issues one refused input reports.
const maxIssues = 20

// validate is step 4 of a call (seed 000): its input, validated against
// the action's input schema, then decoded into the action's Go type for
// [Request]. Each issue says where and why (docs/protocol.md decision 5); the input
// that passes is returned as sent, the empty one as {}.
func (s *Site) validate(c *call, req *Request) (json.RawMessage, error) {
	a := c.action
	input, issues := c.input, []issue(nil)
	if c.decode != nil {
		input, issues = c.decode()
	}
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	if len(issues) == 0 {
		// One pass, for the input's validity and its value together.
		if v, ok := a.decodeValid(input); ok {
			req.input = v
			return input, nil
		}
	}
	found, err := a.input.Validate(input)
	if err != nil {
		return nil, libError(InvalidInput, phrase("The input is not JSON."))
	}
	for _, is := range found {
		// A value that could not be decoded is missing from input: its own
		// issue says why, once.
		if !slices.ContainsFunc(issues, func(d issue) bool { return d.path == is.Path }) {
			issues = append(issues, issue{is.Path, text{is.Person.Format, is.Person.Args}}) // a key of the catalogue
		}
	}
	if len(issues) > 0 {
		e := libError(InvalidInput, phrase("The input does not match the schema."))
		if len(issues) > maxIssues {
			e = libError(InvalidInput, phrase("The input does not match the schema: %d problems, the first %d listed.", len(issues), maxIssues))
		}
		e.schema = true
		return nil, e.withIssues(issues[:min(len(issues), maxIssues)])
	}
	if req.input, err = a.decode(input); err != nil {
		// The schema let through what the Go type cannot hold (a number
		// too large for an int): say so without naming Go types.
		return nil, libError(InvalidInput, phrase("The input does not fit the action."))
	}
	return input, nil
}
