package jsonesc

import "strconv"

// LoneSurrogate returns the offset of the first \u escape in data, a valid
// JSON text (in which every backslash begins an escape inside a string),
// that is a surrogate not paired with the next escape, or -1 for none. data
// must be valid JSON (decode it first): an escape cut short at its end
// panics.
func LoneSurrogate(data []byte) int {
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		if data[i+1] != 'u' {
			i++ // a one-character escape: skip its character ('\\' included)
			continue
		}
		r, _ := strconv.ParseUint(string(data[i+2:i+6]), 16, 16)
		switch {
		case r >= 0xdc00 && r <= 0xdfff:
			return i
		case r >= 0xd800 && r <= 0xdbff:
			if len(data) < i+12 || data[i+6] != '\\' || data[i+7] != 'u' {
				return i
			}
			lo, _ := strconv.ParseUint(string(data[i+8:i+12]), 16, 16)
			if lo < 0xdc00 || lo > 0xdfff {
				return i
			}
			i += 11
		default:
			i += 5
		}
	}
	return -1
}
