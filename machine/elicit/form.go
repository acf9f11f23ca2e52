package elicit

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"parley/i18n"
	"parley/protocol"
)

// Options is the host's policy (setElicitationOptions). It is the app's to set, not the
// model's: a model that sets allowOther decides someone else's UX.
type Options struct {
	// AnswerOnClick lets a lone single choice settle on its click. Off, the same question
	// keeps its radios and the button, so a person can change their mind before sending.
	AnswerOnClick bool
	// AllowOther offers "Other…" on single choices. A schema field's own allowOther wins
	// when it is set: that is the app talking.
	AllowOther bool
	// Layout is how a form of several questions is presented.
	Layout Layout
	// Zone is the offset from UTC of the person's clock at a wall-clock time (given as that
	// time in UTC). A browser's date-and-time input holds a wall-clock time with no zone
	// ("2026-12-25T10:30"), and the protocol's date-time is RFC 3339, with one: the answer
	// is that time at this offset. Nil is UTC. The host sets it (the browser's clock).
	Zone func(wall time.Time) time.Duration
}

// DefaultOptions returns the hosts' defaults: answer on click, Other offered, stepped.
func DefaultOptions() Options {
	return Options{AnswerOnClick: true, AllowOther: true, Layout: Stepped}
}

// Field is one question as the form renders it.
type Field struct {
	// Key is the property key; "" when the schema is one question.
	Key  string
	Kind Kind
	// Header is the chip's label: the schema's header, else its title cut short (ChipLabel),
	// else the question's position ("1", "2", …).
	Header      string
	Title       string
	Description string
	Placeholder string
	Required    bool
	// Choices of a Single or Multi field; a Boolean field has two, "true" and "false",
	// labelled by the schema's trueLabel/falseLabel or Yes/No.
	Choices []protocol.Choice
	// AllowOther says "Other…" is offered. Only ever on a Single field: the protocol takes
	// a multi-select's answer from its listed choices only, so an Other there could never
	// be sent.
	AllowOther bool
	Min, Max   *float64
	MinLength  *int
	MaxLength  *int
	MinItems   *int
	MaxItems   *int
	Schema     *protocol.Schema
}

// MaxChipWidth is how wide a chip's label may be before it is cut, in columns (a CJK
// character takes two): a title wider than that is cut at a word, with an ellipsis.
const MaxChipWidth = 24

// ChipLabel is the chip of question i without a header: its title cut short, or its position
// ("1", "2", …) when it has none, which never truncates a sentence into nonsense.
func ChipLabel(title string, i int) string {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return strconv.Itoa(i + 1)
	}
	if Width(title) <= MaxChipWidth {
		return title
	}
	w, end, space := 0, 0, -1
	for j, r := range title {
		if w+runeWidth(r) > MaxChipWidth-1 {
			break
		}
		w += runeWidth(r)
		end = j + utf8.RuneLen(r)
		if r == ' ' {
			space = j
		}
	}
	cut := title[:end]
	if space >= 0 && Width(title[:space]) >= MaxChipWidth/2 {
		cut = title[:space]
	}
	return strings.TrimRight(cut, " ,.;:?!，。；：？！") + "…"
}

