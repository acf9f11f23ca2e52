package inputbar

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/components/viewtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/store"
	"parley/machine/input"
	"parley/protocol"
	"parley/slash"
)

// fakeCat answers from its fields; err fails every call (a server without the catalogue).
type fakeCat struct {
	err      error
	sessions []protocol.SessionInfo
	files    []protocol.FileEntry
	skills   []protocol.Skill
	asked    []string // the ListFiles queries
}

func (f *fakeCat) Workspace() string { return "" }

func (f *fakeCat) ListCommands(context.Context) (protocol.CommandList, error) {
	return protocol.CommandList{Commands: protocol.Commands}, f.err
}
func (f *fakeCat) ListFunctions(context.Context) ([]protocol.Function, error) {
	return []protocol.Function{{Name: "deploy", Title: "Deploy"}}, f.err
}
func (f *fakeCat) ListSkills(context.Context) ([]protocol.Skill, error) { return f.skills, f.err }
func (f *fakeCat) ListFiles(_ context.Context, q string, _ int) (protocol.FileList, error) {
	f.asked = append(f.asked, q)
	return protocol.FileList{Files: f.files}, f.err
}
func (f *fakeCat) ListSessions(context.Context) ([]protocol.SessionInfo, error) {
	return f.sessions, f.err
}

func TestCommandsClaimWithTheirUsageAsHint(t *testing.T) {
	s := &commands{cat: &fakeCat{err: errors.New("404")}}
	items, err := s.Candidates(context.Background(), slash.Query{Hit: slash.Hit{Query: "exa"}})
	require.NoError(t, err, "a failing catalogue falls back to the protocol's commands")
	require.Len(t, items, 1)
	out := s.Pick(items[0], slash.Query{})
	assert.Equal(t, slash.BeginCommand(input.Claim{Token: "/example ", Hint: "<slug> [json-vars]"}), out)

	sp, ok := s.MatchSpace(slash.Query{Hit: slash.Hit{Query: "help"}})
	assert.True(t, ok)
	assert.Equal(t, "/help ", sp.Claim.Token)
	_, ok = s.MatchSpace(slash.Query{Hit: slash.Hit{Query: "hel"}})
	assert.False(t, ok, "only an exact name claims on Space")

	// After words, "/exa" is text: no command is offered or claimed there.
	mid := slash.Hit{Query: "exa", Span: input.Span{Start: 6, End: 10}}
	items, err = s.Candidates(context.Background(), slash.Query{Hit: mid})
	require.NoError(t, err)
	assert.Empty(t, items, "no command mid-draft")
	mid.Query = "help"
	_, ok = s.MatchSpace(slash.Query{Hit: mid})
	assert.False(t, ok, "nor a Space after one")

	for draft, want := range map[string]bool{"/script x = 1": true, "/helpful": false, "see /help": false, "/help": true} {
		_, got, err := s.MatchEnter(context.Background(), slash.Projection{}, draft)
		require.NoError(t, err)
		assert.Equal(t, want, got, draft)
	}
}

// TestACommandTypedWholeIsComplete: the pick of a command typed whole that needs no argument
// is Complete (an Enter sends it at once); a prefix, or a command that needs an argument, is not.
func TestACommandTypedWholeIsComplete(t *testing.T) {
	s := &commands{cat: &fakeCat{}}
	for _, tt := range []struct {
		typed, pick string
		want        bool
	}{
		{"help", "help", true},
		{"hel", "help", false},
		{"mcp", "mcp", true}, // its arguments are optional
		{"example", "example", false},
		{"script", "script", false},
	} {
		out := s.Pick(slash.Item{ID: tt.pick}, slash.Query{Hit: slash.Hit{Query: tt.typed}})
		assert.Equal(t, tt.want, out.Complete, "/%s picking /%s", tt.typed, tt.pick)
		assert.Equal(t, "/"+tt.pick+" ", out.Claim.Token)
	}
}

