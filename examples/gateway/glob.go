package main

// globMatch reports whether the name s matches a CONFIG GET pattern as
// Redis's stringmatchlen reads it without case: '*', '?', '[...]' classes
// (with '^', ranges, whose bounds may come in either order, and '\'
// escapes; a class that is not closed runs to the end of the pattern) and
// '\' escapes. A pattern is never malformed (path.Match's refusals of "[z-a]",
// "[-a]", "[^]" or "sav[e" matched nothing where Redis matches "save").
func globMatch(pattern []byte, s string) bool {
	longer := false
	return stringMatch(pattern, s, &longer)
}

// stringMatch is Redis's stringmatchlen_impl with nocase set; skipLonger
// ends the search once the rest of the pattern after a '*' matched nowhere.
func stringMatch(p []byte, s string, skipLonger *bool) bool {
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for ; len(s) > 0; s = s[1:] {
				if stringMatch(p[1:], s, skipLonger) {
					return true
				}
				if *skipLonger {
					return false
				}
			}
			*skipLonger = true
			return false
		case '?':
			s = s[1:]
		case '[':
			var match bool
			p, match = matchClass(p[1:], s[0])
			if !match {
				return false
			}
			s = s[1:]
			if len(p) == 0 { // Redis steps back onto the pattern's last byte, then past it
				continue
			}
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if globLower(p[0]) != globLower(s[0]) {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}

// matchClass matches c against the class p starts (after its '['): '^'
// first negates it, ranges' bounds may come in either order (compared as
// C's signed chars, lowered after they are put in order), '\' escapes the
// byte after it, and a class not closed ends with the pattern. It returns
// the pattern from the class's ']' (or its end) and whether c matched.
func matchClass(p []byte, c byte) ([]byte, bool) {
	not := len(p) > 0 && p[0] == '^'
	if not {
		p = p[1:]
	}
	match := false
	for {
		if len(p) >= 2 && p[0] == '\\' {
			p = p[1:]
			match = match || p[0] == c
		} else if len(p) == 0 || p[0] == ']' { // not closed: ends with the pattern
			return p, match != not
		} else if len(p) >= 3 && p[1] == '-' {
			lo, hi := int8(p[0]), int8(p[2])
			if lo > hi {
				lo, hi = hi, lo
			}
			lo, hi, lc := int8(globLower(byte(lo))), int8(globLower(byte(hi))), int8(globLower(c))
			match = match || lc >= lo && lc <= hi
			p = p[2:]
		} else {
			match = match || globLower(p[0]) == globLower(c)
		}
		p = p[1:]
	}
}

// globLower is c in lower case if it is an ASCII capital.
func globLower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
