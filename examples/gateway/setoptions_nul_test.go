package main

// Redis reads SET's and HELLO's option words as C strings (setCommand's
// parser compares opt[0..2] and opt[2] == '\0', or strcasecmp; HELLO uses
// strcasecmp): a word with a NUL byte is the option its bytes before the
// NUL name. The gateway compared the whole word and answered "syntax error"
// where Redis runs the command. TestDifferentialEdges runs these cases
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
}
