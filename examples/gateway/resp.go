package main

import (
	"strconv"

	"github.com/tidwall/redcon"
)

// Replies are computed first and written later, in command order, so the
// commands of one pipeline can run concurrently. A reply is one of:
//
//	simple      +OK
//	respErr     -ERR ...
//	int64       :1
//	[]byte      $3 foo (nil: null)
//	nullReply   null
//	[]any       an array of replies
//	respMap     a map (RESP3), or a flat array of pairs (RESP2)
type (
	simple    string
	respErr   string
	nullReply struct{}
	nullArray struct{} // EXEC aborted: *-1 in RESP2, null in RESP3
	respMap   []any    // key, value, key, value...
)

// overloadedReply is the reply of a command refused by admission or by the
// batcher's in-flight cap; the server counts them as it writes them.
var overloadedReply any = errReply(errOverloaded)

// memoryReply is the reply of a command refused by the memory guard of
// admission; the server counts them overloaded, as overloadedReply.
var memoryReply any = errReply(errMemory)

func errReply(err error) respErr {
	if isPanic(err) {
		err = errInternal
	}
	s := err.Error()
	if s == "" || s[0] < 'A' || s[0] > 'Z' || !hasCode(s) {
		s = "ERR " + s
	}
	return respErr(s)
}

// hasCode reports whether s starts with an upper-case error code word.
func hasCode(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' {
			return i > 0
		}
		if (c < 'A' || c > 'Z') && c != '_' {
			return false
		}
	}
	return false
}

// replyWriter is a connection's redcon.Writer, which holds what it is given
// until Flush writes it in one call, with the server's flush (which pushes
// the write deadline forward) called whenever the values written since the
// last Flush pass maxHeldReplies bytes, within a reply as between two. The
// chunk flush of serveConn bounds the replies held to max_pipeline of them,
// not their bytes: a chunk of 128 GETs of one 4 MiB value, sent in 2 KB,
// held 512 MiB in the writer before its first write (an MGET of max_args
// keys of it, 4 GiB), and a client that read nothing kept it so for
// write_timeout.
type replyWriter struct {
	*redcon.Writer
	flush func() error // the server's: pushes the write deadline, then Flush
	held  int          // bytes of values written since the last Flush
}

// maxHeldReplies is how many bytes of values a replyWriter holds before it
// flushes: redcon's Writer keeps a buffer up to 256 KiB for the next replies.
const maxHeldReplies = 256 << 10

// Flush writes what the writer holds.
func (w *replyWriter) Flush() error {
	w.held = 0
	return w.Writer.Flush()
}

// wrote counts a value of n bytes just written, and flushes once the values
// held pass maxHeldReplies (a failed write ends the connection at its next
// Flush: the Writer keeps the error and writes nothing more).
func (w *replyWriter) wrote(n int) {
	if w.held += n; w.held >= maxHeldReplies {
		_ = w.flush()
	}
}

// writeReply encodes v for protocol version proto (2 or 3).
// bulks is an array of bulk strings whose nil elements are nulls: MGET's
// reply, without an interface (an allocation) around each value.
type bulks [][]byte

// verbatim is text that Redis answers as a verbatim string of format "txt"
// under RESP3 (INFO, CLIENT INFO) and as a bulk string under RESP2.
type verbatim string

// bulkRef is a bulk string held where it already is (a nil one is null): a
// struct of one pointer goes into an interface without an allocation.
type bulkRef struct{ v *[]byte }

func writeReply(w *replyWriter, proto int, v any) {
	switch v := v.(type) {
	case simple:
		w.WriteString(string(v))
	case respErr:
		w.WriteError(string(v))
	case int64:
		w.WriteInt64(v)
	case int:
		w.WriteInt64(int64(v))
	case []byte:
		if v == nil {
			writeNull(w.Writer, proto)
			return
		}
		w.WriteBulk(v)
		w.wrote(len(v))
	case string:
		w.WriteBulkString(v)
		w.wrote(len(v))
	case verbatim:
		if proto < 3 {
			w.WriteBulkString(string(v))
		} else {
			w.WriteRaw([]byte("=" + strconv.Itoa(len(v)+4) + "\r\ntxt:" + string(v) + "\r\n"))
		}
		w.wrote(len(v))
	case nullReply, nil:
		writeNull(w.Writer, proto)
	case nullArray:
		if proto >= 3 {
			writeNull(w.Writer, proto)
		} else {
			w.WriteRaw([]byte("*-1\r\n"))
		}
	case []any:
		w.WriteArray(len(v))
		for _, e := range v {
			writeReply(w, proto, e)
		}
	case bulkRef:
		if *v.v == nil {
			writeNull(w.Writer, proto)
			return
		}
		w.WriteBulk(*v.v)
		w.wrote(len(*v.v))
	case bulks:
		w.WriteArray(len(v))
		for _, e := range v {
			if e == nil {
				writeNull(w.Writer, proto)
			} else {
				w.WriteBulk(e)
				w.wrote(len(e))
			}
		}
	case respMap:
		if proto >= 3 {
			w.WriteRaw([]byte("%" + strconv.Itoa(len(v)/2) + "\r\n"))
		} else {
			w.WriteArray(len(v))
		}
		for _, e := range v {
			writeReply(w, proto, e)
		}
	default:
		w.WriteError("ERR internal: unknown reply type")
	}
}

func writeNull(w *redcon.Writer, proto int) {
	if proto >= 3 {
		w.WriteRaw([]byte("_\r\n"))
		return
	}
	w.WriteNull()
}
