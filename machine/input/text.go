package input

// The draft is stored as UTF-16 code units (the textarea's positions) and arrives as UTF-8
// (Go strings in events); machine/utf16x converts between the two. What stays here is the
// machine's own: the placeholder units and the shared prefix and suffix of two drafts.

const (
	placeholderUnit = uint16(Placeholder)
	// strayUnit replaces a U+FFFC that arrives in user text. U+FFFD has the same width in
	// both encodings (1 unit, 3 bytes), so the swap moves no position and no byte count.
	strayUnit = uint16(0xFFFD)
)

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
