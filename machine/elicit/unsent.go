package elicit

import "strings"

// Unsent is what the person typed into the form and did not send, as text they can reuse:
// the words of a lone question as they are, else a line "Title: words" for each question
// typed in (a field's own "Other…" text counts; picks do not, nor a default left as it was).
// It is "" when nothing was typed. A question that ends elsewhere (another client answered
// it, the server restarted) gives these back to the composer's box (docs/composer.md),
// as an approval gives back its words for the agent.
func (f *Form) Unsent() string {
	var lines []string
	for i, fd := range f.fields {
		a, d := f.answers[i], Answer{}
		if f.seeded[i] {
			d, _ = seed(fd)
		}
		var t string
		switch {
		case a.Other && a.OtherText != d.OtherText:
			t = a.OtherText
		case fd.Kind.typed() && a.Text != d.Text:
			t = a.Text
		}
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if len(f.fields) == 1 {
			return t
		}
		label := fd.Title
		if label == "" {
			label = fd.Key
		}
		sep := ": "
		if strings.Contains(t, "\n") {
			sep = ":\n"
		}
		lines = append(lines, label+sep+t)
	}
	return strings.Join(lines, "\n")
}
