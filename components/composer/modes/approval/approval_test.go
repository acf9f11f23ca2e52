package approval

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/app/locale"
	"parley/components/composer/modes"
	"parley/components/composer/modes/modetest"
	"parley/components/internal/domtest"
	"parley/i18n"
	"parley/machine/composer"
	"parley/protocol"
)

// The tests are in the package: a DOM event cannot be fired natively, so a click or a
// keystroke is simulated by what its handler does (m.pick, m.instruction, m.expanded).

// ---- the approval mode

func newApproval(t *testing.T, h *modetest.Host, req protocol.DecisionRequest) *Mode {
	t.Helper()
	require.NoError(t, req.Validate(), "the fixture must be a valid request")
	m, ok := New(h, modes.Input{Key: "k1", Decision: composer.Decision{ID: "d1", Request: req}}).(*Mode)
	require.True(t, ok)
	return m
}

func gitPush() protocol.DecisionRequest {
	return protocol.DecisionRequest{
		Kind:    protocol.KindApproval,
		Message: "Run a command?",
		Details: "git push origin main",
		Options: []protocol.ApprovalOption{
			{Value: protocol.OptionAllow, Label: "Allow once", Tone: protocol.ToneAffirm},
			{Value: protocol.OptionAllow, Label: "Always git push", Tone: protocol.ToneAffirm, Grant: &protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: "bash", Words: []string{"git", "push"}}},
			{Value: protocol.OptionAllow, Label: "Always bash", Grant: &protocol.GrantScope{Kind: protocol.GrantTool, Tool: "bash"}},
			{Value: protocol.OptionAllow, Label: "Always this", Grant: &protocol.GrantScope{Kind: protocol.GrantExact, Tool: "bash", Words: []string{"git", "push", "origin", "main"}}},
			{Value: protocol.OptionAllow, Label: "Always, described", Description: "Within this repository", Grant: &protocol.GrantScope{Kind: protocol.GrantTool, Tool: "bash"}},
			{Value: protocol.OptionDeny, Label: "Deny", Description: "Tell the agent no", Tone: protocol.ToneDeny},
		},
	}
}

func TestOptionsShowTheirLabelsAndReach(t *testing.T) {
	m := newApproval(t, &modetest.Host{}, gitPush())
	body := domtest.Render(t, m.Body())
	group := body.One(t, ".choices")
	assert.Equal(t, "group", group.Attrs["role"])
	assert.Equal(t, "Answers", group.Attrs["aria-label"])
	buttons := group.All("button.choice")
	tests := []struct {
		label, description, tone string
	}{
		{"Allow once", "", "affirm"},
		{"Always git push", "Always for git push …", "affirm"},
		{"Always bash", "Always for bash", ""},
		{"Always this", "Always for exactly this", ""},
		{"Always, described", "Within this repository", ""},
		{"Deny", "Tell the agent no", "deny"},
	}
	require.Len(t, buttons, len(tests))
	for i, tt := range tests {
		b := buttons[i]
		assert.Equal(t, tt.label, b.One(t, ".choice-label").TextContent(), "option %d", i)
		descs := b.All(".choice-description")
		if tt.description == "" {
			assert.Empty(t, descs, "option %d has no description", i)
		} else if assert.Len(t, descs, 1, "option %d", i) {
			assert.Equal(t, tt.description, descs[0].TextContent(), "option %d", i)
		}
		assert.True(t, b.HasClass("tone-"+tt.tone), "option %d class=%q, want tone-%s", i, b.Attrs["class"], tt.tone)
		assert.Empty(t, b.All(".choice-tag"), "no option is marked recommended")
	}
}

func TestHeaderNamesTheApproval(t *testing.T) {
	m := newApproval(t, &modetest.Host{}, gitPush())
	header := domtest.Render(t, m.Header())
	assert.Equal(t, "Approval", header.One(t, ".badge").TextContent())
	assert.Empty(t, header.All(".approval-message"), "the question is in the body, where it can wrap")
	assert.Equal(t, "Run a command?", domtest.Render(t, m.Body()).One(t, ".approval-message").TextContent())
	assert.Equal(t, "Approval: Run a command?", m.Label())
}

