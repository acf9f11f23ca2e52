package slash

import (
	"testing"

	"parley/machine/input"
	"parley/machine/machinetest"
)

// TestTurns pins the controller's questions and answers as plain data, with no source and
// no input machine behind them: what the shell is asked within one turn (AskSpace, AskPick,
// Rewrite, ReadLexicons) and what each answer leads to.
func TestTurns(t *testing.T) {
	cmd := SourceKey{'/', "cmd"}
	skills := SourceKey{'/', "skills"}
	claim := BeginCommand(input.Claim{Token: "/review "})
	review := Hit{Trigger: '/', Query: "review", Span: input.Span{Start: 0, End: 7, Rev: 1}}
	observe := DraftObserved{Draft: "/review", SelStart: 7, SelEnd: 7, Rev: 1}
	fetch := func(gen uint64, k SourceKey) Effect { return FetchCandidates{Gen: gen, Source: k, Hit: review} }
	arrive := CandidatesArrived{Gen: 1, Source: cmd, Items: []Item{{ID: "review"}}}

	tests := []struct {
		name      string
		sources   []SourceInfo
		birth     []Effect
		events    []Event
		want      []Effect
		wantHit   bool
		wantOpen  bool
		wantNames []string // the '/' roster
	}{
		{
			name:    "space: the first answer is rewritten and the key is cancelled",
			sources: []SourceInfo{{Key: cmd, Space: true}, {Key: skills, Space: true}},
			events: []Event{observe, Key{Key: " "},
				SpaceAnswered{Source: cmd}, // undefined: the next one is asked
				SpaceAnswered{Source: skills, Outcome: claim, OK: true},
				Rewritten{Rewrote: true}},
			want: []Effect{fetch(1, cmd), fetch(1, skills),
				AskSpace{Source: cmd, Hit: review},
				AskSpace{Source: skills, Hit: review},
				Rewrite{Outcome: claim, Span: review.Span},
				PreventDefault{}, Picked{Source: skills, Outcome: claim, Rewrote: true}},
		},
		{
			name:    "space: a refused rewrite lets the space be typed and keeps the hit",
			sources: []SourceInfo{{Key: cmd, Space: true}},
			events:  []Event{observe, Key{Key: " "}, SpaceAnswered{Source: cmd, Outcome: claim, OK: true}, Rewritten{}},
			want: []Effect{fetch(1, cmd), AskSpace{Source: cmd, Hit: review},
				Rewrite{Outcome: claim, Span: review.Span}, Picked{Source: cmd, Outcome: claim}},
			wantHit: true,
		},
		{
			name:    "space: nobody claims",
			sources: []SourceInfo{{Key: cmd, Space: true}, {Key: skills}},
			events:  []Event{observe, Key{Key: " "}, SpaceAnswered{Source: cmd}},
			want:    []Effect{fetch(1, cmd), fetch(1, skills), AskSpace{Source: cmd, Hit: review}},
			wantHit: true,
		},
		{
			name:    "an answer that is not the next event is dropped",
			sources: []SourceInfo{{Key: cmd, Space: true}},
			events: []Event{observe, Key{Key: " "}, Dismiss{},
				SpaceAnswered{Source: cmd, Outcome: claim, OK: true}, Rewritten{Rewrote: true}},
			want:    []Effect{fetch(1, cmd), AskSpace{Source: cmd, Hit: review}},
			wantHit: true,
		},
		{
			name:    "pick: Enter is taken, the source says what it means, the input rewrites",
			sources: []SourceInfo{{Key: cmd}},
			events: []Event{observe, arrive, Key{Key: "Enter"},
				PickAnswered{Source: cmd, Outcome: InsertText("/review ")}, Rewritten{Rewrote: true}},
			want: []Effect{fetch(1, cmd), ShowMenu{Version: 1},
				PreventDefault{}, AskPick{Source: cmd, Item: Item{ID: "review"}, Hit: review},
				Rewrite{Outcome: InsertText("/review "), Span: review.Span},
				Picked{Source: cmd, Outcome: InsertText("/review "), Rewrote: true}, HideMenu{}},
		},
		{
			name:    "pick: a source that acts on its own closes the menu and keeps the hit",
			sources: []SourceInfo{{Key: cmd}},
			events:  []Event{observe, arrive, Choose{ID: Option{cmd, Item{ID: "review"}}.ID()}, PickAnswered{Source: cmd}},
			want: []Effect{fetch(1, cmd), ShowMenu{Version: 1},
				AskPick{Source: cmd, Item: Item{ID: "review"}, Hit: review},
				Picked{Source: cmd}, HideMenu{}},
			wantHit: true,
		},
		{
			name:     "pick: an answer from another source is dropped",
			sources:  []SourceInfo{{Key: cmd}},
			events:   []Event{observe, arrive, Choose{ID: Option{cmd, Item{ID: "review"}}.ID()}, PickAnswered{Source: skills, Outcome: claim}},
			want:     []Effect{fetch(1, cmd), ShowMenu{Version: 1}, AskPick{Source: cmd, Item: Item{ID: "review"}, Hit: review}},
			wantHit:  true,
			wantOpen: true,
		},
		{
			name:    "rosters: asked at birth, read from the answer, cold ones add nothing",
			sources: []SourceInfo{{Key: cmd, Lexicon: true, Subscribes: true}, {Key: skills, Lexicon: true, Warms: true}},
			birth:   []Effect{Subscribe{Source: cmd}, Warm{Source: skills}, ReadLexicons{}},
			events: []Event{
				LexiconsRead{Snapshots: []LexiconSnapshot{{Source: cmd, Names: []string{"review"}, Warm: true}, {Source: skills, Names: []string{"x"}}}},
				observe,
				LexiconChanged{Source: cmd},
				LexiconsRead{Snapshots: []LexiconSnapshot{{Source: skills, Names: []string{"deploy"}, Warm: true}, {Source: SourceKey{'/', "stranger"}, Names: []string{"no"}, Warm: true}}},
				WarmDone{Source: skills},
			},
			want: []Effect{RosterChanged{},
				Decorate{Version: 1}, fetch(1, cmd), fetch(1, skills),
				ReadLexicons{},
				RosterChanged{},
				ReadLexicons{}},
			wantHit:   true,
			wantNames: []string{"deploy", "review"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, birth := NewController(Config{Session: Projection{SessionID: "s1"}, Sources: tt.sources})
			machinetest.Comparable(t, birth...)
			machinetest.Equal(t, birth, tt.birth)
			got := machinetest.Run(t, c.Dispatch, tt.events...)
			machinetest.Equal(t, got, tt.want)
			if _, hit := c.Hit(); hit != tt.wantHit {
				t.Errorf("hit = %v, want %v", hit, tt.wantHit)
			}
			if open := c.Menu().Open; open != tt.wantOpen {
				t.Errorf("menu open = %v, want %v", open, tt.wantOpen)
			}
			if got := c.Roster().Names('/'); len(got) != len(tt.wantNames) || len(got) > 0 && got[0] != tt.wantNames[0] {
				t.Errorf("roster = %q, want %q", got, tt.wantNames)
			}
		})
	}
}