func TestSourcesDegradeOnErrors(t *testing.T) {
	bad := &fakeCat{err: errors.New("the server answered 404 Not Found")}
	k := &known{}
	for _, src := range []slash.Source{&files{cat: bad, known: k}, &sessions{cat: bad, known: k}, &skills{cat: bad}, &functions{cat: bad}} {
		items, err := src.Candidates(context.Background(), slash.Query{})
		assert.Error(t, err, src.Name())
		assert.Empty(t, items, src.Name())
	}
	_, warm := (&skills{cat: bad}).Lexicon(slash.Projection{})
	assert.False(t, warm, "an unloaded roster decorates nothing")
}

func TestPicksAndSerialization(t *testing.T) {
	cat := &fakeCat{sessions: []protocol.SessionInfo{{ID: "s1", Title: "Alpha"}, {ID: "me", Title: "Me"}},
		files: []protocol.FileEntry{{Path: "src/a.go"}}, skills: []protocol.Skill{{Name: "review"}}}
	k := &known{}
	ss := &sessions{cat: cat, known: k}
	items, err := ss.Candidates(context.Background(), slash.Query{Session: slash.Projection{SessionID: "me"}})
	require.NoError(t, err)
	require.Len(t, items, 1, "the current session is not offered")
	ref := ss.Pick(items[0], slash.Query{}).Reference
	assert.Equal(t, input.Reference{Source: SourceSessions, Ref: "s1", Label: "@Alpha", ClipboardText: "@session:s1"}, ref)

	fs := &files{cat: cat, known: k}
	items, err = fs.Candidates(context.Background(), slash.Query{})
	require.NoError(t, err)
	assert.Equal(t, input.Reference{Source: SourceFiles, Ref: "src/a.go", Label: "@src/a.go", ClipboardText: "@src/a.go"}, fs.Pick(items[0], slash.Query{}).Reference)

	assert.Equal(t, slash.InsertText("/review "), (&skills{cat: cat}).Pick(slash.Item{ID: "review"}, slash.Query{}))
	var opened string
	fn := &functions{cat: cat, open: func(n string) { opened = n }}
	assert.Equal(t, slash.ConsumeToken(), fn.Pick(slash.Item{ID: "deploy"}, slash.Query{}))
	assert.Equal(t, "deploy", opened)

	for _, c := range []struct{ source, ref, want string }{{SourceFiles, "a.go", "@a.go"}, {SourceSessions, "s1", "@session:s1"}} {
		got, ok := Serialize(c.source, c.ref)
		assert.True(t, ok)
		assert.Equal(t, c.want, got)
	}
	_, ok := Serialize("@nobody", "x")
	assert.False(t, ok)
}

// TestSameNamedSessionsAreToldApart (QA round 12 #19): each session says when it was last
// used; two alike in title and time also show the start of their id.
func TestSameNamedSessionsAreToldApart(t *testing.T) {
	now := time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)
	ms := func(d time.Duration) int64 { return now.Add(-d).UnixMilli() }
	cat := &fakeCat{sessions: []protocol.SessionInfo{
		{ID: "aaaaaaa1", Title: "hello", Created: ms(3 * time.Hour)},
		{ID: "bbbbbbb2", Title: "hello", Created: ms(time.Hour), Active: ms(10 * time.Second)},
		{ID: "ccccccc3", Title: "hello", Created: ms(30 * time.Second)},
		{ID: "ddddddd4", Title: "other", Created: ms(20 * time.Second)},
	}}
	ss := &sessions{cat: cat, known: &known{}, now: func() time.Time { return now }}
	items, err := ss.Candidates(context.Background(), slash.Query{})
	require.NoError(t, err)
	details := map[string]string{}
	for _, it := range items {
		details[it.ID] = it.Detail
	}
	assert.Equal(t, map[string]string{
		"aaaaaaa1": "Session · 3 h ago",
		"bbbbbbb2": "Session · just now · bbbbbb",
		"ccccccc3": "Session · just now · cccccc",
		"ddddddd4": "Session · just now", // another title: told apart by it
	}, details)
}

