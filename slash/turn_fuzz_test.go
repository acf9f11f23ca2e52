package slash

import (
	"testing"

	"parley/machine/input"
	"parley/machine/machinetest"
)

// FuzzTurns drives a controller with any sequence of events, well-formed or not, and holds
// what the shell relies on: every effect is plain data; a batch asks at most one question
// (AskSpace, AskPick, Rewrite, ReadLexicons), and asks it last, so that its answer can be
// the very next event; the menu's highlight is on an option; versions only grow.
func FuzzTurns(f *testing.F) {
	f.Add([]byte{0, 3, 1, 0, 2, 0, 1, 1, 5, 1, 6, 1})
	f.Add([]byte{0, 7, 3, 1, 1, 2, 7, 0, 8, 1})
	f.Add([]byte{9, 0, 10, 1, 0, 4, 11, 2, 12, 0})
	drafts := []string{"/rev", "/review", "hi @al", "x/y", "/review @alice z", "@", "/ré😀", ""}
	keys := []Key{{Key: " "}, {Key: "Enter"}, {Key: "Tab"}, {Key: "ArrowDown"}, {Key: "ArrowUp"}, {Key: "Escape"}, {Key: "Enter", Composing: true}, {Key: " ", Shift: true}}
	outcomes := []PickOutcome{{}, BeginCommand(input.Claim{Token: "/review "}), InsertText("@alice "), InsertReference(input.Reference{Source: "@p", Ref: "a"}), ConsumeToken()}
	cmd, people, skills := SourceKey{'/', "cmd"}, SourceKey{'@', "people"}, SourceKey{'/', "skills"}
	keysOf := []SourceKey{cmd, people, skills}
	f.Fuzz(func(t *testing.T, script []byte) {
		c, birth := NewController(Config{Session: Projection{SessionID: "s1"}, Sources: []SourceInfo{
			{Key: cmd, Space: true, Enter: true, Warms: true},
			{Key: people, Space: true, Lexicon: true, Subscribes: true},
		}})
		check := func(effs []Effect) {
			machinetest.Comparable(t, effs...)
			questions := 0
			for i, e := range effs {
				switch e.(type) {
				case AskSpace, AskPick, Rewrite, ReadLexicons:
					questions++
					if i != len(effs)-1 {
						t.Fatalf("a question is not the last effect of its batch: %#v", effs)
					}
				}
			}
			if questions > 1 {
				t.Fatalf("two questions in one batch: %#v", effs)
			}
		}
		check(birth)
		var rev, menuVer, refsVer uint64
		for i := 0; i+1 < len(script); i += 2 {
			op, arg := script[i]%14, int(script[i+1])
			var ev Event
			switch op {
			case 0:
				d := drafts[arg%len(drafts)]
				n := len(utf16Encode(d))
				rev++
				ev = DraftObserved{Draft: d, SelStart: n - arg%2, SelEnd: n - arg%2, Rev: rev, Tier: Tier(arg % 3)}
			case 1:
				ev = keys[arg%len(keys)]
			case 2:
				ev = CandidatesArrived{Gen: c.Generation(), Source: keysOf[arg%3], Items: []Item{{ID: "review"}, {ID: "alice"}}[:arg%3%2+1]}
			case 3:
				ev = Hover{Index: arg % 4}
			case 4:
				ev = Choose{ID: "opt-gone"}
				if opts := c.Menu().Options; len(opts) > 0 {
					ev = Choose{ID: opts[arg%len(opts)].ID()}
				}
			case 5:
				ev = Dismiss{}
			case 6:
				ev = SpaceAnswered{Source: keysOf[arg%3], Outcome: outcomes[arg%len(outcomes)], OK: arg%2 == 0}
			case 7:
				ev = PickAnswered{Source: keysOf[arg%3], Outcome: outcomes[arg%len(outcomes)]}
			case 8:
				ev = Rewritten{Rewrote: arg%2 == 0}
			case 9:
				ev = LexiconsRead{Snapshots: []LexiconSnapshot{{Source: keysOf[arg%3], Names: []string{"alice", "review"}, Warm: arg%2 == 0}}}
			case 10:
				ev = WarmDone{Source: keysOf[arg%3]}
			case 11:
				ev = Adjudicate{Attempt: input.AttemptID{Session: "s1", Seq: uint64(arg % 3)}, Draft: drafts[arg%len(drafts)]}
			case 12:
				ev = EnterMatched{Attempt: input.AttemptID{Session: "s1", Seq: uint64(arg % 3)}, Source: cmd, Claim: input.Claim{Token: "/x "}, OK: arg%2 == 0}
			case 13:
				ev = SourceAdded{Source: SourceInfo{Key: skills, Lexicon: arg%2 == 0, Space: true}}
			}
			effs := c.Dispatch(ev)
			check(effs)
			for _, e := range effs {
				switch x := e.(type) {
				case ShowMenu:
					if x.Version <= menuVer {
						t.Fatalf("ShowMenu version %d after %d", x.Version, menuVer)
					}
					menuVer = x.Version
				case Decorate:
					if x.Version <= refsVer {
						t.Fatalf("Decorate version %d after %d", x.Version, refsVer)
					}
					refsVer = x.Version
				}
			}
			m := c.Menu()
			// Open, an option is highlighted, except in an argument menu with no word typed
			// yet (none until an arrow moves).
			none := m.Trigger == ArgTrigger && m.Query == ""
			if m.Open && (m.Active < -1 || m.Active < 0 && !none || m.Active >= len(m.Options)) || !m.Open && m.Active != -1 {
				t.Fatalf("after %#v the menu is %+v", ev, m)
			}
		}
	})
}
