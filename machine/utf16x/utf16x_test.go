package utf16x

import (
	"slices"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestByteOffset(t *testing.T) {
	// "a😀b": a (1 unit, 1 byte), 😀 (2 units, 4 bytes), b.
	const s = "a\U0001F600b"
	tests := []struct {
		name  string
		u     int
		b, at int
	}{
		{"start", 0, 0, 0},
		{"before the pair", 1, 1, 1},
		{"inside the pair rounds down", 2, 1, 1},
		{"after the pair", 3, 5, 3},
		{"end", 4, 6, 4},
		{"past the end clamps", 9, 6, 4},
		{"negative clamps", -3, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, at := ByteOffset(s, tt.u)
			if b != tt.b || at != tt.at {
				t.Errorf("ByteOffset(%q, %d) = %d, %d; want %d, %d", s, tt.u, b, at, tt.b, tt.at)
			}
		})
	}
}

func TestLenOfInvalidUTF8(t *testing.T) {
	// Each invalid byte is one U+FFFD, as []rune decodes it.
	for _, s := range []string{"\xff", "a\xc3", "\xf0\x9f\x98", "\xed\xa0\x80", "12345678\x80abc"} {
		if got, want := Len(s), len(utf16.Encode([]rune(s))); got != want {
			t.Errorf("Len(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzAgainstUnicodeUTF16(f *testing.F) {
	for _, s := range []string{"", "hello", "a\U0001F600b", "日本語 /review", "\xff\xfe", "12345678\U0001F600", "\uFFFC\uFFFD", "\xed\xa0\x80x"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, u int) {
		want := utf16.Encode([]rune(s))
		if got := Len(s); got != len(want) {
			t.Fatalf("Len(%q) = %d, want %d", s, got, len(want))
		}
		if utf8.ValidString(s) {
			if got := LenValid(s); got != len(want) {
				t.Fatalf("LenValid(%q) = %d, want %d", s, got, len(want))
			}
		}
		got := Append(nil, s)
		if !slices.Equal(got, want) {
			t.Fatalf("Append(%q) = %x, want %x", s, got, want)
		}
		if utf8.ValidString(s) {
			if back := String(got); back != s {
				t.Fatalf("String(Append(%q)) = %q", s, back)
			}
			if n := UTF8Len(got); n != len(s) {
				t.Fatalf("UTF8Len(Append(%q)) = %d, want %d", s, n, len(s))
			}
		}
		// Any units, lone surrogates included, decode as unicode/utf16 does.
		if got, want := String(want[:len(want)/2]), string(utf16.Decode(want[:len(want)/2])); got != want {
			t.Fatalf("String(%x) = %q, want %q", want[:len(want)/2], got, want)
		}
		raw := make([]uint16, 0, len(s)/2)
		for i := 0; i+1 < len(s); i += 2 {
			raw = append(raw, uint16(s[i])|uint16(s[i+1])<<8)
		}
		if got, want := String(raw), string(utf16.Decode(raw)); got != want {
			t.Fatalf("String(%x) = %q, want %q", raw, got, want)
		}

		// ByteOffset: the byte it returns stands for at units; at is u clamped to [0, Len]
		// and rounded down out of a surrogate pair.
		b, at := ByteOffset(s, u)
		if b < 0 || b > len(s) {
			t.Fatalf("ByteOffset(%q, %d) = %d: out of range", s, u, b)
		}
		if b < len(s) && !utf8.RuneStart(s[b]) && utf8.ValidString(s) {
			t.Fatalf("ByteOffset(%q, %d) = %d: not a character boundary", s, u, b)
		}
		if n := len(utf16.Encode([]rune(s[:b]))); n != at {
			t.Fatalf("ByteOffset(%q, %d) = %d, %d; the prefix is %d units", s, u, b, at, n)
		}
		c := min(max(u, 0), len(want))
		switch {
		case Splits(want, c):
			if at != c-1 {
				t.Fatalf("ByteOffset(%q, %d) inside a pair gave %d, want %d (round down)", s, u, at, c-1)
			}
		case at != c:
			t.Fatalf("ByteOffset(%q, %d) = %d, %d; want unit %d", s, u, b, at, c)
		}
		for i, w := range want {
			if Splits(want, i) != (utf16.IsSurrogate(rune(w)) && IsLow(w) && i > 0 && IsHigh(want[i-1])) {
				t.Fatalf("Splits(%x, %d) is wrong", want, i)
			}
		}
	})
}
