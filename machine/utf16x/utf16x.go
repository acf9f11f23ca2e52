// Package utf16x is the one place where Parley converts between Go's UTF-8 strings and the
// browser's UTF-16 code units.
//
// A textarea counts positions (selectionStart, setRangeText, textLength) in UTF-16 code
// units, and so do the input machine, the slash pipeline and the input bar: every offset on
// the keystroke path is a unit offset, so the browser never converts one. Go holds text as
// UTF-8, so the conversions happen here, and only here.
//
// Two rules hold for every function:
//
//   - Invalid UTF-8 counts as U+FFFD, one unit per invalid byte, exactly as a range loop or
//     []rune(s) decodes it, and as the browser would hold the text after a round trip.
//   - A unit offset that falls between the two halves of a surrogate pair names no byte of a
//     UTF-8 string. It rounds down, to the start of its character (ByteOffset). A caller
//     that must not cut a character out of a range (the input machine widening an edit) rounds
//     the range's end up itself (Splits says when).
//
// The package is pure: it imports nothing of the browser, go-app, the network or the clock,
// and it is fuzzed against unicode/utf16.
package utf16x

import (
	"math"
	"math/bits"
	"strings"
	"unicode/utf8"
)

const (
	surrHigh = 0xD800 // first high (leading) surrogate
	surrLow  = 0xDC00 // first low (trailing) surrogate
	surrEnd  = 0xE000 // one past the last low surrogate
	surrSelf = 0x10000
)

// IsHigh reports whether u is the leading half of a surrogate pair.
func IsHigh(u uint16) bool { return u >= surrHigh && u < surrLow }

// IsLow reports whether u is the trailing half of a surrogate pair.
func IsLow(u uint16) bool { return u >= surrLow && u < surrEnd }

// Pair is the character that the surrogate pair hi, lo encodes.
func Pair(hi, lo uint16) rune { return surrSelf + (rune(hi)-surrHigh)<<10 + (rune(lo) - surrLow) }

// RuneLen is the number of units r takes: 2 above the Basic Multilingual Plane, else 1.
// Unlike utf16.RuneLen it never fails: an invalid rune is written as U+FFFD, one unit.
func RuneLen(r rune) int {
	if r >= surrSelf && r <= utf8.MaxRune {
		return 2
	}
	return 1
}

// UnitBytes is the UTF-8 width of one unit. A surrogate counts 2, so a whole pair counts 4
// (the width of its character); a lone surrogate is written as U+FFFD (3 bytes) by
// AppendString, so UnitBytes is exact only for text without lone surrogates, which is all
// the input machine stores.
func UnitBytes(u uint16) int {
	switch {
	case u < 0x80:
		return 1
	case u < 0x800:
		return 2
	case u >= surrHigh && u < surrEnd:
		return 2
	default:
		return 3
	}
}

// UTF8Len is the UTF-8 length of us, by UnitBytes.
func UTF8Len(us []uint16) int {
	n := len(us)
	for _, u := range us {
		if u >= 0x80 {
			n += UnitBytes(u) - 1
		}
	}
	return n
}

// ascii8 reports whether the eight bytes of s from i are all ASCII, tested as one word.
func ascii8(s string, i int) bool {
	return load64(s, i)&0x8080808080808080 == 0
}

// load64 reads eight bytes of s at i, little-endian.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Len is the length of s in units: len(utf16.Encode([]rune(s))), without the copies.
func Len(s string) int {
	_, n := ByteOffset(s, math.MaxInt) // clamped to the end: every unit
	return n
}

// LenValid is Len for valid UTF-8 (check with utf8.ValidString once, for many calls): every
// byte that is not a continuation byte starts a character, and the 4-byte ones take a
// surrogate pair, so it counts eight bytes at a time without decoding. On invalid UTF-8 its
// answer is unspecified.
func LenValid(s string) int {
	const hi = 0x8080808080808080
	n, i := len(s), 0
	for ; i+8 <= len(s); i += 8 {
		w := load64(s, i)
		if w&hi == 0 {
			continue
		}
		// Bit 7 of each byte, tested against bits 6, 5, 4 of the same byte.
		cont := w &^ (w << 1) & hi
		quad := w & (w << 1) & (w << 2) & (w << 3) & hi
		n += bits.OnesCount64(quad) - bits.OnesCount64(cont)
	}
	for ; i < len(s); i++ {
		switch b := s[i]; {
		case b&0xC0 == 0x80:
			n--
		case b >= 0xF0:
			n++
		}
	}
	return n
}

// ByteOffset maps the unit offset u of s to a byte offset of s. It returns the byte offset
// and the unit offset that byte stands for, which differs from u only when u was clamped
// (below 0 to 0, past the end to Len(s)) or rounded down from inside a surrogate pair to the
// start of its character.
func ByteOffset(s string, u int) (b, at int) {
	n, i := 0, 0
	for i < len(s) && n < u {
		if i+8 <= len(s) && n+8 <= u && ascii8(s, i) {
			n += 8
			i += 8
			continue
		}
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		w := RuneLen(r)
		if n+w > u {
			break // inside a pair: round down
		}
		n += w
		i += size
	}
	return i, n
}

// Append appends the units of s to dst: utf16.AppendRune over s's characters.
func Append(dst []uint16, s string) []uint16 {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, uint16(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= surrSelf {
			r -= surrSelf
			dst = append(dst, uint16(surrHigh+(r>>10)), uint16(surrLow+(r&0x3FF)))
		} else {
			dst = append(dst, uint16(r))
		}
	}
	return dst
}

// AppendString writes us as UTF-8: string(utf16.Decode(us)), without the []rune. A lone
// surrogate becomes U+FFFD.
func AppendString(b *strings.Builder, us []uint16) {
	for i := 0; i < len(us); i++ {
		u := us[i]
		if u < utf8.RuneSelf {
			b.WriteByte(byte(u))
			continue
		}
		r := rune(u)
		if IsHigh(u) && i+1 < len(us) && IsLow(us[i+1]) {
			r = Pair(u, us[i+1])
			i++
		} else if u >= surrHigh && u < surrEnd {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
}

// String is us as a Go string; see AppendString.
func String(us []uint16) string {
	if len(us) == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(UTF8Len(us))
	AppendString(&b, us)
	return b.String()
}

// Splits reports whether the unit offset p of us falls between the two halves of a
// surrogate pair, where no character starts.
func Splits(us []uint16, p int) bool {
	return p > 0 && p < len(us) && IsLow(us[p]) && IsHigh(us[p-1])
}
