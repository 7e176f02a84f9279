package main

import (
	"cmp"
	"math"
	"strings"
	"time"
)

// setOptions parses the options of SET a[1] a[2] as Redis 7 does: NX, XX,
// GET, and one of EX n, PX n, EXAT t, PXAT t and KEEPTTL, in any order and
// case, each word read as a C string (up to a NUL byte: "NX\x00..." is NX),
// a repeated one allowed (the last n counting); NX with XX, two of the
// expiry options, a missing n or another word is a syntax error, found
// before n is checked. n must be a positive integer whose expiry, in
// milliseconds (from now for EX and PX), fits an int64. GET, EXAT, PXAT and
// KEEPTTL are then refused (errSetOption): the backends' ops carry neither
// the old value nor an expiry kept or given as a time. bad is the error
// reply, or "".
func setOptions(a [][]byte) (nx, xx bool, ttl time.Duration, bad respErr) {
	unit, n, refused := "", []byte(nil), ""
	for i := 3; i < len(a); i++ {
		switch opt := asciiUpper(cString(a[i])); {
		case opt == "NX" && !xx:
			nx = true
		case opt == "XX" && !nx:
			xx = true
		case opt == "GET":
			refused = cmp.Or(refused, opt)
		case opt == "KEEPTTL" && (unit == "" || unit == opt):
			unit, refused = opt, cmp.Or(refused, opt)
		case (opt == "EX" || opt == "PX" || opt == "EXAT" || opt == "PXAT") && (unit == "" || unit == opt) && i+1 < len(a):
			unit, n = opt, a[i+1]
			i++
			if strings.HasSuffix(opt, "AT") {
				refused = cmp.Or(refused, opt)
			}
		default:
			return false, false, 0, "ERR syntax error"
		}
	}
	timed := unit != "" && unit != "KEEPTTL" // n was given
	if timed {
		if bad := checkExpire(unit, n); bad != "" {
			return false, false, 0, bad
		}
	}
	switch {
	case refused != "":
		return false, false, 0, errSetOption(refused)
	case !timed:
		return nx, xx, 0, ""
	}
	v, _ := parseRedisInt(n)
	return nx, xx, expireTTL(unit, v), ""
}

// errSetOption is the reply to a SET option the gateway does not serve.
func errSetOption(opt string) respErr {
	return respErr("ERR SET option '" + opt + "' is not supported by the gateway")
}

// checkExpire checks n of SET's expiry option opt (EX, PX, EXAT or PXAT) as
// Redis does and returns its error reply, or "".
func checkExpire(opt string, n []byte) respErr {
	v, err := parseRedisInt(n)
	if err != nil {
		return "ERR value is not an integer or out of range"
	}
	seconds := opt == "EX" || opt == "EXAT"
	if v <= 0 || seconds && v > math.MaxInt64/1000 {
		return "ERR invalid expire time in 'set' command"
	}
	ms := v
	if seconds {
		ms = v * 1000
	}
	if (opt == "EX" || opt == "PX") && ms > math.MaxInt64-time.Now().UnixMilli() {
		return "ERR invalid expire time in 'set' command"
	}
	return ""
}

// maxExpiry is the latest expiry a SET stamps (unix ns): an hour short of
// what an int64 holds (year 2262), below farExpiry.
const maxExpiry = math.MaxInt64 - int64(time.Hour)

// expiryAt is the expiry header of a TTL given at now (0: none): now+ttl,
// capped at maxExpiry. expireTTL caps the TTL by the wall clock, but the
// expiry is stamped by the gateway's (expiryNow): a test's clock ahead of
// the wall clock by more than the hour made now+ttl overflow, and the key
// was written already expired.
func expiryAt(now time.Time, ttl time.Duration) int64 {
	if ttl <= 0 {
		return 0
	}
	if at := now.Add(ttl); at.Before(time.Unix(0, maxExpiry)) {
		return at.UnixNano()
	}
	return maxExpiry
}

// expireTTL is the TTL of SET's EX or PX n, capped at the largest whose
// expiry in unix nanoseconds fits an int64 (year 2262): n*unit would
// overflow time.Duration, and now+ttl UnixNano, beyond.
func expireTTL(opt string, n int64) time.Duration {
	unit := time.Second
	if opt == "PX" {
		unit = time.Millisecond
	}
	left := time.Duration(math.MaxInt64 - time.Now().UnixNano() - int64(time.Hour))
	if n > int64(left/unit) {
		return left
	}
	return time.Duration(n) * unit
}
