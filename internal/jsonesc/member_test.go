package jsonesc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/internal/jsonesc"
)

func TestRepeatedMember(t *testing.T) {
	for _, tc := range []struct {
		name, give, want string
	}{
		{"none", `{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}`, ""},
		{"top level", `{"kill": true, "rules": [], "kill": false}`, "kill"},
		{"another case", `{"Kill": true, "kill": false}`, "kill"},
		{"nested object", `{"a": {"x": 1, "X": 2}}`, "X"},
		{"object in an array", `[{"p": 1}, {"q": 1, "q": 2}]`, "q"},
		{"a name as a value", `{"a": "a", "b": "a"}`, ""},
		{"not an object", `[1, "a", "a"]`, ""},
		{"scalar", `"a"`, ""},
	} {
		assert.Equal(t, tc.want, jsonesc.RepeatedMember([]byte(tc.give)), tc.name)
	}
}
