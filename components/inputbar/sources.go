package inputbar

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"parley/app/locale"
	"parley/app/slashhost"
	"parley/i18n"

	"parley/machine/input"
	"parley/machine/utf16x"
	"parley/protocol"
	"parley/slash"
)

// The menu's sources. They live here, beside the bar, because each one is a client of the
// server's catalogues; the slash package stays ignorant of commands, files and sessions.
// Every source degrades on its own: a catalogue that fails (or does not exist yet on this
// server) offers nothing and never blocks typing or sending.

// Chip sources, as they appear in input.Reference.Source.
const (
	SourceFiles    = "@files"
	SourceSessions = "@sessions"
)

// Catalogue is what the sources read from the server, for the workspace of the session the
// bar shows (Workspace); catalogue (in shell.go) implements it over *api.Client.
type Catalogue interface {
	Workspace() string
	ListCommands(ctx context.Context) (protocol.CommandList, error)
	ListFunctions(ctx context.Context) ([]protocol.Function, error)
	ListSkills(ctx context.Context) ([]protocol.Skill, error)
	ListFiles(ctx context.Context, query string, limit int) (protocol.FileList, error)
	ListSessions(ctx context.Context) ([]protocol.SessionInfo, error)
}

// maxItems bounds a source's share of the menu.
const maxItems = 8

// matches reports whether name matches the typed query: a case-insensitive prefix, or a
// substring once the query has two characters.
func matches(name, query string) bool {
	n, q := strings.ToLower(name), strings.ToLower(query)
	return strings.HasPrefix(n, q) || len(q) >= 2 && strings.Contains(n, q)
}

// commands offers the server's slash commands. A pick (or Space after an exact name)
// claims the draft with the command's token, and its usage becomes the ghost hint. Until the
// catalogue answers, the commands the protocol knows stand in, so Space and Enter adjudicate
// the same way the server's door will.
type commands struct {
	cat    Catalogue
	mu     sync.Mutex
	list   []protocol.CommandInfo
	loaded bool
	ws     string // the workspace list is of
}

func (s *commands) Trigger() rune { return '/' }
func (s *commands) Name() string  { return "commands" }

func (s *commands) load(ctx context.Context) []protocol.CommandInfo {
	ws := s.cat.Workspace()
	s.mu.Lock()
	if s.loaded && s.ws == ws {
		defer s.mu.Unlock()
		return s.list
	}
	s.mu.Unlock()
	l, err := s.cat.ListCommands(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && len(l.Commands) > 0 {
		s.list, s.loaded, s.ws = l.Commands, true, ws
	}
	return s.hot()
}

// hot is the catalogue as known now; s.mu is held.
func (s *commands) hot() []protocol.CommandInfo {
	if s.loaded {
		return s.list
	}
	return protocol.Commands
}

// Warm loads the catalogue. A failure is not reported: the protocol's list stands in.
func (s *commands) Warm(ctx context.Context, _ slash.Projection) error {
	s.load(ctx)
	return nil
}

func (s *commands) Candidates(ctx context.Context, q slash.Query) ([]slash.Item, error) {
	var out []slash.Item
	if !q.Leads() {
		// "/exa" after words is text (slash.Hit.Leads): a menu of commands there swallowed
		// Enter and Tab, since no pick could claim the draft (QA round 13 #2).
		return out, nil
	}
	for _, c := range s.load(ctx) {
		if matches(c.Name, q.Query) && len(out) < maxItems {
			out = append(out, slash.Item{ID: c.Name, Label: "/" + c.Name, Detail: locale.Current().CommandDesc(c.Name, c.Description)})
		}
	}
	return out, nil
}

func (s *commands) find(name string) (protocol.CommandInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.hot(), func(c protocol.CommandInfo) bool { return c.Name == name })
	if i < 0 {
		return protocol.CommandInfo{}, false
	}
	return s.hot()[i], true
}

// claim is a command's claim: its token and, as the hint, its usage without the name.
func claim(c protocol.CommandInfo) input.Claim {
	hint := strings.TrimSpace(strings.TrimPrefix(c.Usage, "/"+c.Name))
	return input.Claim{Token: "/" + c.Name + " ", Hint: hint}
}

func (s *commands) Pick(it slash.Item, q slash.Query) slash.PickOutcome {
	c, ok := s.find(it.ID)
	if !ok {
		return slash.PickOutcome{}
	}
	out := slash.BeginCommand(claim(c))
	// Typed whole, a command that needs no argument is what the person means to send: Enter
	// accepts and sends at once (docs/input.md). One that needs one only completes.
	out.Complete = q.Query == c.Name && !needsArgument(c)
	return out
}

