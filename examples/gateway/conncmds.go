package main

import (
	"context"
	"fmt"
	"math"
)

// The commands on the connection's own state (kindConn): protocol version,
// authentication, database, name. QUIT is in the command table (commands.go),
// the transaction commands in tx.go.

func cmdHello(_ context.Context, s *session, a [][]byte) any {
	proto := s.proto
	if len(a) > 1 {
		v, err := parseRedisInt(a[1])
		if err != nil {
			return respErr("ERR Protocol version is not an integer or out of range")
		}
		if v < 2 || v > 3 {
			return respErr("NOPROTO unsupported protocol version")
		}
		proto = int(v)
	}
	var user, pass, name []byte // as Redis: parse every option, then apply
	for i := 2; i < len(a); i++ {
		switch opt := asciiUpper(cString(a[i])); { // as Redis's strcasecmp reads it
		case opt == "AUTH" && i+2 < len(a):
			user, pass = a[i+1], a[i+2]
			i += 2
		case opt == "SETNAME" && i+1 < len(a):
			// Checked as it is read, as Redis does: a bad name fails
			// HELLO before a later option's syntax error, and a later
			// SETNAME does not make up for it.
			if r := checkClientName(a[i+1]); r != nil {
				return r
			}
			name = a[i+1]
			i++
		default: // Redis's text, with the option as sent
			return respErr(fmt.Sprintf("ERR Syntax error in HELLO option '%s'", cString(a[i])))
		}
	}
	if user != nil {
		if r := s.auth(string(user), string(pass)); r != nil {
			return r
		}
	}
	if s.tenant == nil { // Redis 7.0's text
		return respErr("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> " +
			"option can be used to authenticate the client and select the RESP protocol version at the same time")
	}
	if name != nil {
		s.name = string(name)
	}
	s.proto = proto
	return respMap{
		"server", "redis", "version", "7.2.0", "proto", int64(proto), "id", int64(s.id),
		"mode", "standalone", "role", "master", "modules", []any{},
	}
}

func cmdAuth(_ context.Context, s *session, a [][]byte) any {
	user, pass := "default", string(a[1])
	if len(a) == 3 {
		user, pass = string(a[1]), string(a[2])
	} else if len(a) > 3 {
		return respErr("ERR syntax error")
	}
	if r := s.auth(user, pass); r != nil {
		return r
	}
	return simple("OK")
}

// cmdSelect accepts db 0 only: the gateway serves one key space (CONFIG GET
// databases answers 1). The index is checked as Redis checks it: an integer
// first, one that fits an int, then in range.
func cmdSelect(_ context.Context, _ *session, a [][]byte) any {
	v, err := parseRedisInt(a[1])
	switch {
	case err != nil:
		return respErr("ERR value is not an integer or out of range")
	case v < math.MinInt32 || v > math.MaxInt32:
		return respErr("ERR value is out of range, value must between -2147483648 and 2147483647")
	case v != 0:
		return respErr("ERR DB index is out of range")
	}
	return simple("OK")
}

func cmdReset(_ context.Context, s *session, _ [][]byte) any {
	s.resetTx()
	s.tenant, s.proto, s.name = s.g.open, 2, ""
	return simple("RESET")
}

func cmdClient(_ context.Context, s *session, a [][]byte) any {
	switch asciiUpper(a[1]) {
	case "SETNAME":
		if len(a) != 3 {
			return errArity("client|setname")
		}
		if r := checkClientName(a[2]); r != nil {
			return r
		}
		s.name = string(a[2])
		return simple("OK")
	case "GETNAME":
		if s.name == "" {
			return nullReply{}
		}
		return s.name
	case "SETINFO": // as Redis 7.2 checks it; the library's name and version are not kept
		attr := asciiLower(cString(a[2])) // as strcasecmp reads it
		if attr != "lib-name" && attr != "lib-ver" {
			return respErr(fmt.Sprintf("ERR Unrecognized option '%s'", cString(a[2])))
		}
		if checkClientName(a[3]) != nil {
			return respErr(fmt.Sprintf("ERR %s cannot contain spaces, newlines or special characters.", cString(a[2])))
		}
		return simple("OK")
	case "ID":
		return int64(s.id)
	case "INFO":
		return verbatim(fmt.Sprintf("id=%d addr=%s name=%s user=%s resp=%d\n", s.id, s.remote, s.name, s.user(), s.proto))
	case "HELP":
		return helpReply("CLIENT", clientHelp)
	}
	return respErr("ERR unknown subcommand '" + string(a[1]) + "'. Try CLIENT HELP.")
}

// checkClientName refuses a name with a byte outside '!'..'~', as Redis
// does: CLIENT INFO's fields are separated by spaces.
func checkClientName(name []byte) any {
	for _, c := range name {
		if c < '!' || c > '~' {
			return respErr("ERR Client names cannot contain spaces, newlines or special characters.")
		}
	}
	return nil
}
