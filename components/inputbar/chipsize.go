package inputbar

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/machine/chipglyph"
	"parley/machine/input"
	"parley/machine/utf16x"
)

// This file sizes the chips (docs/input.md, "Chips that size to their label"): the machine
// keeps one U+FFFC per chip, and the textarea and the backdrop hold, at that offset, the
// ParleyChip glyph whose advance holds the chip's label (machine/chipglyph). The draft goes
// into the textarea through viewOf and comes out through chipglyph.FromView; nothing else
// converts.

// sizer picks each label's glyph, measuring the label once in the textarea's own font with
// a canvas (no layout), or estimating it where no canvas measures.
type sizer struct {
	ta    app.Value
	ctx2d app.Value // nil until the first refresh
	font  string    // the canvas font the cache was measured in
	px    float64   // its size
	// lineEm is the textarea's line width in em: no chip is wider (chipglyph.Fit).
	lineEm float64
	cache  map[string]float64 // each label's measured width in em
	// charCodeAt is String.prototype.charCodeAt: reads one unit of the value in JS (a JS
	// string is no object syscall/js can call a method on).
	charCodeAt app.Value
}

func newSizer(ta app.Value) *sizer {
	return &sizer{ta: ta, cache: map[string]float64{}, charCodeAt: app.Window().Get("String").Get("prototype").Get("charCodeAt")}
}

// refresh reads the textarea's font again; a change drops what was measured in the old one.
func (z *sizer) refresh() {
	cs := app.Window().Call("getComputedStyle", z.ta)
	font := cs.Get("fontStyle").String() + " " + cs.Get("fontWeight").String() + " " + cs.Get("fontSize").String() + " " + cs.Get("fontFamily").String()
	if font == z.font {
		return
	}
	z.font = font
	z.px = app.Window().Call("parseFloat", cs.Get("fontSize")).Float()
	clear(z.cache)
	z.measureLine()
	if z.ctx2d == nil { // an app.Value is an interface: nil until the canvas is made
		canvas := app.Window().Get("document").Call("createElement", "canvas")
		z.ctx2d = canvas.Call("getContext", "2d")
	}
	if z.ctx2d != nil && z.ctx2d.Truthy() {
		z.ctx2d.Set("font", font)
	}
}

// measureLine reads the textarea's line width (its content box, without the scrollbar's
// gutter), less a twentieth of an em so a chip never fills a line to the knife edge. It
// reports whether it changed.
func (z *sizer) measureLine() bool {
	if z.px <= 0 {
		return false
	}
	cs := app.Window().Call("getComputedStyle", z.ta)
	pad := app.Window().Call("parseFloat", cs.Get("paddingLeft")).Float() + app.Window().Call("parseFloat", cs.Get("paddingRight")).Float()
	w := z.ta.Get("clientWidth").Float() - pad
	line := 0.0 // not laid out (hidden): no limit
	if w > 0 {
		line = w/z.px - 0.05
	}
	changed := line != z.lineEm
	z.lineEm = line
	return changed
}

// glyph is the chip glyph for a label.
func (z *sizer) glyph(label string) rune {
	if z.font == "" {
		z.refresh()
	}
	if em, ok := z.cache[label]; ok {
		return chipglyph.Fit(em, z.lineEm)
	}
	shown, _ := chipglyph.Shown(label)
	em := chipglyph.EstimateEm(shown)
	if z.ctx2d != nil && z.ctx2d.Truthy() && z.px > 0 {
		em = z.ctx2d.Call("measureText", shown).Get("width").Float() / z.px
	}
	z.cache[label] = em
	return chipglyph.Fit(em, z.lineEm)
}

// glyphs are the glyphs of the machine's chips, in the draft's order.
func (z *sizer) glyphs(m *input.Machine) []rune {
	occs := m.Occurrences()
	if len(occs) == 0 {
		return nil
	}
	out := make([]rune, len(occs))
	for i, o := range occs {
		out[i] = z.glyph(o.Reference.Label)
	}
	return out
}

// watchWidth follows the textarea's width: when its lines get narrower or wider, each chip
// gets the glyph that fits them, in both layers.
func (sh *shell) watchWidth() {
	ro := app.Window().Get("ResizeObserver")
	if !ro.Truthy() {
		return
	}
	f := app.FuncOf(func(app.Value, []app.Value) any {
		if sh.closed || sh.cur == nil || !sh.sizer.measureLine() || len(sh.cur.m.Occurrences()) == 0 {
			return nil
		}
		sh.tint(sh.cur)
		sh.bdDirty = true
		sh.flush()
		return nil
	})
	sh.resize = ro.New(f)
	sh.resize.Call("observe", sh.ta)
	sh.listeners = append(sh.listeners, f)
}

// viewOf is the machine's draft as the textarea holds it.
func (sh *shell) viewOf(m *input.Machine) string {
	return chipglyph.ToView(m.Draft(), sh.sizer.glyphs(m))
}

// inView is a SetView's text as the textarea holds it: each chip's glyph where the machine
// wrote U+FFFC. A paste of 2,000 chips is one write, not a write per chip of a value that
// long (tint then finds every glyph in place).
func (sh *shell) inView(m *input.Machine, x input.SetView) string {
	end := x.Start + utf16x.Len(x.Text)
	var glyphs []rune
	for _, o := range m.Occurrences() {
		if o.Offset >= x.Start && o.Offset < end {
			glyphs = append(glyphs, sh.sizer.glyph(o.Reference.Label))
		}
	}
	return chipglyph.ToView(x.Text, glyphs)
}

// tint writes each chip's glyph into the textarea where a SetView wrote the machine's
// U+FFFC (or an older glyph): one unit for one unit, so no offset moves, and the selection
// is put back as it was.
func (sh *shell) tint(sc *scope) {
	occs := sc.m.Occurrences()
	if len(occs) == 0 {
		return
	}
	value := sh.ta.Get("value")
	n := sh.ta.Get("textLength").Int()
	start, end, dir := sh.ta.Get("selectionStart").Int(), sh.ta.Get("selectionEnd").Int(), sh.ta.Get("selectionDirection").String()
	changed := false
	for _, o := range occs {
		if o.Offset >= n {
			continue
		}
		g := sh.sizer.glyph(o.Reference.Label)
		if rune(sh.sizer.charCodeAt.Call("call", value, o.Offset).Int()) == g {
			continue
		}
		sh.ta.Call("setRangeText", string(g), o.Offset, o.Offset+1)
		changed = true
	}
	if changed {
		sh.ta.Call("setSelectionRange", start, end, dir)
	}
}

// fromView is the textarea's text as the machine counts it.
func fromView(s string) string { return chipglyph.FromView(s) }

// hasChip reports whether a SetView's text holds a chip.
func hasChip(s string) bool { return strings.ContainsRune(s, chipglyph.Placeholder) }