// needsArgument reports whether c's usage names a required argument (`<slug>`); optional
// ones (`[server]`) may be left out.
func needsArgument(c protocol.CommandInfo) bool {
	return strings.Contains(strings.TrimPrefix(c.Usage, "/"+c.Name), "<")
}

// MatchSpace claims "/name" followed by Space when name is exactly a command and starts the
// draft.
func (s *commands) MatchSpace(q slash.Query) (slash.PickOutcome, bool) {
	c, ok := s.find(q.Query)
	if !ok || !q.Leads() {
		return slash.PickOutcome{}, false
	}
	return slash.BeginCommand(claim(c)), true
}

// MatchEnter claims a draft the server's door will run as a command.
func (s *commands) MatchEnter(_ context.Context, _ slash.Projection, draft string) (input.Claim, bool, error) {
	cmd, ok := protocol.ResolveCommand(draft)
	if !ok {
		return input.Claim{}, false, nil
	}
	c, ok := s.find(cmd.Name)
	if !ok {
		return input.Claim{}, false, nil
	}
	return claim(c), true, nil
}

// Lexicon decorates the command names typed in the draft.
func (s *commands) Lexicon(slash.Projection) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.hot()))
	for _, c := range s.hot() {
		names = append(names, c.Name)
	}
	return names, true
}

// functions offers the functions a person can run from the fn-form. A pick removes the typed
// token and asks the composer to open the fn-form (open), which is not the bar's to draw.
type functions struct {
	cat  Catalogue
	open func(name string) // runs on the UI goroutine, inside the key event
}

func (s *functions) Trigger() rune { return '/' }
func (s *functions) Name() string  { return "functions" }

func (s *functions) Candidates(ctx context.Context, q slash.Query) ([]slash.Item, error) {
	list, err := s.cat.ListFunctions(ctx)
	if err != nil {
		return nil, err
	}
	var out []slash.Item
	for _, f := range list {
		if matches(f.Name, q.Query) && len(out) < maxItems {
			detail := f.Title
			if detail == "" {
				detail = f.Description
			}
			out = append(out, slash.Item{ID: f.Name, Label: "ƒ " + f.Name, Detail: orDefault(detail, locale.T(i18n.KindFunction))})
		}
	}
	return out, nil
}

func (s *functions) Pick(it slash.Item, _ slash.Query) slash.PickOutcome {
	if s.open != nil {
		s.open(it.ID)
	}
	return slash.ConsumeToken()
}

// skills offers the workspace's named prompt snippets, inserted as the plain text "/name "
// and decorated in the draft from the lexicon (no chip, no identity state; docs/input.md).
type skills struct {
	cat    Catalogue
	mu     sync.Mutex
	list   []protocol.Skill
	loaded bool
	ws     string // the workspace list is of
	notify []func()
}

func (s *skills) Trigger() rune { return '/' }
func (s *skills) Name() string  { return "skills" }

func (s *skills) load(ctx context.Context) ([]protocol.Skill, error) {
	ws := s.cat.Workspace()
	s.mu.Lock()
	if s.loaded && s.ws == ws {
		defer s.mu.Unlock()
		return s.list, nil
	}
	s.mu.Unlock()
	list, err := s.cat.ListSkills(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.list, s.loaded, s.ws = list, true, ws
	notify := slices.Clone(s.notify)
	s.mu.Unlock()
	for _, f := range notify {
		f()
	}
	return list, nil
}

func (s *skills) Warm(ctx context.Context, _ slash.Projection) error {
	_, err := s.load(ctx)
	return err
}

func (s *skills) Candidates(ctx context.Context, q slash.Query) ([]slash.Item, error) {
	list, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	var out []slash.Item
	for _, sk := range list {
		if matches(sk.Name, q.Query) && len(out) < maxItems {
			out = append(out, slash.Item{ID: sk.Name, Label: "/" + sk.Name, Detail: orDefault(sk.Description, locale.T(i18n.KindSkill))})
		}
	}
	return out, nil
}

func (s *skills) Pick(it slash.Item, _ slash.Query) slash.PickOutcome {
	return slash.InsertText("/" + it.ID + " ")
}

func (s *skills) Lexicon(slash.Projection) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		return nil, false
	}
	names := make([]string, len(s.list))
	for i, sk := range s.list {
		names[i] = sk.Name
	}
	return names, true
}

func (s *skills) SubscribeLexicon(_ slash.Projection, changed func()) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notify = append(s.notify, changed)
	return nil // sources live as long as the bar; the controller's Close drops the rest
}

