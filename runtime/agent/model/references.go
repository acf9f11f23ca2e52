package model

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"parley/protocol"
	"parley/runtime/agent"
)

// What a prompt's references hand the model, and how much of it. A person who puts an `@`
// chip in a prompt means "read this": the model gets the file's text (or the folder's
// listing, or the other session's last messages) with the prompt, instead of having to ask
// for it with a tool call that would wait on the gate. A `/name` that starts a prompt and
// names one of the workspace's skills is replaced by the skill's text. See docs/model.md.
const (
	maxReferencedFile   = 32 << 10  // bytes of one file
	maxReferenced       = 128 << 10 // bytes of everything one prompt refers to
	transcriptMessages  = 20        // the last messages of a referenced session
	transcriptCharacter = 600       // runes of each of them
)

// workspace is what references read files and skills from: the script host confines every
// path to the session's workspace, as the read tool does.
type workspace interface {
	ReadFile(path string) (string, error)
	ListDir(path string) ([]string, error)
}

// references expands the references of a turn's user messages. It remembers what it read,
// so a prompt reads the same text at every step of a turn.
type references struct {
	ctx         context.Context
	files       workspace
	skills      map[string]string // name → body, the usable ones
	transcripts agent.Transcripts // nil when the tools cannot read other sessions
	cache       map[string]string
}

func newReferences(ctx context.Context, files workspace, skills []protocol.Skill, tools agent.Tools) *references {
	r := &references{ctx: ctx, files: files, skills: map[string]string{}, cache: map[string]string{}}
	for _, s := range skills {
		if s.Error == "" && s.Body != "" {
			r.skills[s.Name] = s.Body
		}
	}
	r.transcripts, _ = tools.(agent.Transcripts)
	return r
}

// expandAll expands every user message of msgs in place.
func (r *references) expandAll(msgs []openai.ChatCompletionMessage) {
	for i := range msgs {
		if msgs[i].Role == openai.ChatMessageRoleUser {
			msgs[i].Content = r.expand(msgs[i].Content)
		}
	}
}

// expand returns a prompt with its skill expanded and what its references point at
// appended, each under a tag that names it. A word that only looks like a reference (an
// e-mail address, a path that does not exist) is left as it is.
func (r *references) expand(text string) string {
	text = r.skill(text)
	var b strings.Builder
	budget := maxReferenced
	seen := map[string]bool{}
	for _, word := range referenceWords(text) {
		if seen[word] {
			continue
		}
		seen[word] = true
		block, ok := r.cache[word]
		if !ok {
			block = r.resolve(word)
			r.cache[word] = block
		}
		if block == "" {
			continue
		}
		if len(block) > budget {
			fmt.Fprintf(&b, "\n\n[@%s is left out: the prompt's references are over %d KiB; use the read tool]", word, maxReferenced>>10)
			continue
		}
		budget -= len(block)
		b.WriteString("\n\n")
		b.WriteString(block)
	}
	if b.Len() == 0 {
		return text
	}
	return text + b.String()
}

// skill replaces a leading "/name" that names a skill with the skill's text.
func (r *references) skill(text string) string {
	rest, ok := strings.CutPrefix(text, "/")
	if !ok {
		return text
	}
	name, args, _ := strings.Cut(rest, " ")
	name, more, _ := strings.Cut(name, "\n")
	body, ok := r.skills[name]
	if !ok {
		return text
	}
	tail := strings.TrimSpace(args + "\n" + more)
	out := fmt.Sprintf("<skill name=%q>\n%s\n</skill>", name, strings.TrimSpace(body))
	if tail != "" {
		out += "\n\n" + tail
	}
	return out
}

// resolve is the block one reference adds, or "" for a word that names nothing.
func (r *references) resolve(word string) string {
	if id, ok := strings.CutPrefix(word, "session:"); ok {
		return r.transcript(id)
	}
	if text, err := r.files.ReadFile(word); err == nil {
		if !utf8.ValidString(text) {
			return fmt.Sprintf("<file path=%q>\n[not text: use a tool to inspect it]\n</file>", word)
		}
		if len(text) > maxReferencedFile {
			cut := text[:maxReferencedFile]
			for !utf8.ValidString(cut) {
				cut = cut[:len(cut)-1]
			}
			text = cut + fmt.Sprintf("\n[cut: %d more bytes; read the rest with the read tool]", len(text)-len(cut))
		}
		return fmt.Sprintf("<file path=%q>\n%s\n</file>", word, text)
	}
	if names, err := r.files.ListDir(word); err == nil {
		return fmt.Sprintf("<folder path=%q>\n%s\n</folder>", word, strings.Join(names, "\n"))
	}
	return ""
}

// transcript is the last messages of another session, as "user:" and "agent:" lines.
func (r *references) transcript(id string) string {
	if r.transcripts == nil || !protocol.ValidSessionID(id) {
		return ""
	}
	title, evs, err := r.transcripts.Transcript(r.ctx, id)
	if err != nil {
		return ""
	}
	var lines []string
	for _, ev := range evs {
		if ev.Type != protocol.EventUserMessage && ev.Type != protocol.EventAgentMessage {
			continue
		}
		m, err := ev.DecodeMessage()
		if err != nil || strings.TrimSpace(m.Text) == "" {
			continue
		}
		who := "user"
		if ev.Type == protocol.EventAgentMessage {
			who = "agent"
		}
		text := []rune(strings.TrimSpace(m.Text))
		if len(text) > transcriptCharacter {
			text = append(text[:transcriptCharacter], '…')
		}
		lines = append(lines, who+": "+string(text))
	}
	if n := len(lines) - transcriptMessages; n > 0 {
		lines = append([]string{fmt.Sprintf("[%d earlier messages left out]", n)}, lines[n:]...)
	}
	return fmt.Sprintf("<session id=%q title=%q>\n%s\n</session>", id, title, strings.Join(lines, "\n"))
}

// referenceWords are the "@word" tokens of text that start at a boundary, without the '@'
// and without trailing sentence punctuation: what the composer's `@` chips become in a
// prompt ("@path", "@session:<id>").
func referenceWords(text string) []string {
	var out []string
	for _, field := range strings.FieldsFunc(text, unicode.IsSpace) {
		word, ok := strings.CutPrefix(field, "@")
		if !ok {
			continue
		}
		word = strings.TrimRight(word, ".,;:!?)\"'")
		if word != "" {
			out = append(out, word)
		}
	}
	return out
}
