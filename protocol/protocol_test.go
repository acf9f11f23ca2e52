package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeClientFrame(t *testing.T) {
	cases := []struct {
		name    string
		data    string
		want    ClientFrame
		wantErr string
	}{
		{"subscribe from the start", `{"type":"subscribe","session":"abc"}`, ClientFrame{Type: FrameSubscribe, Session: "abc"}, ""},
		{"subscribe after", `{"type":"subscribe","session":"abc","after":42}`, ClientFrame{Type: FrameSubscribe, Session: "abc", After: 42}, ""},
		{"unsubscribe", `{"type":"unsubscribe"}`, ClientFrame{Type: FrameUnsubscribe}, ""},
		{"watch", `{"type":"watch"}`, ClientFrame{Type: FrameWatch}, ""},
		{"empty", ``, ClientFrame{}, "frame is empty: send a JSON object"},
		{"array", `[]`, ClientFrame{}, "frame must be a JSON object, not an array"},
		{"cut short", `{"type":"watch"`, ClientFrame{}, "frame is not valid JSON: it ends before its last value closes"},
		{"not JSON", `{type:watch}`, ClientFrame{}, "frame is not valid JSON at byte 2: invalid character 't'"},
		{"offset as text", `{"type":"subscribe","session":"abc","after":"5"}`, ClientFrame{}, `frame field "after" must be a whole number from 0, not a string`},
		{"tail as a fraction", `{"type":"subscribe","session":"abc","tail":1.5}`, ClientFrame{}, `frame field "tail" must be a whole number, not 1.5`},
		{"type as a list", `{"type":["watch"]}`, ClientFrame{}, `frame field "type" must be a string, not an array`},
		{"no type", `{"session":"abc"}`, ClientFrame{}, `no "type"`},
		{"unknown type", `{"type":"publish"}`, ClientFrame{}, `unknown frame type "publish"`},
		{"unknown field", `{"type":"unsubscribe","x":1}`, ClientFrame{}, `frame has an unknown field "x": check its spelling`},
		{"negative offset", `{"type":"subscribe","session":"abc","after":-1}`, ClientFrame{}, `frame field "after" must be a whole number from 0, not -1`},
		{"missing session", `{"type":"subscribe"}`, ClientFrame{}, "not a session id"},
		{"wildcard session", `{"type":"subscribe","session":"*"}`, ClientFrame{}, "not a session id"},
		{"dotted session", `{"type":"subscribe","session":"a.b"}`, ClientFrame{}, "not a session id"},
		{"trailing value", `{"type":"unsubscribe"}{}`, ClientFrame{}, "more than one"},
		{"offset beyond any", `{"type":"subscribe","session":"abc","after":18446744073709551615}`, ClientFrame{}, "beyond any offset"},
		{"too large", `{"type":"unsubscribe","pad":"` + strings.Repeat("x", MaxFrameBytes) + `"}`, ClientFrame{}, "larger than"},
		{"a name twice", `{"type":"subscribe","type":"watch"}`, ClientFrame{}, `"type" is given twice in one object`},
		{"a name twice after others", `{"type":"subscribe","session":"abc","after":1,"session":"xyz"}`, ClientFrame{}, `"session" is given twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DecodeClientFrame([]byte(c.data))
			if c.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestSendPromptValidation(t *testing.T) {
	ok := SendPromptRequest{Text: "hi", AttemptID: "a-1_B"}
	cases := []struct {
		name   string
		mutate func(*SendPromptRequest)
		fields map[string]string // field → part of its message
	}{
		{"valid", func(*SendPromptRequest) {}, nil},
		{"steer", func(r *SendPromptRequest) { r.Mode = ModeSteer }, nil},
		{"empty text", func(r *SendPromptRequest) { r.Text = " \n\t" }, map[string]string{"text": "empty"}},
		{"too long", func(r *SendPromptRequest) { r.Text = strings.Repeat("x", MaxPromptBytes+1) }, map[string]string{"text": "limit is 128 KiB"}},
		{"bad utf-8", func(r *SendPromptRequest) { r.Text = "a\xffb" }, map[string]string{"text": "UTF-8"}},
		{"NUL byte", func(r *SendPromptRequest) { r.Text = "a\x00b" }, map[string]string{"text": "NUL byte (U+0000) at byte 1"}},
		{"no attempt", func(r *SendPromptRequest) { r.AttemptID = "" }, map[string]string{"attemptId": "missing"}},
		{"attempt with a dot", func(r *SendPromptRequest) { r.AttemptID = "a.b" }, map[string]string{"attemptId": "letters"}},
		{"long attempt", func(r *SendPromptRequest) { r.AttemptID = strings.Repeat("a", MaxAttemptIDBytes+1) }, map[string]string{"attemptId": "longer"}},
		{"bad mode", func(r *SendPromptRequest) { r.Mode = "now" }, map[string]string{"mode": "unknown mode"}},
		{"all wrong", func(r *SendPromptRequest) { *r = SendPromptRequest{Mode: "x"} }, map[string]string{"text": "empty", "attemptId": "missing", "mode": "unknown"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ok
			c.mutate(&r)
			err := r.Validate()
			if c.fields == nil {
				assert.NoError(t, err)
				return
			}
			var verr *ValidationError
			require.ErrorAs(t, err, &verr)
			assert.Len(t, verr.Fields, len(c.fields))
			for field, part := range c.fields {
				assert.Contains(t, verr.Fields[field], part, field)
				assert.Contains(t, err.Error(), field+": ")
			}
		})
	}
}

func TestDecodeRequest(t *testing.T) {
	r, err := DecodeRequest[SendPromptRequest]([]byte(`{"text":"hi","attemptId":"a","mode":"queue"}`))
	require.NoError(t, err)
	assert.Equal(t, SendPromptRequest{Text: "hi", AttemptID: "a", Mode: ModeQueue}, r)

	_, err = DecodeRequest[SendPromptRequest]([]byte(`{"text":"hi",}`))
	assert.ErrorContains(t, err, "request body is not valid JSON at byte 14")
	_, err = DecodeRequest[SendPromptRequest]([]byte(`{"text":7,"attemptId":"a"}`))
	assert.EqualError(t, err, `request body field "text" must be a string, not a number`)
	_, err = DecodeRequest[SendPromptRequest]([]byte(`"hi"`))
	assert.EqualError(t, err, `request body must be a JSON object, not a string`)
	_, err = DecodeRequest[CreateSessionRequest]([]byte(`{"title":"` + strings.Repeat("t", 201) + `"}`))
	var verr *ValidationError
	assert.ErrorAs(t, err, &verr)
	_, err = DecodeRequest[CreateSessionRequest](make([]byte, MaxRequestBytes+1))
	assert.ErrorContains(t, err, "larger than")
	_, err = DecodeRequest[SendPromptRequest]([]byte(`{"text":"dup","attemptId":"a","text":"dup2"}`))
	assert.ErrorContains(t, err, `"text" is given twice in one object: give each name once`)
	_, err = DecodeRequest[CreateSessionRequest]([]byte(`{"title":"a\u0000b"}`))
	require.ErrorAs(t, err, &verr)
	assert.Contains(t, verr.Fields["title"], "NUL byte")
}

// TestNoRepeatedNames: a name given twice in one object is refused, at any depth; the same
// name in two objects (of an array, or nested) is not a repeat.
func TestNoRepeatedNames(t *testing.T) {
	for data, repeated := range map[string]string{
		`{"a":1,"b":2}`:                         "",
		`[{"a":1},{"a":2}]`:                     "",
		`{"a":{"a":1},"b":{"a":2}}`:             "",
		`{"a":[1,{"b":1,"c":[]}],"d":"a"}`:      "",
		`"a"`:                                   "",
		`{"a":1,"a":2}`:                         "a",
		`{"x":{"a":1,"b":[],"a":2}}`:            "a",
		`[{"a":1},{"b":{"c":1,"c":2}}]`:         "c",
		`{"a":{"b":1},"c":[{"d":1}],"a":true}`:  "a",
		`{"a":"b","b":"a","c":{"b":"c"},"b":1}`: "b",
	} {
		err := noRepeatedNames([]byte(data))
		if repeated == "" {
			assert.NoError(t, err, data)
		} else {
			assert.ErrorContains(t, err, `"`+repeated+`" is given twice`, data)
		}
	}
}

func TestValidSessionID(t *testing.T) {
	for id, want := range map[string]bool{"abc": true, "A-b_9": true, "": false, "a.b": false, "a b": false, "*": false, ">": false, strings.Repeat("a", 65): false} {
		assert.Equal(t, want, ValidSessionID(id), id)
	}
}

// FuzzDecodeClientFrame: any bytes give a frame or an error, never a panic; an accepted
// frame is well formed and survives a round trip.
func FuzzDecodeClientFrame(f *testing.F) {
	for _, s := range []string{`{"type":"subscribe","session":"abc","after":3}`, `{"type":"unsubscribe"}`, `{}`, `[`, `{"type":"subscribe","session":"a.b"}`, "\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := DecodeClientFrame(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		if fr.Type != FrameSubscribe && fr.Type != FrameUnsubscribe {
			t.Fatalf("accepted type %q", fr.Type)
		}
		if fr.Type == FrameSubscribe && !ValidSessionID(fr.Session) {
			t.Fatalf("accepted session %q", fr.Session)
		}
		again, _ := json.Marshal(fr)
		back, err := DecodeClientFrame(again)
		if err != nil || back != fr {
			t.Fatalf("round trip: %v %+v %+v", err, back, fr)
		}
	})
}

// FuzzDecodeSendPrompt: any body gives a valid request or an error, never a panic.
func FuzzDecodeSendPrompt(f *testing.F) {
	seeds := []string{`{"text":"hi","attemptId":"a"}`, `{"text":"","attemptId":""}`, `{"mode":"steer"}`, `null`, `{"text":1}`}
	fuzzDecode[SendPromptRequest](f, seeds, nil)
}

// fuzzDecode fuzzes DecodeRequest[R] from seeds: every body gives an error with a message,
// or a request that validates and then passes check (nil for none).
func fuzzDecode[R Request](f *testing.F, seeds []string, check func(t *testing.T, r R)) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeRequest[R](data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("accepted an invalid request %+v: %v", r, err)
		}
		if check != nil {
			check(t, r)
		}
	})
}

func TestDeltaFold(t *testing.T) {
	for _, tc := range []struct {
		name, held string
		d          Delta
		want       string
		added      bool
	}{
		{"from the start", "", Delta{Stream: "s", Pos: 0, Text: "Hel"}, "Hel", true},
		{"continues where the client is", "Hel", Delta{Stream: "s", Pos: 0, Text: "Hello"}, "Hello", true},
		{"overlaps a checkpoint the client holds", "Hello, wo", Delta{Stream: "s", Pos: 5, Text: ", world"}, "Hello, world", true},
		{"starts exactly at the end", "Hello", Delta{Stream: "s", Pos: 5, Text: "!"}, "Hello!", true},
		{"already held: no duplicate", "Hello, world", Delta{Stream: "s", Pos: 5, Text: ", wo"}, "Hello, world", false},
		{"beyond the end: a draft must fill the hole first", "Hel", Delta{Stream: "s", Pos: 5, Text: "!"}, "Hel", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, added := tc.d.Fold(tc.held)
			if got != tc.want || added != tc.added {
				t.Errorf("Fold(%q) = %q, %v; want %q, %v", tc.held, got, added, tc.want, tc.added)
			}
		})
	}
}

func TestDeltaValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    Delta
		ok   bool
	}{
		{"fine", Delta{Stream: "12-1", Pos: 3, Text: "hé"}, true},
		{"no stream", Delta{Pos: 0, Text: "x"}, false},
		{"negative position", Delta{Stream: "s", Pos: -1}, false},
		{"not UTF-8", Delta{Stream: "s", Text: "\xff"}, false},
	} {
		if err := tc.d.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v", tc.name, err)
		}
	}
}

// TestWhatAnEventTakesOrEnds: the prompt an event takes from the queue and the decision it
// ends, for every kind that does either, and for some that do neither.
func TestWhatAnEventTakesOrEnds(t *testing.T) {
	ev := func(typ EventType, data string) Event { return Event{Type: typ, Data: json.RawMessage(data)} }
	for _, c := range []struct {
		name     string
		ev       Event
		prompt   uint64 // TakenPrompt, 0: none
		decision string // EndedDecision, "": none
	}{
		{"a turn runs its prompt", ev(EventTurnStarted, `{"prompt":4,"kind":"agent"}`), 4, ""},
		{"a steered prompt joins the running turn", ev(EventPromptSteered, `{"prompt":5}`), 5, ""},
		{"a withdrawn prompt never runs", ev(EventPromptWithdrawn, `{"prompt":6}`), 6, ""},
		{"an edited prompt still waits", ev(EventPromptEdited, `{"prompt":7,"text":"x"}`), 0, ""},
		{"a reply ends its decision", ev(EventQuestionReplied, `{"id":"q1","action":"accept"}`), 0, "q1"},
		{"so does a rejection", ev(EventQuestionRejected, `{"id":"q2","reason":"timeout"}`), 0, "q2"},
		{"a question ends none", ev(EventQuestionAsked, `{"id":"q3"}`), 0, ""},
		{"a message does neither", ev(EventUserMessage, `{"text":"hi"}`), 0, ""},
		{"a turn.started that does not decode takes nothing", ev(EventTurnStarted, `[]`), 0, ""},
		{"an outcome that does not decode ends nothing", ev(EventQuestionReplied, `"q5"`), 0, ""},
	} {
		p, ok := c.ev.TakenPrompt()
		assert.Equal(t, c.prompt != 0, ok, c.name)
		assert.Equal(t, c.prompt, p, c.name)
		id, ok := c.ev.EndedDecision()
		assert.Equal(t, c.decision != "", ok, c.name)
		assert.Equal(t, c.decision, id, c.name)
	}
}

func TestResolveCommand(t *testing.T) {
	cases := []struct {
		text string
		want Command
		ok   bool
	}{
		{"/help", Command{Name: "help"}, true},
		{"  /help  ", Command{Name: "help", Args: " "}, true},
		{"/example hello", Command{Name: "example", Args: "hello"}, true},
		{"/example hello {\"name\":\"Ada\"}", Command{Name: "example", Args: "hello {\"name\":\"Ada\"}"}, true},
		{"/script send('hi')", Command{Name: "script", Args: "send('hi')"}, true},
		{"/script\nfor i in range(2):\n    send(str(i))", Command{Name: "script", Args: "for i in range(2):\n    send(str(i))"}, true},
		{"/script\r\nsend('x')", Command{Name: "script", Args: "send('x')"}, true},
		{"/script", Command{Name: "script"}, true},
		// Fall through to the agent: unknown words, paths, fractions, prefixes of commands.
		{"/helpful", Command{}, false},
		{"/usr/bin/env", Command{}, false},
		{"/scripts are fun", Command{}, false},
		{"1/2 of it", Command{}, false},
		{"please /help", Command{}, false},
		{"/", Command{}, false},
		{"/Help", Command{}, false},
		{"", Command{}, false},
	}
	for _, c := range cases {
		got, ok := ResolveCommand(c.text)
		assert.Equal(t, c.ok, ok, "%q", c.text)
		assert.Equal(t, c.want, got, "%q", c.text)
	}
}

// FuzzResolveCommand: a resolved command is always a known name at the message's start, and
// its argument is a suffix of the message.
func FuzzResolveCommand(f *testing.F) {
	for _, s := range []string{"/help", "/script x", "/example a {}", "/a/b", " /script\n\tx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		cmd, ok := ResolveCommand(text)
		if !ok {
			return
		}
		known := false
		for _, c := range Commands {
			known = known || c.Name == cmd.Name
		}
		if !known {
			t.Fatalf("resolved unknown %q", cmd.Name)
		}
		if len(cmd.Args) > len(text) || text[len(text)-len(cmd.Args):] != cmd.Args {
			t.Fatalf("args %q not a suffix of %q", cmd.Args, text)
		}
	})
}