func TestPasteMatching(t *testing.T) {
	k := &known{}
	k.setSessions([]protocol.SessionInfo{{ID: "s1", Title: "Alpha"}})
	k.addFiles([]protocol.FileEntry{{Path: "a.go"}})
	text := "see @session:s1, 😀 @a.go. and user@host @session:zz"
	comps := k.MatchSync(text)
	require.Len(t, comps, 2)
	assert.Equal(t, input.Range{Start: 4, End: 15}, comps[0].Range)
	assert.Equal(t, input.Range{Start: 20, End: 25}, comps[1].Range, "units count the emoji as two")

	cat := &fakeCat{sessions: []protocol.SessionInfo{{ID: "zz", Title: "Zed"}}}
	ups := k.MatchAsync(context.Background(), cat, 7, text)
	require.Len(t, ups.Upgrades, 1)
	assert.Equal(t, input.PasteID(7), ups.Paste)
	assert.Equal(t, "zz", ups.Upgrades[0].Reference.Ref)

	// Through the machine: the synchronous match is one transaction, undone in one step.
	m := input.New(input.Config{})
	m.Dispatch(input.DraftChanged{Draft: "x "})
	m.Dispatch(input.PasteBegin{Text: text, Selection: input.Range{Start: 2, End: 2}, Components: comps})
	assert.Len(t, m.Occurrences(), 2)
	m.Dispatch(input.Undo{})
	assert.Equal(t, "x ", m.Draft())
}

// TestPasteOfManyReferences: a paste that names two files a thousand times asks the server
// about each path once (it asked once per reference, a request each), and the matcher's
// answer makes every reference a chip in one transaction, which one undo takes back to text.
func TestPasteOfManyReferences(t *testing.T) {
	cat := &fakeCat{files: []protocol.FileEntry{{Path: "README.md"}, {Path: "src/main.go"}}}
	var b strings.Builder
	for range 500 {
		b.WriteString("see @README.md, and @src/main.go\n")
	}
	b.WriteString("not @there.go")
	text := b.String()
	ups := (&known{}).MatchAsync(context.Background(), cat, 1, text)
	assert.Equal(t, []string{"README.md", "src/main.go", "there.go"}, cat.asked)
	require.Len(t, ups.Upgrades, 1000)

	m := input.New(input.Config{})
	m.Dispatch(input.PasteBegin{Text: text})
	effs := m.Dispatch(ups)
	require.Len(t, effs, 1, "one SetView: %v", effs)
	assert.Len(t, m.Occurrences(), 1000)
	assert.Equal(t, text, m.PersistText())
	m.Dispatch(input.Undo{})
	assert.Empty(t, m.Occurrences())
	assert.Equal(t, text, m.Draft())
}

func TestBarRendersAComboboxAndTheDock(t *testing.T) {
	html := viewtest.Render(t, &Bar{Placeholder: "Message the agent"})
	for _, want := range []string{`id="composer-input"`, `aria-autocomplete="list"`, `aria-controls="composer-menu"`, `data-expanded="false"`,
		`role="listbox"`, `aria-label="Message"`, `id="composer-backdrop"`} {
		assert.Contains(t, html, want)
	}
	assert.NotContains(t, html, "aria-activedescendant")
	assert.NotContains(t, html, `role="combobox"`, "ARIA in HTML allows no role on a textarea")
	assert.NotContains(t, html, "aria-expanded", "nor aria-expanded on a textbox")
	status := regexp.MustCompile(`<span[^>]*id="composer-menu-status"[^>]*></span>`).FindString(html)
	assert.Contains(t, status, `role="status"`, "the menu's state is said here, nothing yet")
	assert.NotContains(t, html, "aria-multiline", "a textarea is multi-line already")
	assert.Regexp(t, `<button[^>]*disabled`, html, "nothing to send")
	assert.NotRegexp(t, `<textarea[^>]*disabled`, html)
	assert.Regexp(t, `<textarea[^>]*disabled`, viewtest.Render(t, &Bar{Disabled: true}))
	working := viewtest.Render(t, &Bar{Session: "s", Working: true})
	assert.Contains(t, working, "Enter queues")
	assert.Contains(t, working, `class="steer"`)

	dock := viewtest.Render(t, &QueueDock{Queued: []store.Message{{Offset: 9, Text: "later"}, {Offset: 10, Text: "then"}}})
	assert.Contains(t, dock, `role="list"`)
	assert.Contains(t, dock, `aria-label="Queued prompts"`)
	assert.Contains(t, dock, `data-queued="9"`)
	assert.Equal(t, 2, strings.Count(dock, "Waiting for the current turn"), "one label for every waiting prompt")
	assert.Equal(t, 2, strings.Count(dock, ">Edit</button>"))
	assert.Equal(t, 2, strings.Count(dock, ">Remove</button>"))
	assert.NotContains(t, viewtest.Render(t, &QueueDock{}), `role="list"`)
}