// known is the hot snapshot of references: the files and sessions the menu has seen,
// for synchronous paste matching.
type known struct {
	mu       sync.Mutex
	files    map[string]bool
	sessions map[string]string // id → title
}

func (k *known) addFiles(fs []protocol.FileEntry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.files == nil {
		k.files = map[string]bool{}
	}
	for _, f := range fs {
		k.files[f.Path] = true
	}
}

func (k *known) setSessions(list []protocol.SessionInfo) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sessions = make(map[string]string, len(list))
	for _, s := range list {
		k.sessions[s.ID] = s.Title
	}
}

// files offers workspace files as chips.
type files struct {
	cat   Catalogue
	known *known
}

func (s *files) Trigger() rune { return '@' }
func (s *files) Name() string  { return "files" }

func (s *files) Candidates(ctx context.Context, q slash.Query) ([]slash.Item, error) {
	l, err := s.cat.ListFiles(ctx, q.Query, maxItems)
	if err != nil {
		return nil, err
	}
	s.known.addFiles(l.Files)
	out := make([]slash.Item, 0, len(l.Files))
	for _, f := range l.Files {
		detail := locale.T(i18n.KindFile)
		if f.Dir {
			detail = locale.T(i18n.KindFolder)
		}
		out = append(out, slash.Item{ID: f.Path, Label: "@" + f.Path, Detail: detail})
	}
	return out, nil
}

func (s *files) Pick(it slash.Item, _ slash.Query) slash.PickOutcome {
	return slash.InsertReference(fileRef(it.ID))
}

func fileRef(path string) input.Reference {
	return input.Reference{Source: SourceFiles, Ref: path, Label: "@" + path, ClipboardText: "@" + path}
}

// sessions offers the other sessions as chips.
type sessions struct {
	cat   Catalogue
	known *known
	now   func() time.Time // the clock the times are worded against; nil is time.Now
}

func (s *sessions) Trigger() rune { return '@' }
func (s *sessions) Name() string  { return "sessions" }

func (s *sessions) Candidates(ctx context.Context, q slash.Query) ([]slash.Item, error) {
	list, err := s.cat.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	s.known.setSessions(list)
	var offered []protocol.SessionInfo
	for _, si := range list {
		if si.ID == q.Session.SessionID || si.Blank {
			continue // itself, and the heroes' blank sessions: nothing there to refer to
		}
		si.Title = orDefault(si.Title, locale.T(i18n.UntitledSession))
		if (q.Query == "" || matches(si.Title, q.Query) || strings.HasPrefix(si.ID, q.Query)) && len(offered) < maxItems {
			offered = append(offered, si)
		}
	}
	now := time.Now
	if s.now != nil {
		now = s.now
	}
	details := sessionDetails(offered, now())
	out := make([]slash.Item, len(offered))
	for i, si := range offered {
		out[i] = slash.Item{ID: si.ID, Label: "@" + si.Title, Detail: details[i]}
	}
	return out, nil
}

// sessionDetails words what tells each offered session apart (QA round 12 #19: two "hello"
// sessions looked alike in the menu): when it was last used, as the sidebar says it; and,
// for sessions alike in both title and time, the start of their id, which typed after `@`
// finds the session too.
func sessionDetails(list []protocol.SessionInfo, now time.Time) []string {
	l := locale.Current()
	out := make([]string, len(list))
	for i, si := range list {
		out[i] = l.T(i18n.KindSession) + " · " + l.RelativeTime(time.UnixMilli(si.LastActive()), now)
	}
	// A menu holds a few sessions (maxItems): each is compared with the others.
	alike := make([]bool, len(list))
	for i := range list {
		for j := i + 1; j < len(list); j++ {
			if list[i].Title == list[j].Title && out[i] == out[j] {
				alike[i], alike[j] = true, true
			}
		}
	}
	for i, si := range list {
		if alike[i] {
			out[i] += " · " + si.ID[:min(len(si.ID), idShown)]
		}
	}
	return out
}

// idShown is how much of a session's id the menu shows when nothing else tells it apart.
const idShown = 6

func (s *sessions) Pick(it slash.Item, _ slash.Query) slash.PickOutcome {
	return slash.InsertReference(sessionRef(it.ID, strings.TrimPrefix(it.Label, "@")))
}

// sessionPrefix is how a session reference reads in text: on the clipboard, in the model's
// prompt, and in a paste that becomes a chip again.
const sessionPrefix = "@session:"

func sessionRef(id, title string) input.Reference {
	return input.Reference{Source: SourceSessions, Ref: id, Label: "@" + orDefault(title, id), ClipboardText: sessionPrefix + id}
}

