package input

import (
	"strings"
	"unicode/utf8"
)

// This file converts between the two encodings the machine meets: UTF-16 code units (the
// textarea's positions, the draft's storage) and UTF-8 (Go strings arriving in events).

const (
	placeholderUnit = uint16(Placeholder)
	// strayUnit replaces a U+FFFC that arrives in user text. U+FFFD has the same width in
	// both encodings (1 unit, 3 bytes), so the swap moves no position and no byte count.
	strayUnit = uint16(0xFFFD)
)

func isHighSurrogate(u uint16) bool { return u >= 0xD800 && u < 0xDC00 }
func isLowSurrogate(u uint16) bool  { return u >= 0xDC00 && u < 0xE000 }

// pair is the character a surrogate pair encodes.
func pair(hi, lo uint16) rune { return 0x10000 + (rune(hi)-0xD800)<<10 + (rune(lo) - 0xDC00) }

// unitBytes is the UTF-8 width of one code unit. Surrogates count 2 each, so a whole pair
// counts 4; the machine never stores a lone surrogate (edits snap to pair boundaries).
func unitBytes(u uint16) int {
	switch {
	case u < 0x80:
		return 1
	case u < 0x800:
		return 2
	case u >= 0xD800 && u < 0xE000:
		return 2
	default:
		return 3
	}
}

func utf8Len(us []uint16) int {
	n := len(us)
	for _, u := range us {
		if u >= 0x80 {
			n += unitBytes(u) - 1
		}
	}
	return n
}

// appendUnits appends the UTF-16 encoding of s. Invalid UTF-8 becomes U+FFFD per byte,
// as in a range loop.
func appendUnits(dst []uint16, s string) []uint16 {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, uint16(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			r -= 0x10000
			dst = append(dst, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
		} else {
			dst = append(dst, uint16(r))
		}
	}
	return dst
}

// unitsOf is the UTF-16 length of s, consistent with appendUnits.
func unitsOf(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// writeUnits writes us as UTF-8. The machine stores no lone surrogates; one would become
// U+FFFD.
func writeUnits(b *strings.Builder, us []uint16) {
	for i := 0; i < len(us); i++ {
		u := us[i]
		if u < utf8.RuneSelf {
			b.WriteByte(byte(u))
			continue
		}
		r := rune(u)
		if isHighSurrogate(u) && i+1 < len(us) && isLowSurrogate(us[i+1]) {
			r = pair(u, us[i+1])
			i++
		} else if u >= 0xD800 && u < 0xE000 {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
}

func unitsString(us []uint16) string {
	if len(us) == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(utf8Len(us))
	writeUnits(&b, us)
	return b.String()
}

func isCont(c byte) bool { return c&0xC0 == 0x80 }

// commonPrefix is the length in bytes of the longest shared prefix of a and b that ends
// on a rune boundary. Equal chunks go through string equality, which is vectorized
// natively.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+512 <= n && a[i:i+512] == b[i:i+512] {
		i += 512
	}
	for i+16 <= n && a[i:i+16] == b[i:i+16] {
		i += 16
	}
	for i < n && a[i] == b[i] {
		i++
	}
	for i > 0 && (i < len(a) && isCont(a[i]) || i < len(b) && isCont(b[i])) {
		i--
	}
	return i
}

// commonSuffix is the length in bytes of the longest shared suffix of a and b, at most
// limit, that starts on a rune boundary.
func commonSuffix(a, b string, limit int) int {
	n := min(len(a), len(b), limit)
	la, lb := len(a), len(b)
	i := 0
	for i+512 <= n && a[la-i-512:la-i] == b[lb-i-512:lb-i] {
		i += 512
	}
	for i+16 <= n && a[la-i-16:la-i] == b[lb-i-16:lb-i] {
		i += 16
	}
	for i < n && a[la-i-1] == b[lb-i-1] {
		i++
	}
	for i > 0 && (isCont(a[la-i]) || isCont(b[lb-i])) {
		i--
	}
	return i
}
