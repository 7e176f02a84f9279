package jsonesc

import (
	"bytes"
	"encoding/json"
	"strings"
)

// RepeatedMember returns the first member name that appears twice in one
// object of data, a valid JSON text, names compared as encoding/json matches
// them to struct fields, without regard to case; "" for none. encoding/json
// decodes such an object as its last member, so {"Kill": true, "kill":
// false} reads as false: the sender's first value is lost without a word.
// data must be valid JSON (decode it first): on a malformed text it returns
// what it found before the error.
func RepeatedMember(data []byte) string {
	type object struct {
		key   bool // the next token is a member name
		names []string
	}
	var stack []*object // nil for an array
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if n := len(stack); n > 0 && stack[n-1] != nil && stack[n-1].key {
			if name, ok := tok.(string); ok {
				top := stack[n-1]
				for _, seen := range top.names {
					if strings.EqualFold(seen, name) {
						return name
					}
				}
				top.names, top.key = append(top.names, name), false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &object{key: true})
			continue
		case json.Delim('['):
			stack = append(stack, nil)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: its object's next token is a name.
		if n := len(stack); n > 0 && stack[n-1] != nil {
			stack[n-1].key = true
		}
	}
}