func TestDetailsAreShownAsText(t *testing.T) {
	tests := []struct {
		name    string
		details string
		items   []protocol.ApprovalItem
		want    string // "" for no details panel
	}{
		{"markup", `<script>alert(1)</script> && rm -rf "$HOME"`, nil, `<script>alert(1)</script> && rm -rf "$HOME"`},
		{"details and batch", "two tools", []protocol.ApprovalItem{{Tool: "bash", Details: "make"}}, "two tools\nbash: make"},
		{"none", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := gitPush()
			req.Details, req.Items = tt.details, tt.items
			m := newApproval(t, &modetest.Host{}, req)
			raw := app.HTMLString(m.Body())
			assert.NotContains(t, raw, "<script")
			assert.NotContains(t, raw, "<dir>")
			pre := domtest.Parse(t, raw).All("pre.approval-details")
			if tt.want == "" {
				assert.Empty(t, pre)
				return
			}
			require.Len(t, pre, 1)
			assert.Equal(t, tt.want, pre[0].TextContent())
			assert.Equal(t, "What would run", pre[0].Attrs["aria-label"])
			assert.Empty(t, domtest.Parse(t, raw).All("button.link-button"), "short details are not truncated")
		})
	}
}

func TestLongDetailsShowHeadAndTail(t *testing.T) {
	tests := []struct {
		name      string
		details   string
		truncated bool
	}{
		{"at the limit", strings.Repeat("x", maxDetailShown), false},
		{"a little over: not worth a cut", "HEAD" + strings.Repeat("x", maxDetailShown-7) + "TAIL", false},
		{"a quarter over", "HEAD" + strings.Repeat("x", maxDetailShown+maxDetailShown/4-7) + "TAIL", true},
		{"long", "HEAD" + strings.Repeat("x", 10_000) + "TAIL", true},
		{"long multibyte", "début " + strings.Repeat("é€😀", 1000) + " fin", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := gitPush()
			req.Details = tt.details
			m := newApproval(t, &modetest.Host{}, req)
			raw := app.HTMLString(m.Body())
			require.True(t, utf8.ValidString(raw), "the rendered details are valid UTF-8")
			body := domtest.Parse(t, raw)
			shown := body.One(t, "pre.approval-details").TextContent()
			buttons := body.All("button.link-button")
			if !tt.truncated {
				assert.Equal(t, tt.details, shown)
				assert.Empty(t, buttons)
				return
			}
			assert.True(t, strings.HasPrefix(shown, tt.details[:4]), "the head is kept: %.20q", shown)
			assert.True(t, strings.HasSuffix(shown, tt.details[len(tt.details)-4:]), "the tail is kept")
			assert.Contains(t, shown, "bytes not shown")
			require.Len(t, buttons, 1)
			assert.Equal(t, "Show all", buttons[0].TextContent())

			m.expanded = true // what "Show all" does
			body = domtest.Render(t, m.Body())
			assert.Equal(t, tt.details, body.One(t, "pre.approval-details").TextContent())
			assert.Empty(t, body.All("button.link-button"))
		})
	}
}

// TestTruncatedDetailsAreShorter: a cut always shows fewer bytes than the whole; details
// just over the limit are shown whole rather than cut into something longer.
func TestTruncatedDetailsAreShorter(t *testing.T) {
	for _, n := range []int{maxDetailShown + 1, maxDetailShown + maxDetailShown/4, maxDetailShown + maxDetailShown/4 + 1, 5 * maxDetailShown} {
		req := gitPush()
		req.Details = strings.Repeat("x", n)
		m := newApproval(t, &modetest.Host{}, req)
		shown := domtest.Render(t, m.Body()).One(t, "pre.approval-details").TextContent()
		if shown != req.Details && len(shown) >= len(req.Details) {
			t.Errorf("%d bytes: shown %d, want the whole or fewer", n, len(shown))
		}
	}
}