// Width is how many columns s takes: two for an East Asian wide character, one otherwise.
func Width(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

func runeWidth(r rune) int {
	switch {
	case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3,
		r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F, r >= 0xFF00 && r <= 0xFF60,
		r >= 0xFFE0 && r <= 0xFFE6, r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}

// Answer is what a field holds now, for rendering.
type Answer struct {
	// Text is a text-like field's input, or the picked value of a Single or Boolean field.
	Text string
	// Picks are a Multi field's checked values, in choice order.
	Picks []string
	// Other says "Other…" is chosen: instead of a choice (Single), in addition (Multi).
	Other bool
	// OtherText is the field's own "Other…" text, kept when Other is unchosen so that
	// choosing it again brings it back; it never leaks into another field.
	OtherText string
}

// Form is the state of one decision's form. Build it with New; Dispatch is the only write.
type Form struct {
	schema  *protocol.Schema // what the answer is validated against; nil for an approval
	object  bool             // the answer is an object keyed by field
	opts    Options
	fields  []Field
	answers []Answer
	seeded  []bool // the field started from a schema default
	// unparsed says the field's input shows what it cannot read as a value (Unparsed).
	unparsed []bool
	// seen says the question has been shown: Enter goes on to those not yet seen, never back
	// to one the person left empty.
	seen    []bool
	current int
	errs    map[string]string
	// version counts the changes to the answers: what Settle and Send name.
	version int
}

// yesNo labels a boolean's choices when the schema does not.
var yesNo = [2]string{"Yes", "No"}

// confirmSchema is what a confirm without a schema asks, as the protocol reads it.
var confirmSchema = protocol.Schema{Type: "boolean"}

// New builds the form of a decision: from its schema for ask and confirm, seeded from the
// schema's defaults; an approval (answered by its options, not a form) has no fields.
func New(req protocol.DecisionRequest, opts Options) *Form {
	f := &Form{opts: opts}
	switch req.Kind {
	case protocol.KindApproval:
		return f
	case protocol.KindConfirm:
		f.schema = req.Schema
		if f.schema == nil || f.schema.Type != "boolean" {
			f.schema = &confirmSchema
		}
	default:
		f.schema = req.Schema
	}
	if f.schema == nil {
		return f
	}
	f.object = f.schema.Type == "object"
	for i, q := range f.schema.Questions() {
		fd := newField(q, i, opts)
		a, seeded := seed(fd)
		f.fields = append(f.fields, fd)
		f.answers = append(f.answers, a)
		f.seeded = append(f.seeded, seeded)
		f.unparsed = append(f.unparsed, false)
		f.seen = append(f.seen, i == 0)
	}
	return f
}

// OpensOnText reports whether the decision's form opens on a field the person types in (a
// text, a number, a date), where letters write and no key but Enter answers: a confirm, a
// choice and an approval open on buttons or options, which Space presses.
func OpensOnText(req protocol.DecisionRequest) bool {
	f := New(req, DefaultOptions())
	return len(f.fields) > 0 && f.fields[0].Kind.typed()
}

func newField(q protocol.Question, i int, opts Options) Field {
	s := q.Schema
	if s == nil {
		s = &protocol.Schema{Type: "string"}
	}
	title := s.Title
	if title == "" && s.Header == "" {
		// A property with no title nor header is named by its key, as the summary names it
		// ("notify" is "Notify"): a form of such questions showed "1", "2", "3", and no words
		// at all over the third's Yes and No (QA round 18). A header stands in for a title
		// where there is one (the view).
		title = protocol.KeyTitle(q.Key)
	}
	fd := Field{
		Key:         q.Key,
		Header:      s.Header,
		Title:       title,
		Description: s.Description,
		Placeholder: s.Placeholder,
		Required:    q.Required,
		Min:         s.Minimum,
		Max:         s.Maximum,
		MinLength:   s.MinLength,
		MaxLength:   s.MaxLength,
		MinItems:    s.MinItems,
		MaxItems:    s.MaxItems,
		Schema:      s,
	}
	if fd.Header == "" {
		fd.Header = ChipLabel(title, i)
	}
	switch {
	case s.IsSingleSelect():
		fd.Kind = Single
		fd.Choices = s.Choices()
		fd.AllowOther = opts.AllowOther
		if s.AllowOther != nil {
			fd.AllowOther = *s.AllowOther
		}
	case s.IsMultiSelect():
		fd.Kind = Multi
		fd.Choices = s.Choices()
	case s.Type == "boolean":
		fd.Kind = Boolean
		t, fl := s.TrueLabel, s.FalseLabel
		if t == "" {
			t = yesNo[0]
		}
		if fl == "" {
			fl = yesNo[1]
		}
		fd.Choices = []protocol.Choice{{Value: "true", Label: t}, {Value: "false", Label: fl}}
	case s.Type == "number":
		fd.Kind = Number
	case s.Type == "integer":
		fd.Kind = Integer
	default:
		fd.Kind = textKind(s)
	}
	return fd
}

func textKind(s *protocol.Schema) Kind {
	switch s.Format {
	case "email":
		return Email
	case "uri":
		return URI
	case "date":
		return Date
	case "date-time":
		return DateTime
	}
	if s.Multiline {
		return Textarea
	}
	return Text
}

// seed reads a field's schema default into its starting answer. A default the field cannot
// hold (a choice not listed, a wrong type) is left out rather than half-shown: Check
// refuses such schemas, and a form must not start from an answer it cannot render.
func seed(fd Field) (Answer, bool) {
	var a Answer
	raw := fd.Schema.Default
	if len(raw) == 0 || string(raw) == "null" {
		return a, false
	}
	switch fd.Kind {
	case Number, Integer:
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return a, false
		}
		a.Text = n.String()
	case Boolean:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return a, false
		}
		a.Text = strconv.FormatBool(b)
	case Multi:
		var vs []string
		if json.Unmarshal(raw, &vs) != nil {
			return a, false
		}
		for _, c := range fd.Choices {
			if slices.Contains(vs, c.Value) {
				a.Picks = append(a.Picks, c.Value)
			}
		}
	case Single:
		var v string
		if json.Unmarshal(raw, &v) != nil {
			return a, false
		}
		switch {
		case hasChoice(fd.Choices, v):
			a.Text = v
		case fd.AllowOther:
			a.Other, a.OtherText = true, v
		default:
			return a, false
		}
	default:
		var v string
		if json.Unmarshal(raw, &v) != nil {
			return a, false
		}
		a.Text = v
	}
	return a, true
}

