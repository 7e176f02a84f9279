package main

// The replies to CLIENT HELP, COMMAND HELP and CONFIG HELP. The gateway's
// errors for an unknown subcommand say, as Redis's do, "Try CLIENT HELP.",
// and HELP itself answered "unknown subcommand 'HELP'".

// helpReply is the reply to "name HELP", as Redis words it: a usage line,
// then lines (here, of the subcommands the gateway serves), then HELP's
// own, all simple strings.
func helpReply(name string, lines []string) any {
	out := make([]any, 0, len(lines)+3)
	out = append(out, simple(name+" <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"))
	for _, l := range lines {
		out = append(out, simple(l))
	}
	return append(out, simple("HELP"), simple("    Prints this help."))
}

var clientHelp = []string{
	"GETNAME", "    Return the name of the current connection.",
	"ID", "    Return the ID of the current connection.",
	"INFO", "    Return information about the current client connection.",
	"SETINFO <option> <value>", "    Set client meta attr. Options are:",
	"    * LIB-NAME: the client lib name.", "    * LIB-VER: the client lib version.",
	"SETNAME <name>", "    Assign the name <name> to the current connection.",
}

var commandHelp = []string{
	"(no subcommand)", "    Return an empty list: the gateway has no command table.",
	"COUNT", "    Return 0, the entries of the (empty) command table.",
	"INFO [<command-name> ...]", "    Return a null per command name.",
	"LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]", "    Return an empty list.",
}

var configHelp = []string{
	"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
	"SET, RESETSTAT, REWRITE", "    Not supported by the gateway: use its /control endpoint.",
}