func TestHeadAndTailKeepsValidUTF8(t *testing.T) {
	tests := []struct {
		name string
		s    string
	}{
		{"ascii", strings.Repeat("abcdefghij", 300)},
		{"two bytes", strings.Repeat("é", 1000)},
		{"three bytes", strings.Repeat("€", 1000)},
		{"four bytes", strings.Repeat("😀", 800)},
		{"mixed", strings.Repeat("aé€😀", 300)},
	}
	for _, tt := range tests {
		for n := 1200; n < 1208; n++ { // every offset of a cut within a rune
			t.Run(tt.name+"/"+strconv.Itoa(n), func(t *testing.T) {
				got := HeadAndTail(tt.s, n)
				require.True(t, utf8.ValidString(got), "HeadAndTail(%d) is not valid UTF-8", n)
				head, rest, ok := strings.Cut(got, "\n… ")
				require.True(t, ok, "no marker in %q", got)
				count, tail, ok := strings.Cut(rest, " bytes not shown …\n")
				require.True(t, ok, "no marker in %q", got)
				assert.True(t, strings.HasPrefix(tt.s, head), "the head is the start of the text")
				assert.True(t, strings.HasSuffix(tt.s, tail), "the tail is the end of the text")
				assert.LessOrEqual(t, len(head), n/2)
				assert.LessOrEqual(t, len(tail), n/2)
				assert.Greater(t, len(head), n/2-utf8.UTFMax, "at most one rune is dropped at the cut")
				assert.Greater(t, len(tail), n/2-utf8.UTFMax)
				assert.Equal(t, strconv.Itoa(len(tt.s)-len(head)-len(tail)), count, "the count is of the bytes left out")
			})
		}
	}
}

func TestPrimaryWaitsForAnInstruction(t *testing.T) {
	tests := []struct {
		name        string
		instruction string
		disabled    bool
		want        string // the instruction sent
	}{
		{"empty", "", true, ""},
		{"blank", "  \n\t", true, ""},
		{"typed", "  use rg instead \n", false, "use rg instead"},
		{"multibyte", "ne pousse pas, décris d’abord", false, "ne pousse pas, décris d’abord"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &modetest.Host{}
			m := newApproval(t, h, gitPush())
			m.instruction = tt.instruction // what the textarea's input handler does
			p := m.Primary()
			assert.Equal(t, tt.disabled, p.Disabled)
			assert.Equal(t, "Reject with note", p.Label)
			if tt.disabled {
				assert.Equal(t, "Pick an answer above, or type what to do instead", p.Title)
				return
			}
			assert.Equal(t, "Reject, and tell the agent what to do instead", p.Title)
			p.Run(modetest.NewContext(t))
			require.Len(t, h.Answers, 1)
			reply := h.Answers[0].Reply
			assert.Equal(t, protocol.ActionAccept, reply.Action)
			want, _ := json.Marshal(map[string]string{"instruction": tt.want})
			assert.JSONEq(t, string(want), string(reply.Content))
			assert.NoError(t, protocol.ValidateReply(gitPush(), reply))
			assert.True(t, m.Primary().Disabled, "disabled while the answer is in flight")
		})
	}
}

func TestTooLongInstructionIsRefusedHere(t *testing.T) {
	h := &modetest.Host{}
	m := newApproval(t, h, gitPush())
	m.instruction = strings.Repeat("a", protocol.MaxReasonBytes+1)
	m.Primary().Run(modetest.NewContext(t))
	assert.Empty(t, h.Answers)
	got, _ := h.LastProblem()
	assert.Equal(t, "The instruction is 4097 bytes; the limit is 4 KiB.", got)
}