// Serialize is the model projection of a chip: "@path" for a file, "@session:<id>" for a
// session. ok is false for a source no serializer owns.
func Serialize(source, ref string) (string, bool) {
	switch source {
	case SourceFiles:
		return "@" + ref, true
	case SourceSessions:
		return sessionPrefix + ref, true
	}
	return "", false
}

// Owns reports whether a serializer owns the chip source.
func Owns(source string) bool { return source == SourceFiles || source == SourceSessions }

// token is an "@…" word of pasted text, in UTF-16 units of the text.
type token struct {
	start, end int
	word       string // without the '@'
}

// refTokens finds the "@word" tokens of text that start at a boundary; trailing sentence
// punctuation is not part of the word.
func refTokens(text string) []token {
	var out []token
	u := 0 // UTF-16 offset of byte i
	prevSpace := true
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == '@' && prevSpace {
			j := i + 1
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if unicode.IsSpace(r2) {
					break
				}
				j += s2
			}
			word := strings.TrimRight(text[i+1:j], ".,;:!?)\"'")
			if word != "" {
				n := utf16x.Len(text[i : i+1+len(word)])
				out = append(out, token{start: u, end: u + n, word: word})
			}
			u += utf16x.Len(text[i:j])
			i = j
			prevSpace = false
			continue
		}
		prevSpace = unicode.IsSpace(r)
		u += utf16x.RuneLen(r)
		i += size
	}
	return out
}

// MatchSync is the synchronous paste match: the pasted text's references that the hot
// snapshot knows.
func (k *known) MatchSync(text string) []input.Component {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []input.Component
	for _, t := range refTokens(text) {
		if id, ok := strings.CutPrefix(t.word, "session:"); ok {
			if title, ok := k.sessions[id]; ok {
				out = append(out, input.Component{Range: input.Range{Start: t.start, End: t.end}, Reference: sessionRef(id, title)})
			}
			continue
		}
		if k.files[t.word] {
			out = append(out, input.Component{Range: input.Range{Start: t.start, End: t.end}, Reference: fileRef(t.word)})
		}
	}
	return out
}

// MatchAsync is the asynchronous paste match: it asks the server about the references the
// snapshot did not know, each path once however often it is pasted, and returns the
// upgrades for paste p, to be applied as one transaction.
func (k *known) MatchAsync(ctx context.Context, cat Catalogue, p input.PasteID, text string) input.PasteUpgrades {
	out := input.PasteUpgrades{Paste: p}
	toks := refTokens(text)
	if len(toks) == 0 {
		return out
	}
	done := map[int]bool{}
	for _, c := range k.MatchSync(text) {
		done[c.Range.Start] = true
	}
	files := map[string]bool{} // each path asked about: whether it is a file
	var list []protocol.SessionInfo
	listed := false
	for _, t := range toks {
		if done[t.start] {
			continue
		}
		r := input.Range{Start: t.start, End: t.end}
		if id, ok := strings.CutPrefix(t.word, "session:"); ok {
			if !listed {
				listed = true
				l, err := cat.ListSessions(ctx)
				if err == nil {
					list = l
					k.setSessions(l)
				}
			}
			for _, s := range list {
				if s.ID == id {
					out.Upgrades = append(out.Upgrades, input.Component{Range: r, Reference: sessionRef(id, s.Title)})
				}
			}
			continue
		}
		is, asked := files[t.word]
		if !asked {
			l, err := cat.ListFiles(ctx, t.word, maxItems)
			if err == nil {
				k.addFiles(l.Files)
				is = slices.ContainsFunc(l.Files, func(f protocol.FileEntry) bool { return f.Path == t.word })
			}
			files[t.word] = is
		}
		if is {
			out.Upgrades = append(out.Upgrades, input.Component{Range: r, Reference: fileRef(t.word)})
		}
	}
	return out
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// exampleArguments completes "/example <slug>" with the workspace's examples (argument
// completion, docs/input.md).
func exampleArguments(cat Catalogue) *slashhost.Arguments {
	return &slashhost.Arguments{
		Command: "example",
		Key:     cat.Workspace,
		List: func(ctx context.Context) ([]slash.Item, error) {
			l, err := cat.ListCommands(ctx)
			if err != nil {
				return nil, err
			}
			items := make([]slash.Item, 0, len(l.Examples))
			for _, e := range l.Examples {
				items = append(items, slash.Item{ID: e.Name, Label: e.Name, Detail: e.Description})
			}
			return items, nil
		},
	}
}
