package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// An MGET reply that is not one value or null per key must not read as keys
// that do not exist: an error element (a store or proxy failing one key) is
// returned as the reply error it is, and a reply of the wrong length or with
// an element of another type is ErrBadReply. Neither is retried.
func TestMGetReplyOfWrongShapeIsAnError(t *testing.T) {
	tests := []struct {
		name  string
		give  string
		want  []client.Value
		reply bool // a reply error (redis.Error), else ErrBadReply
	}{
		{name: "values and null", give: "*2\r\n$-1\r\n$1\r\nv\r\n", want: []client.Value{{}, {Value: "v", Found: true}}},
		{name: "error element", give: "*2\r\n-OVERLOADED shed\r\n$1\r\nv\r\n", reply: true},
		{name: "short", give: "*1\r\n$1\r\nv\r\n"},
		{name: "long", give: "*3\r\n$1\r\nv\r\n$1\r\nw\r\n$1\r\nx\r\n"},
		{name: "integer element", give: "*2\r\n:1\r\n$1\r\nv\r\n"},
		{name: "nested array", give: "*2\r\n*0\r\n$1\r\nv\r\n"},
		{name: "status, not an array", give: "+OK\r\n"},
		{name: "value, not an array", give: "$1\r\nv\r\n"},
		{name: "integer, not an array", give: ":2\r\n"},
		{name: "null", give: "$-1\r\n"},
		{name: "null array", give: "*-1\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := fakeRESP(t, func([]string) string { return tt.give })
			c, err := client.New(client.Config{Service: "s", Region: "eu"})
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.SetRoutes(client.Routes{Direct: []string{addr}}))
			got, err := c.MGet(context.Background(), "a", "b")
			st := c.Stats()
			assert.Zero(t, st.Retries, "a reply was retried")
			if tt.want != nil {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			require.Error(t, err, "got %+v", got)
			assert.Equal(t, []client.Value{{}, {}}, got, "values of a rejected reply were kept")
			assert.EqualValues(t, 1, st.Failures)
			var re redis.Error
			assert.Equal(t, tt.reply, errors.As(err, &re), "%v", err)
			assert.Equal(t, !tt.reply, errors.Is(err, client.ErrBadReply), "%v", err)
		})
	}
}