func TestPickingAnOptionAnswersItsIndex(t *testing.T) {
	req := gitPush()
	for i := range req.Options {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			h := &modetest.Host{}
			m := newApproval(t, h, req)
			m.pick(modetest.NewContext(t), i) // what option i's button does
			require.Len(t, h.Answers, 1)
			reply := h.Answers[0].Reply
			assert.Equal(t, protocol.ActionAccept, reply.Action)
			assert.JSONEq(t, `{"option":`+strconv.Itoa(i)+`}`, string(reply.Content))
			require.NoError(t, protocol.ValidateReply(req, reply))
			var a protocol.ApprovalAnswer
			require.NoError(t, json.Unmarshal(reply.Content, &a))
			picked, ok := a.Picked(req)
			require.True(t, ok)
			assert.Equal(t, req.Options[i].Label, picked.Label)
		})
	}
}

// One way to say no: a request with its own rejecting option has no second Reject; that
// option carries the reject chord, and the words typed go with it.
func TestTheRejectingOptionIsTheOneWayToSayNo(t *testing.T) {
	h := &modetest.Host{}
	m := newApproval(t, h, gitPush())
	_, ok := m.Secondary()
	assert.False(t, ok, "no second Reject beside the request's Deny")
	body := domtest.Render(t, m.Body())
	buttons := body.One(t, ".choices").All("button.choice")
	deny := buttons[len(buttons)-1]
	assert.Contains(t, deny.TextContent(), "Deny")
	assert.Contains(t, deny.TextContent(), "Ctrl+Shift+Enter", "the reject chord is shown on it")

	ctx := modetest.NewContext(t)
	m.instruction = "use git status"
	m.pick(ctx, len(gitPush().Options)-1)
	require.Len(t, h.Answers, 1)
	var a protocol.ApprovalAnswer
	require.NoError(t, json.Unmarshal(h.Answers[0].Reply.Content, &a))
	assert.Equal(t, "use git status", a.Instruction, "Deny with words typed rejects with them")
}

// A request with no rejecting option of its own gets Reject as the secondary action.
func TestSecondaryDeclinesAnApprovalWithoutARejectingOption(t *testing.T) {
	h := &modetest.Host{}
	req := gitPush()
	req.Options = req.Options[:len(req.Options)-1]
	m := newApproval(t, h, req)
	s, ok := m.Secondary()
	require.True(t, ok)
	assert.Equal(t, "Reject", s.Label)
	assert.Equal(t, "mod+shift+enter", s.Keys, "its chord, shown on the button")
	s.Run(modetest.NewContext(t))
	require.Len(t, h.Answers, 1)
	assert.Equal(t, protocol.ReplyRequest{Action: protocol.ActionDecline}, h.Answers[0].Reply)
}

func TestAFailedAnswerIsShownAndTheNextOneGoes(t *testing.T) {
	h := &modetest.Host{}
	m := newApproval(t, h, gitPush())
	ctx := modetest.NewContext(t)
	m.pick(ctx, 0)
	m.pick(ctx, 1)
	require.Len(t, h.Answers, 1, "one answer at a time")
	h.Done[0](ctx, &api.Error{Status: 500, ErrorResponse: protocol.ErrorResponse{Error: "the store is down"}})
	got, _ := h.LastProblem()
	assert.Equal(t, "Not answered: the store is down.", got)
	m.pick(ctx, 1)
	require.Len(t, h.Answers, 2)
	assert.JSONEq(t, `{"option":1}`, string(h.Answers[1].Reply.Content))
}

func TestInstructionFieldIsLabelled(t *testing.T) {
	m := newApproval(t, &modetest.Host{}, gitPush())
	ta := domtest.Render(t, m.Body()).One(t, "textarea#approval-instruction")
	assert.Equal(t, "Or say what to do instead", ta.Attrs["aria-label"])
	assert.Equal(t, "2", ta.Attrs["rows"])
}