// TestMenuStatusSaysTheMenu: the status region says how many options an open menu holds, and
// that it closed, as aria-expanded would on a combobox (a textarea cannot be one). A count
// that changes while the menu stays open (each key of the query) is said once the menu holds
// still, the last count only: a screen reader speaks each change of a live region, behind the
// echo of the keys typed (QA round 16).
func TestMenuStatusSaysTheMenu(t *testing.T) {
	opts := func(n int) []slash.Option { return make([]slash.Option, n) }
	closed := slash.Menu{Active: -1}
	open := func(n int) slash.Menu { return slash.Menu{Open: true, Options: opts(n)} }
	loading := func(n int) slash.Menu { return slash.Menu{Open: true, Options: opts(n), Loading: true} }
	type step struct {
		menu   slash.Menu
		settle bool // the menu held still (menuSettle passed) before this step
		says   string
		waits  bool
	}
	for _, tt := range []struct {
		name  string
		steps []step
	}{
		{"nothing before any menu opened", []step{{menu: closed, says: ""}}},
		{"opening says the count at once, closing says so at once", []step{
			{menu: open(3), says: "3 suggestions"},
			{menu: closed, says: "Suggestions closed"},
			{menu: open(1), says: "1 suggestion"},
		}},
		{"typing narrows the menu: said once it holds still, the last count only", []step{
			{menu: open(7), says: "7 suggestions"},
			{menu: open(4), says: "7 suggestions", waits: true},
			{menu: open(2), says: "7 suggestions", waits: true},
			{menu: open(2), settle: true, says: "2 suggestions"},
		}},
		{"a key that keeps the count says nothing more", []step{
			{menu: open(5), says: "5 suggestions"},
			{menu: open(5), says: "5 suggestions"},
		}},
		{"typing that closes the menu says so at once", []step{
			{menu: open(5), says: "5 suggestions"},
			{menu: open(2), says: "5 suggestions", waits: true},
			{menu: closed, says: "Suggestions closed"},
			{menu: closed, settle: true, says: "Suggestions closed"},
		}},
		{"opened while sources answer: said once they have", []step{
			{menu: loading(2), says: "", waits: true},
			{menu: open(6), says: "6 suggestions"},
			{menu: open(3), says: "6 suggestions", waits: true},
		}},
		{"opened while sources answer: said once it held still, if they are slow", []step{
			{menu: loading(2), says: "", waits: true},
			{menu: loading(2), settle: true, says: "2 suggestions"},
		}},
		{"a menu never said never closes", []step{
			{menu: loading(2), says: "", waits: true},
			{menu: closed, says: ""},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var v menuVoice
			was := closed
			for i, s := range tt.steps {
				if s.settle {
					v.settle(was)
				}
				waits := v.follow(was, s.menu)
				was = s.menu
				assert.Equal(t, s.says, menuWords(v.said), "step %d", i)
				assert.Equal(t, s.waits, waits, "step %d", i)
			}
		})
	}
}
