package jsonesc_test

import (
	"encoding/json"
	"fmt"

	"github.com/tierkit/tierkit/internal/jsonesc"
)

// A body whose string holds half a surrogate pair is valid JSON, and
// encoding/json decodes it without an error, into U+FFFD; LoneSurrogate finds
// the escape so that the body can be refused instead. A whole pair and a plain
// escape are fine.
func ExampleLoneSurrogate() {
	for _, body := range []string{
		`{"name":"caf\u00e9"}`,
		`{"name":"\ud83d\ude00"}`,
		`{"name":"x\ud83d"}`,
	} {
		var v struct{ Name string }
		err := json.Unmarshal([]byte(body), &v)
		fmt.Printf("%+q %v at %d\n", v.Name, err, jsonesc.LoneSurrogate([]byte(body)))
	}
	// Output:
	// "caf\u00e9" <nil> at -1
	// "\U0001f600" <nil> at -1
	// "x\ufffd" <nil> at 10
}

// A body that names a member twice, in any case, decodes without an error
// into its last value; RepeatedMember finds the name so that the body can be
// refused instead. The same name in two objects is fine.
func ExampleRepeatedMember() {
	for _, body := range []string{
		`{"kill":true,"rules":[{"name":"a"},{"name":"b"}]}`,
		`{"Kill":true,"kill":false}`,
	} {
		var v struct{ Kill bool }
		err := json.Unmarshal([]byte(body), &v)
		fmt.Printf("kill=%v %v repeated %q\n", v.Kill, err, jsonesc.RepeatedMember([]byte(body)))
	}
	// Output:
	// kill=true <nil> repeated ""
	// kill=false <nil> repeated "kill"
}
