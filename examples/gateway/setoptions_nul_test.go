package main

// Redis reads SET's, HELLO's, COMMAND LIST's and CLIENT SETINFO's option
// words as C strings (setCommand's parser compares opt[0..2] and opt[2] ==
// '\0', or strcasecmp; the others use strcasecmp): a word with a NUL byte
// is the option its bytes before the NUL name. The gateway compared the
// whole word and answered "syntax error" where Redis runs the command. TestDifferentialEdges runs these cases
// with the others.
var nulOptionCases = []edgeCase{
	{name: "SET options with a NUL byte", cmds: []string{
		`SET {e}k v "NX\x00"`, `SET {e}k w "nx\x00junk"`, `SET {e}k w "XX\x00"`, "GET {e}k",
		`SET {e}m v "EX\x00x" 100`, `SET {e}m v "px\x00" 100000 "xx\x00"`, `SET {e}m v "EX\x00" 0`,
		`SET {e}m v "NX\x00" "XX\x00"`, `SET {e}m v "\x00NX"`, "MGET {e}k {e}m",
	}},
	{name: "HELLO options with a NUL byte", cmds: []string{
		`HELLO 2 "SETNAME\x00" n1`, "CLIENT GETNAME", `HELLO 2 "setname\x00x" n2 "AUTH\x00" default pw`, "CLIENT GETNAME",
		`HELLO 2 "\x00SETNAME" n3`,
	}},
	{name: "COMMAND LIST options with a NUL byte", cmds: []string{
		`COMMAND LIST "FILTERBY\x00" PATTERN nosuch*`, `COMMAND LIST filterby "pattern\x00x" nosuch*`,
		`COMMAND LIST "\x00FILTERBY" PATTERN nosuch*`,
	}},
	{name: "CLIENT SETINFO attribute with a NUL byte (Redis 7.2; the test's Redis may lack it)", cmds: []string{
		`CLIENT SETINFO "lib-name\x00x" go-redis`, `CLIENT SETINFO "LIB-VER\x00" "a b"`,
	}, gw: map[string]string{
		`CLIENT SETINFO "lib-name\x00x" go-redis`: `+"OK"`,
		`CLIENT SETINFO "LIB-VER\x00" "a b"`:      `-"ERR LIB-VER cannot contain spaces, newlines or special characters."`,
	}},
}