func hasChoice(cs []protocol.Choice, v string) bool {
	return slices.ContainsFunc(cs, func(c protocol.Choice) bool { return c.Value == v })
}

// Valid reports whether field i's answer passes its question's validation (the protocol's
// rules): what a chip's check mark also needs. An unanswered field is not valid.
func (f *Form) Valid(i int) bool {
	return f.valid(i) && f.Complete(i) && f.fields[i].Schema != nil && f.check(i) == ""
}

// Unparsed reports whether field i's input shows what it cannot read (the Unparsed event).
func (f *Form) Unparsed(i int) bool { return f.valid(i) && f.unparsed[i] }

// Schema returns what the answer is validated against (nil for an approval).
func (f *Form) Schema() *protocol.Schema { return f.schema }

// Fields returns the form's fields in order.
func (f *Form) Fields() []Field { return slices.Clone(f.fields) }

// Current returns the index of the question shown when stepped (and the one Goto or a
// failed Submit last moved to otherwise).
func (f *Form) Current() int { return f.current }

// Stepped reports whether the form shows one question at a time: several questions and
// the Stepped layout.
func (f *Form) Stepped() bool { return len(f.fields) > 1 && f.opts.Layout == Stepped }

// Answer returns what field i holds; the zero Answer for no such field.
func (f *Form) Answer(i int) Answer {
	if !f.valid(i) {
		return Answer{}
	}
	a := f.answers[i]
	a.Picks = slices.Clone(a.Picks)
	return a
}

func (f *Form) valid(i int) bool { return i >= 0 && i < len(f.fields) }

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// Complete reports whether field i holds a usable value, required or not: the chip's check
// mark. Blank text is no value, as the protocol counts it; text its input cannot read is one,
// and wrong (Unparsed).
func (f *Form) Complete(i int) bool {
	if !f.valid(i) {
		return false
	}
	a := f.answers[i]
	switch f.fields[i].Kind {
	case Single:
		if a.Other {
			return !blank(a.OtherText)
		}
		return a.Text != ""
	case Multi:
		return len(a.Picks) > 0 || a.Other && !blank(a.OtherText)
	}
	return !blank(a.Text) || f.unparsed[i]
}

// otherBlank reports whether field i has Other chosen with no text: an answer begun and
// not given, which must not pass as "unanswered" on an optional field.
func (f *Form) otherBlank(i int) bool { return f.answers[i].Other && blank(f.answers[i].OtherText) }

// CanProceed reports whether the composer's button is enabled: every required field is
// complete and no field has Other chosen with empty text. A form with no fields has
// nothing to submit.
func (f *Form) CanProceed() bool {
	if len(f.fields) == 0 {
		return false
	}
	for i, fd := range f.fields {
		if fd.Required && !f.Complete(i) || f.otherBlank(i) {
			return false
		}
	}
	return true
}

// Checked reports whether every answer given passes its field's check (an unanswered field
// has nothing to check). CanProceed with a wrong answer enables the button, which then says
// what is wrong; a hint that calls the form ready waits for Checked too (QA round 25: a
// function form said "Ready" over a field it would refuse).
func (f *Form) Checked() bool {
	for i := range f.fields {
		if f.check(i) != "" {
			return false
		}
	}
	return true
}

