package input

// The chip's three projections. The visual one is the label at the placeholder offset,
// for the backdrop; the clipboard and persistence one is clipboardText; the model one is
// produced at submit by the sources' serializers (see submit.go).

// Segment is a piece of the backdrop: a run of text, or one chip.
type Segment struct {
	Text string     // the text run, or the chip's label
	Chip bool       // whether this segment is a chip
	Occ  Occurrence // the chip, when Chip is set
}

// Backdrop is the visual projection: the draft cut into text runs and chips, each chip
// drawn with its label (and its invalid style) where its U+FFFC sits in the textarea.
func (m *Machine) Backdrop() []Segment {
	n := m.buf.Len()
	var out []Segment
	s := 0
	for i, r := range m.occ.rows {
		p := m.occ.pos(i, n)
		if p > s {
			out = append(out, Segment{Text: m.buf.stringRange(s, p)})
		}
		o := Occurrence{ID: r.e.id, Reference: r.e.ref, Offset: p, Invalid: m.invalid[r.e.id]}
		out = append(out, Segment{Text: r.e.ref.Label, Chip: true, Occ: o})
		s = p + 1
	}
	if s < n {
		out = append(out, Segment{Text: m.buf.stringRange(s, n)})
	}
	return out
}

// ClipboardText is the clipboard projection of [start, end) (clamped to the draft): what
// copy and cut put on the clipboard, each chip expanded to its ClipboardText and spaced
// from the words beside it as the send spaces it (expandWords).
func (m *Machine) ClipboardText(start, end int) string {
	return expandWords(m.buf, m.occ, start, end, clipboardText)
}

func clipboardText(e *entry) string { return e.ref.ClipboardText }

// PersistText is the persistence projection of the whole draft, for the draft mirror:
// the same text a select-all copy gives and the send reads, so a reload degrades chips to
// that text.
func (m *Machine) PersistText() string { return m.ClipboardText(0, m.buf.Len()) }