// A batch lists each request with its own answer; Approve all sends them as marked, and says
// so. It is the one button that sends them: a "Send these answers" beside it sent the same
// answers (QA round 16 #8).
func TestBatchIsAnsweredRequestByRequest(t *testing.T) {
	req := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Allow these 2 requests?",
		Items: []protocol.ApprovalItem{{Tool: "run", Details: "ls <dir>"}, {Tool: "write", Details: "notes.md"}},
		Options: []protocol.ApprovalOption{
			{Value: protocol.OptionAllow, Label: "Approve all", Tone: protocol.ToneAffirm},
			{Value: protocol.OptionDeny, Label: "Reject all", Tone: protocol.ToneDeny},
		}}
	h := &modetest.Host{}
	m := newApproval(t, h, req)
	raw := app.HTMLString(m.Body())
	doc := domtest.Parse(t, raw)
	assert.Empty(t, doc.All("dir"), "a command's words are text, never markup")
	items := doc.All("li.batch-item")
	require.Len(t, items, 2)
	pres := doc.All("pre.batch-details")
	require.Len(t, pres, 2)
	assert.Equal(t, "ls <dir>", pres[0].TextContent())
	assert.Equal(t, "notes.md", pres[1].TextContent())
	assert.Empty(t, doc.All("pre.approval-details"), "the items are the details")
	// Each request's answers are named by its command (QA round 26: "%!s(BADINDEX)").
	groups := doc.All(".batch-item-answer")
	require.Len(t, groups, 2)
	assert.Equal(t, "Answer request 1: ls <dir>", groups[0].Attrs["aria-label"])
	assert.Equal(t, "Answer request 2: notes.md", groups[1].Attrs["aria-label"])

	// The buttons that answer the whole batch, by what they say.
	answers := func() []string {
		var out []string
		for _, b := range domtest.Render(t, m.Body()).All("button.choice") {
			if _, own := b.Attrs["aria-pressed"]; !own { // not a request's own Allow or Reject
				out = append(out, b.One(t, ".choice-label").TextContent())
			}
		}
		return out
	}
	assert.Equal(t, []string{"Approve all", "Reject all"}, answers())
	m.answerItem(0, protocol.OptionAllow)
	assert.Equal(t, []string{"Approve all", "Reject all"}, answers(), "nothing marked Reject: Approve all approves all")
	m.answerItem(1, protocol.OptionDeny)
	assert.Equal(t, []string{"Approve 1, reject 1", "Reject all"}, answers(),
		"one button sends the marks, and says what it sends; no other sends the same answers")

	m.pick(modetest.NewContext(t), 0)
	require.Len(t, h.Answers, 1)
	reply := h.Answers[0].Reply
	assert.JSONEq(t, `{"items":["allow","deny"]}`, string(reply.Content))
	require.NoError(t, protocol.ValidateReply(req, reply))
}

// TestApprovingWithWordsTypedKeepsThem: with words typed, the approve chord's hint is on Send
// (mod+Enter sends them as the rejection), not on the approving option; a click on that
// option approves and sends the words to the composer's box, never the answer.
func TestApprovingWithWordsTypedKeepsThem(t *testing.T) {
	h := &modetest.Host{}
	m := newApproval(t, h, gitPush())
	allow := func() string {
		return domtest.Render(t, m.Body()).One(t, ".choices").All("button.choice")[0].TextContent()
	}
	assert.Contains(t, allow(), "Ctrl+Enter", "nothing typed: the option approves by the chord")
	assert.Empty(t, m.Primary().Keys)

	m.instruction = "and tag it"
	assert.NotContains(t, allow(), "Ctrl+Enter", "words typed: the chord sends them")
	assert.Equal(t, approveKeys, m.Primary().Keys)

	m.pick(modetest.NewContext(t), 0)
	require.Len(t, h.Answers, 1)
	assert.JSONEq(t, `{"option":0}`, string(h.Answers[0].Reply.Content), "approved, without the words")
	assert.Empty(t, m.instruction, "the words left the field for the box")
}

// TestHeadAndTailInTheLocale: the marker of what a long detail does not show reads in the
// page's locale.
func TestHeadAndTailInTheLocale(t *testing.T) {
	locale.Use(i18n.Chinese)
	defer locale.Use(i18n.English)
	assert.Equal(t, "ab\n… 未显示 6 字节 …\nij", HeadAndTail("abcdefghij", 4))
}