// Lone reports whether answer-on-click applies: exactly one field, a Single or Boolean
// choice that did not start from a default (a default means the user should confirm it
// with the button), and the host's AnswerOnClick.
func (f *Form) Lone() bool {
	return f.opts.AnswerOnClick && len(f.fields) == 1 && f.fields[0].Kind.picked() && !f.seeded[0]
}

// Version counts the changes made to the answers so far. Settle and Send name the version
// whose Content they mean; the view runs them before any other event, so it is Content's.
func (f *Form) Version() int { return f.version }

// Errors returns the messages of the last Submit's validation, keyed by field key ("" for
// a one-question schema, and for what is wrong with a form as a whole). A field's message
// is dropped when the field changes. The map is a copy; nil when there are none.
func (f *Form) Errors() map[string]string {
	if len(f.errs) == 0 {
		return nil
	}
	return maps.Clone(f.errs)
}

// ErrorsIn is Errors in locale l: a schema check's message (the protocol's English) in l's
// words (i18n.Locale.Check). A view calls it as it renders, so a switch rewords them.
func (f *Form) ErrorsIn(l i18n.Locale) map[string]string {
	out := f.Errors()
	for k, v := range out {
		out[k] = l.Check(v)
	}
	return out
}

// Content returns the answer shaped to the schema, always valid JSON: one question's value
// (null when unanswered), or an object of the answered fields in property order, so that
// an unanswered required field is reported "is required" by the protocol itself. A
// number that does not parse goes as the typed string, for the same reason. A form with
// no fields returns null.
func (f *Form) Content() json.RawMessage { return f.ContentWith(nil) }

// ContentWith is Content with values in place of the answers of the fields they are given
// for, by index: what a form with custom controls (a host's field renderer) sends. An empty
// value leaves its field out, as an unanswered one.
func (f *Form) ContentWith(values map[int]json.RawMessage) json.RawMessage {
	value := func(i int) json.RawMessage {
		if v, ok := values[i]; ok {
			return v
		}
		return f.value(i)
	}
	if !f.object {
		if len(f.fields) == 0 {
			return json.RawMessage("null")
		}
		if v := value(0); len(v) > 0 {
			return v
		}
		return json.RawMessage("null")
	}
	b := []byte{'{'}
	for i, fd := range f.fields {
		v := value(i)
		if len(v) == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, marshal(fd.Key)...)
		b = append(b, ':')
		b = append(b, v...)
	}
	return append(b, '}')
}

// value returns field i's answer as JSON, or nil when it holds none.
func (f *Form) value(i int) json.RawMessage {
	fd, a := f.fields[i], f.answers[i]
	switch fd.Kind {
	case Single:
		if a.Other {
			if blank(a.OtherText) {
				return nil
			}
			return marshal(a.OtherText)
		}
		if a.Text == "" {
			return nil
		}
		return marshal(a.Text)
	case Boolean:
		if a.Text != "true" && a.Text != "false" {
			return nil
		}
		return json.RawMessage(a.Text)
	case Multi:
		picks := slices.Clone(a.Picks)
		if a.Other && !blank(a.OtherText) {
			picks = append(picks, a.OtherText)
		}
		if len(picks) == 0 {
			return nil
		}
		return marshal(picks)
	case Number, Integer:
		t := strings.TrimSpace(a.Text)
		if t == "" {
			return nil
		}
		if isNumberLiteral(t) {
			return json.RawMessage(t)
		}
		return marshal(a.Text)
	case DateTime:
		if blank(a.Text) {
			return nil
		}
		return marshal(f.instant(strings.TrimSpace(a.Text)))
	}
	if blank(a.Text) {
		return nil
	}
	return marshal(a.Text)
}

// wallLayouts are the texts of a date-and-time input: to the minute, the second, the
// millisecond.
var wallLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02T15:04:05.000"}

// instant writes a date-time as the protocol reads it (RFC 3339): a date-and-time input's
// wall-clock text at the person's offset (Options.Zone), anything else as it is, for the check
// to judge. Sent as the input gave it, no answer could pass: "2026-12-25T10:30" is not RFC
// 3339 (QA round 25 P1).
func (f *Form) instant(text string) string {
	for _, layout := range wallLayouts {
		if wall, err := time.Parse(layout, text); err == nil {
			off := f.offset(wall)
			return wall.Add(-off).In(time.FixedZone("", int(off/time.Second))).Format(time.RFC3339)
		}
	}
	return text
}

// WallClock is an RFC 3339 date-time (a default, an answer kept) as a date-and-time input
// holds it: the person's wall-clock time, to the minute; any other text as it is.
func (f *Form) WallClock(text string) string {
	at, err := time.Parse(time.RFC3339, strings.TrimSpace(text))
	if err != nil {
		return text
	}
	wall := at.UTC()
	return wall.Add(f.offset(wall)).Format(wallLayouts[0])
}

func (f *Form) offset(wall time.Time) time.Duration {
	if f.opts.Zone == nil {
		return 0
	}
	return f.opts.Zone(wall)
}

// isNumberLiteral reports whether t is a JSON number (not "+1", ".5", "0x10" or "NaN",
// which strconv would take and JSON would not).
func isNumberLiteral(t string) bool {
	if c := t[0]; c != '-' && (c < '0' || c > '9') {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(t), &n) == nil
}

func marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		// Strings and string slices always marshal; invalid UTF-8 is replaced, not refused.
		panic(err)
	}
	return b
}

// Dispatch applies one event and returns what the view must do.
func (f *Form) Dispatch(ev Event) []Effect {
	switch e := ev.(type) {
	case Pick:
		return f.pick(e)
	case Toggle:
		if !f.is(e.Index, Multi) || !hasChoice(f.fields[e.Index].Choices, e.Value) {
			return nil
		}
		a := &f.answers[e.Index]
		if slices.Contains(a.Picks, e.Value) {
			a.Picks = slices.DeleteFunc(slices.Clone(a.Picks), func(v string) bool { return v == e.Value })
		} else {
			a.Picks = f.inChoiceOrder(e.Index, append(slices.Clone(a.Picks), e.Value))
		}
		f.changed(e.Index)
	case ChooseOther:
		if !f.valid(e.Index) || !f.fields[e.Index].AllowOther {
			return nil
		}
		a := &f.answers[e.Index]
		if f.fields[e.Index].Kind == Multi {
			a.Other = !a.Other
		} else {
			a.Other, a.Text = true, ""
		}
		f.changed(e.Index)
	case Type:
		if !f.valid(e.Index) || !f.fields[e.Index].Kind.typed() {
			return nil
		}
		f.answers[e.Index].Text, f.unparsed[e.Index] = e.Text, false
		f.changed(e.Index)
	case Unparsed:
		// Only a number's or a date's input can show what it cannot read.
		if !f.valid(e.Index) || f.fields[e.Index].Kind < Number || f.fields[e.Index].Kind > DateTime {
			return nil
		}
		f.answers[e.Index].Text, f.unparsed[e.Index] = "", true
		f.changed(e.Index)
	case TypeOther:
		if !f.valid(e.Index) || !f.fields[e.Index].AllowOther {
			return nil
		}
		a := &f.answers[e.Index]
		a.OtherText, a.Other = e.Text, true
		if f.fields[e.Index].Kind == Single {
			a.Text = ""
		}
		f.changed(e.Index)
	case Goto:
		return f.move(e.Index)
	case Submit:
		return f.submit()
	case Advance:
		return f.advance()
	}
	return nil
}

func (f *Form) advance() []Effect {
	i := f.current
	if !f.valid(i) {
		return nil
	}
	if msg := f.check(i); msg != "" {
		if f.errs == nil {
			f.errs = map[string]string{}
		}
		f.errs[f.fields[i].Key] = msg
		return []Effect{Invalid{}}
	}
	if !f.Stepped() {
		return f.submit()
	}
	if effs := f.ahead(i, false); effs != nil {
		return effs
	}
	if i < len(f.fields)-1 && f.CanProceed() {
		return f.move(i + 1)
	}
	return f.submit()
}

// ahead moves on from question i to the first after it, wrapping, that is unanswered and not
// yet shown, or with required, also one required and left unanswered; nil when there is none.
func (f *Form) ahead(i int, required bool) []Effect {
	n := len(f.fields)
	for d := 1; d < n; d++ {
		if j := (i + d) % n; !f.Complete(j) && (!f.seen[j] || required && f.fields[j].Required) {
			return f.move(j)
		}
	}
	return nil
}

// check returns what is wrong with field i's answer by its question's own rules, or "" when
// it is unanswered or right. Only a value given can be wrong: an empty field is reported by
// Submit. Text its input cannot read is wrong whatever the rules.
func (f *Form) check(i int) string {
	fd := f.fields[i]
	if f.unparsed[i] {
		m := i18n.ValUnreadDate
		switch fd.Kind {
		case DateTime:
			m = i18n.ValUnreadDateTime
		case Number:
			m = i18n.ValUnreadNumber
		case Integer:
			m = i18n.ValUnreadWhole
		}
		return i18n.English.T(m) // in the page's words by ErrorsIn, as the protocol's are
	}
	if !f.Complete(i) || fd.Schema == nil {
		return ""
	}
	err := fd.Schema.ValidateContent(f.value(i))
	var verr *protocol.ValidationError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &verr):
		for _, msg := range verr.Fields {
			return msg
		}
	}
	return err.Error()
}

func (f *Form) is(i int, k Kind) bool { return f.valid(i) && f.fields[i].Kind == k }

func (f *Form) inChoiceOrder(i int, picks []string) []string {
	var out []string
	for _, c := range f.fields[i].Choices {
		if slices.Contains(picks, c.Value) {
			out = append(out, c.Value)
		}
	}
	return out
}

// changed drops the messages a change makes stale: the field's own, and the form's as a
// whole.
func (f *Form) changed(i int) {
	f.version++
	delete(f.errs, f.fields[i].Key)
	delete(f.errs, "")
}

func (f *Form) move(i int) []Effect {
	if !f.valid(i) || i == f.current {
		return nil
	}
	f.current, f.seen[i] = i, true
	return []Effect{Show{Index: i}}
}

// pick answers a Single or Boolean field by a click. On a lone question the click is the
// answer; in a stepped form it moves on to the next question unanswered and not yet shown,
// else to a required one still unanswered, wrapping, and never submits: a form of several
// questions always goes through the button. An optional question left empty stays behind.
func (f *Form) pick(e Pick) []Effect {
	if !f.valid(e.Index) || !f.fields[e.Index].Kind.picked() || !hasChoice(f.fields[e.Index].Choices, e.Value) {
		return nil
	}
	a := &f.answers[e.Index]
	a.Text, a.Other = e.Value, false
	f.changed(e.Index)
	if f.Lone() && !e.Stay {
		return []Effect{Settle{Version: f.version}}
	}
	if !f.Stepped() || e.Stay {
		return nil
	}
	return f.ahead(e.Index, true)
}

// submit validates the answer with the protocol's own rules and words. Its own messages are
// for what the protocol cannot see, which reads as no answer: an Other chosen and left empty,
// and text an input cannot read (Unparsed).
func (f *Form) submit() []Effect {
	if len(f.fields) == 0 {
		return nil
	}
	content := f.Content()
	errs := map[string]string{}
	var verr *protocol.ValidationError
	if err := f.schema.ValidateContent(content); errors.As(err, &verr) {
		for name, msg := range verr.Fields {
			errs[f.fieldKey(name)] = msg
		}
	} else if err != nil {
		errs[""] = err.Error()
	}
	for i, fd := range f.fields {
		if f.unparsed[i] {
			errs[fd.Key] = f.check(i)
		} else if _, ok := errs[fd.Key]; !ok && f.otherBlank(i) {
			errs[fd.Key] = "type your own answer, or pick a choice"
		}
	}
	if len(errs) == 0 {
		f.errs = nil
		return []Effect{Send{Version: f.version}}
	}
	f.errs = errs
	out := []Effect{Invalid{}}
	for i, fd := range f.fields {
		if _, ok := errs[fd.Key]; ok {
			return append(out, f.move(i)...)
		}
	}
	return out
}

// fieldKey maps a name of protocol.ValidationError onto a field key: "content" is the one
// question of a single-question schema, or the form as a whole ("") unless a property is
// called "content"; any other name is a property key.
func (f *Form) fieldKey(name string) string {
	if !f.object {
		return ""
	}
	if name == "content" && !slices.ContainsFunc(f.fields, func(fd Field) bool { return fd.Key == "content" }) {
		return ""
	}
	return name
}
