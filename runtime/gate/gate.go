// Package gate is the approval gate: every tool call that changes something (a script's
// run() and write(), later the model's tools and MCP's) passes here. A grant of the
// session's workspace lets a call through; otherwise the user is asked one approval through
// the decision registry. It holds the tool-call and verdict types, the grants, and the rules
// for what an "always" may reach; see docs/runtime.md.
package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"parley/i18n"
	"parley/protocol"
	"parley/runtime/decision"
)

// ToolCall is one request that needs the gate.
type ToolCall struct {
	Tool    string   // "run", "write", "read" or "mcp"
	Words   []string // run: argv; write and read: the workspace-relative path; mcp: server and tool
	Details string   // what the user is shown
	// ReadOnly, on an MCP tool, is the server's readOnlyHint: the modes that let reads
	// through let it through. Every other MCP tool asks (or passes by a grant).
	ReadOnly bool
}

// Verdict is the gate's answer. When not allowed, Text is what the asker is told: the user's
// reason, or "no answer in time" after a timeout.
type Verdict struct {
	Allowed bool
	Text    string
	// Granted has one entry per call: true when a grant let that call through without
	// asking. Such calls may run even when Allowed is false (the user rejected the rest).
	Granted []bool
	// By has one entry per call: the earlier "always" that let it through, nil where none
	// did. A script's run card shows it from the run's output; a model's call has no run,
	// and its receipt shows it from this (QA round 27: it ran with no sign of the grant).
	By []*protocol.GrantedCall
}

// Allows reports whether call i of the batch may run: the whole batch was allowed, or a
// grant let that call through. A missing entry of Granted is false.
func (v Verdict) Allows(i int) bool {
	return v.Allowed || i < len(v.Granted) && v.Granted[i]
}

// Asker opens a decision and waits for its end (the decision registry).
type Asker interface {
	Ask(ctx context.Context, session, run string, req protocol.DecisionRequest) (decision.Result, error)
}

// Recorder stores an event in a session's log (the event log).
type Recorder interface {
	Append(ctx context.Context, session string, typ protocol.EventType, data any, msgID string) (uint64, bool, error)
}

// Gate passes tool calls. Its fields are its dependencies.
type Gate struct {
	Grants *Grants
	Asker  Asker
	Log    Recorder
	NewID  func() string
	Now    func() time.Time
	// Modes reads a session's permission mode (the last session.permissions in its log);
	// nil means every session is in protocol.DefaultPermissionMode.
	Modes func(ctx context.Context, session string) (protocol.PermissionMode, error)
}

// Passes reports whether a session's permission mode lets a call through without asking.
// Commands never pass by mode: only a grant, which names the command, lets one through.
func Passes(mode protocol.PermissionMode, c ToolCall) bool {
	switch c.Tool {
	case "read":
		return mode == protocol.PermissionReads || mode == protocol.PermissionEdits
	case "write":
		return mode == protocol.PermissionEdits && !protectedWrite(c)
	case "mcp":
		return c.ReadOnly && (mode == protocol.PermissionReads || mode == protocol.PermissionEdits)
	}
	return false
}

// Protected reports whether a write to path (workspace-relative, symlinks resolved) would
// change what runs later without the person's word: git's config and hooks (a .git folder
// at any depth: a core.fsmonitor or a hook runs under any git command a grant lets through),
// Parley's own configuration (.parley: mcp.json starts commands, and functions and examples
// are scripts Parley runs) and husky's hooks (.husky, run by git). Such a write asks every
// time, in every permission mode, and no grant covers it (QA round 26: in "Allow edits" the
// model wrote core.fsmonitor into .git/config and ran it under a grant of `git status`, and
// wrote a command into .parley/mcp.json that Parley then started on its own).
func Protected(path string) bool {
	for i, part := range strings.Split(path, "/") {
		switch strings.ToLower(part) {
		case ".git":
			return true
		case ".parley", ".husky":
			if i == 0 {
				return true
			}
		}
	}
	return false
}

func protectedWrite(c ToolCall) bool {
	return c.Tool == "write" && len(c.Words) > 0 && Protected(strings.Join(c.Words, "/"))
}

// mode is the session's permission mode. A mode that cannot be read asks for everything:
// failing closed keeps the session usable and lets nothing through unseen.
func (g *Gate) mode(ctx context.Context, session string) protocol.PermissionMode {
	if g.Modes == nil {
		return protocol.DefaultPermissionMode
	}
	m, err := g.Modes(ctx, session)
	if err != nil {
		slog.Warn("could not read the permission mode; asking for everything", "session", session, "err", err)
		return protocol.PermissionAsk
	}
	if !m.Valid() {
		return protocol.PermissionAsk
	}
	return m
}

// Texts the asker (a script, the model) reads when the gate says no. A timeout is not a
// refusal: the user never saw or never answered the request, and saying "rejected" would make
// the model apologise for a decision nobody took. Nor is TextActed: the call was approved,
// and began before the server restarted (runtime/resume.go).
const (
	TextRejected = "rejected by the user"
	TextTimedOut = "no answer in time"
	TextActed    = "not run again: it was approved before the server restarted and had already begun, so it may have taken effect; ask again if it is still needed"
)

// Authorize passes tool calls of a run in a session working in workspace (an absolute,
// resolved folder) as one decision. Calls the session's permission mode lets through, and
// calls covered by a grant of the workspace, pass without asking; the rest are asked as one
// approval (a batch when there are several), answered "approve all" or "reject all".
func (g *Gate) Authorize(ctx context.Context, workspace, session, run string, calls []ToolCall) (Verdict, error) {
	mode := g.mode(ctx, session)
	granted, by := make([]bool, len(calls)), make([]*protocol.GrantedCall, len(calls))
	rest := 0
	for i, c := range calls {
		granted[i] = Passes(mode, c)
		if !granted[i] {
			rest++
		}
	}
	if rest == 0 {
		return Verdict{Allowed: true, Granted: granted}, nil
	}
	grants, err := g.Grants.List(ctx, workspace)
	if err != nil {
		return Verdict{}, err
	}
	extra := func(prefix []string, w string) bool { return PrefixArgument(workspace, prefix, w) }
	var ask []ToolCall
	var asked []int // the index in calls of each call asked
	for i, c := range calls {
		if granted[i] {
			continue
		}
		if protectedWrite(c) {
			ask = append(ask, c)
			asked = append(asked, i)
			continue // no grant covers it
		}
		if (c.Tool == "write" || c.Tool == "read") && len(c.Words) == 1 {
			// A path's words are its folders, so a prefix grant covers a folder.
			c.Words = strings.Split(c.Words[0], "/")
		}
		for _, gr := range grants {
			if covers(gr.Scope, c.Tool, c.Words, extra) {
				granted[i] = true
				g.Grants.Used(ctx, gr.ID, g.Now())
				// Visible in the run, so nothing runs unseen because of an old "always".
				call := firstLine(c.Details)
				by[i] = &protocol.GrantedCall{Scope: gr.Scope, Call: call}
				out := protocol.RunOutput{Run: run, Stream: protocol.StreamLog,
					Text:    "Allowed without asking by an earlier “always” (" + describeScope(gr.Scope) + "): " + call + "\n",
					Granted: by[i]}
				if _, _, err := g.Log.Append(ctx, session, protocol.EventRunOutput, out, ""); err != nil {
					slog.Warn("could not record a granted call", "session", session, "err", err)
				}
				break
			}
		}
		if !granted[i] {
			ask = append(ask, c)
			asked = append(asked, i)
		}
	}
	if len(ask) == 0 {
		return Verdict{Allowed: true, Granted: granted, By: by}, nil
	}
	req := ApprovalRequest(ask, workspace)
	v, each, err := g.askApproval(ctx, workspace, session, run, req)
	// A batch answered request by request: the allowed ones run as if granted.
	for k, allow := range each {
		if allow && k < len(asked) {
			granted[asked[k]] = true
		}
	}
	v.Granted, v.By = granted, by
	return v, err
}

// askApproval asks one approval and maps its outcome for the gate. A batch answered request
// by request also returns, per request asked, whether it was allowed.
func (g *Gate) askApproval(ctx context.Context, workspace, session, run string, req protocol.DecisionRequest) (Verdict, []bool, error) {
	res, err := g.Asker.Ask(ctx, session, run, req)
	if err != nil {
		return Verdict{}, nil, err
	}
	switch {
	case res.Rejected != nil: // only a timeout ends without an error here
		return Verdict{Text: TextTimedOut}, nil, nil
	case res.Replied.Action == protocol.ActionDecline && strings.TrimSpace(res.Replied.Reason) != "":
		// The reason typed with a rejection (the approvals screen's Alt+R) reads as the
		// composer's words do: "rejected by the user: …", not bare (QA round 21).
		return Verdict{Text: TextRejected + ": " + strings.TrimSpace(res.Replied.Reason)}, nil, nil
	case res.Replied.Action == protocol.ActionDecline:
		return Verdict{Text: TextRejected}, nil, nil
	}
	var answer protocol.ApprovalAnswer
	if err := json.Unmarshal(res.Replied.Content, &answer); err != nil {
		return Verdict{}, nil, fmt.Errorf("approval answer: %w", err)
	}
	if len(answer.Items) > 0 {
		each := make([]bool, len(answer.Items))
		all := true
		for i, v := range answer.Items {
			each[i] = v == protocol.OptionAllow
			all = all && each[i]
		}
		if all {
			return Verdict{Allowed: true}, each, nil
		}
		if why := strings.TrimSpace(answer.Instruction); why != "" {
			// The words typed with the answer are the reason of the requests it rejects.
			return Verdict{Text: TextRejected + ": " + why}, each, nil
		}
		return Verdict{Text: TextRejected}, each, nil
	}
	opt, picked := answer.Picked(req)
	if !picked {
		// Words typed instead of a click: a refusal that tells the asker what to do instead.
		return Verdict{Text: TextRejected + ": " + answer.Instruction}, nil, nil
	}
	if opt.Value != protocol.OptionAllow {
		return Verdict{Text: TextRejected}, nil, nil
	}
	if opt.Grant != nil {
		if err := g.grant(ctx, workspace, session, res, *opt.Grant); err != nil {
			return Verdict{}, nil, err
		}
	}
	return Verdict{Allowed: true}, nil, nil
}

func (g *Gate) grant(ctx context.Context, workspace, session string, res decision.Result, scope protocol.GrantScope) error {
	gr := protocol.Grant{
		ID:        g.NewID(),
		Workspace: workspace,
		Scope:     scope,
		Created:   g.Now().UnixMilli(),
		Session:   session,
		Decision:  res.Replied.ID,
	}
	if err := g.Grants.Put(ctx, gr); err != nil {
		return fmt.Errorf("record grant: %w", err)
	}
	_, _, err := g.Log.Append(ctx, session, protocol.EventGrantCreated, gr, "grant-"+gr.ID)
	return err
}

// cmpOr is s, or fallback when s is blank.
func cmpOr(s, fallback string) string {
	if strings.TrimSpace(s) == "" {
		return fallback
	}
	return s
}

// ApprovalRequest builds the question the gate asks: for one call, approve once or always
// (this exact command, or every command with its first word), or reject; for a batch,
// approve all or reject all.
func ApprovalRequest(calls []ToolCall, workspace string) protocol.DecisionRequest {
	if len(calls) > 1 {
		req := protocol.DecisionRequest{Kind: protocol.KindApproval,
			Options: []protocol.ApprovalOption{
				option("gate_approve_all", protocol.OptionAllow, protocol.ToneAffirm),
				option("gate_reject_all", protocol.OptionDeny, protocol.ToneDeny),
			},
		}
		ask(&req, "gate_ask_batch", strconv.Itoa(len(calls)))
		var details []string
		for _, c := range calls {
			req.Items = append(req.Items, protocol.ApprovalItem{Tool: c.Tool, Details: c.Details})
			details = append(details, c.Tool+": "+c.Details)
		}
		req.Details = strings.Join(details, "\n")
		return req
	}
	c := calls[0]
	req := protocol.DecisionRequest{
		Kind:    protocol.KindApproval,
		Details: c.Details,
		Options: []protocol.ApprovalOption{option("gate_approve", protocol.OptionAllow, protocol.ToneAffirm)},
	}
	switch c.Tool {
	case "run":
		if len(c.Words) == 0 {
			ask(&req, "gate_ask_run_any")
		} else {
			ask(&req, "gate_ask_run", c.Words[0])
		}
		if !alwaysOffered(c.Words) {
			break
		}
		o := always(protocol.GrantScope{Kind: protocol.GrantExact, Tool: c.Tool, Words: c.Words}, "reach_exact")
		o.Description = c.Details
		req.Options = append(req.Options, o)
		if prefix := GrantablePrefix(c.Words, workspace); prefix != nil {
			words := strings.Join(prefix, " ")
			o := always(protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: c.Tool, Words: prefix}, "reach_prefix", words)
			describe(&o, "reach_prefix_desc", words)
			req.Options = append(req.Options, o)
		}
	case "write", "read":
		switch {
		case protectedWrite(c):
			// Asked every time, and it says why, for "Allow edits" let the others through.
			ask(&req, "gate_ask_write_protected", strings.Join(c.Words, "/"))
		default:
			ask(&req, "gate_ask_"+c.Tool, strings.Join(c.Words, "/"))
		}
		if len(c.Words) > 1 && !protectedWrite(c) {
			dir := path.Join(c.Words[:len(c.Words)-1]...)
			o := always(protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: c.Tool, Words: c.Words[:len(c.Words)-1]},
				"reach_"+c.Tool+"s_in", dir)
			o.Description = dir + "/*"
			req.Options = append(req.Options, o)
		}
	case "mcp":
		if len(c.Words) != 2 {
			ask(&req, "gate_ask_mcp_any")
			break
		}
		ask(&req, "gate_ask_mcp", c.Words[1], c.Words[0])
		o := always(protocol.GrantScope{Kind: protocol.GrantExact, Tool: c.Tool, Words: c.Words}, "reach_mcp", c.Words[1], c.Words[0])
		describe(&o, "reach_mcp_desc", c.Words[0])
		req.Options = append(req.Options, o)
	default:
		ask(&req, "gate_ask_tool", c.Tool)
	}
	req.Options = append(req.Options, option("gate_reject", protocol.OptionDeny, protocol.ToneDeny))
	return req
}

// The gate's words come from the catalogue: English in the request, the phrase beside it,
// so each page asks in its own locale (docs/i18n.md).

func ask(req *protocol.DecisionRequest, code string, args ...string) {
	p, text := i18n.EnglishPhrase(code, args...)
	req.Message, req.Phrase = text, &p
}

func option(code, value string, tone protocol.Tone) protocol.ApprovalOption {
	p, text := i18n.EnglishPhrase(code)
	return protocol.ApprovalOption{Value: value, Label: text, Tone: tone, Phrase: &p}
}

// always is an "always" option: its phrase is its reach ("Approve, and always for …").
func always(scope protocol.GrantScope, reach string, args ...string) protocol.ApprovalOption {
	p, text := i18n.EnglishPhrase(reach, args...)
	return protocol.ApprovalOption{Value: protocol.OptionAllow, Label: text, Tone: protocol.ToneAffirm, Phrase: &p, Grant: &scope}
}

func describe(o *protocol.ApprovalOption, code string, args ...string) {
	p, text := i18n.EnglishPhrase(code, args...)
	o.Description, o.DescPhrase = text, &p
}

// GrantablePrefix is the reach of an "always" wider than the exact command: a known
// read-only or test subcommand ("git status", "go test") whose later arguments may name other
// things inside the workspace. Four reviews taught what else is not safe to offer: a bare
// program (git -c alias.x=!…, find -exec, awk's system(), cat of any file), a subcommand that
// reaches the network or the configuration (git fetch --upload-pack, git config), a make
// target (make test install), a Go import path (go test outer/pkg runs code from a module
// above the workspace), a repository above the workspace (git show <blob> of a file outside
// it) — and any option at all, where programs keep their doors. So each program has a rule,
// and options always ask again (see covers).
func GrantablePrefix(argv []string, workspace string) []string {
	if len(argv) < 2 || !alwaysOffered(argv) {
		return nil
	}
	if rule, ok := prefixRules[argv[0]]; ok && slices.Contains(rule.subcommands, argv[1]) && rule.holds(workspace) {
		return argv[:2]
	}
	return nil
}

// prefixRule is what a wider "always" may reach for one program.
type prefixRule struct {
	subcommands []string
	// holds reports whether the workspace is what the rule assumes: the root of the
	// repository, module or package, so that names resolve inside it and nowhere above.
	holds func(workspace string) bool
	// word reports whether an extra argument (already a plain name inside the workspace) may
	// vary under the grant.
	word func(w string) bool
}

// npm, pnpm and yarn are not here: "npm test <word>" appends the word to whatever the test
// script is (make test deploy, run-s lint release), so only the exact command is granted.
var prefixRules = map[string]prefixRule{
	"git": {subcommands: []string{"status", "diff", "log", "show", "blame", "ls-files", "grep"}, holds: isRepositoryRoot, word: anyName},
	"go":  {subcommands: []string{"test", "vet", "build", "list"}, holds: hasFile("go.mod"), word: relativePackage},
}

func anyName(string) bool { return true }

// relativePackage accepts ./dir and ./dir/... patterns that ./... itself would reach: an
// import path could name a package outside the workspace (a module above it, a dependency,
// std), and testdata, _dir and .dir folders hold files no build was meant to read.
func relativePackage(w string) bool {
	if w != "./..." && !strings.HasPrefix(w, "./") {
		return false
	}
	for _, part := range strings.Split(strings.TrimPrefix(w, "./"), "/") {
		if part == "testdata" || strings.HasPrefix(part, "_") || strings.HasPrefix(part, ".") && part != "..." {
			return false
		}
	}
	return true
}

// isRepositoryRoot reports whether git, run in the workspace, would use the repository in
// its .git folder and nothing else: a real folder (a .git file points elsewhere) that git
// accepts as a repository (HEAD, objects, refs — an empty .git makes git search the folders
// above), with no link to another repository's objects or common folder.
func isRepositoryRoot(workspace string) bool {
	dir := filepath.Join(workspace, ".git")
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return false
	}
	head, err := os.ReadFile(filepath.Join(dir, "HEAD"))
	if err != nil || !(strings.HasPrefix(string(head), "ref: refs/") || isHex(strings.TrimSpace(string(head)))) {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Lstat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	for _, link := range []string{"commondir", "objects/info/alternates"} {
		if _, err := os.Lstat(filepath.Join(dir, link)); !os.IsNotExist(err) {
			return false
		}
	}
	// No symlink anywhere in it: a linked pack, packed-refs or refs folder would let a
	// branch name or a hash read another repository.
	linked := errors.New("a symlink")
	err = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return linked
		}
		return nil
	})
	return err == nil
}

func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

func hasFile(name string) func(string) bool {
	return func(workspace string) bool {
		fi, err := os.Lstat(filepath.Join(workspace, name))
		return err == nil && fi.Mode().IsRegular()
	}
}

// PrefixArgument reports whether an extra argument may vary under a prefix grant in the
// workspace.
func PrefixArgument(workspace string, prefix []string, w string) bool {
	if len(prefix) < 2 {
		return false
	}
	rule, ok := prefixRules[prefix[0]]
	return ok && slices.Contains(rule.subcommands, prefix[1]) && rule.holds(workspace) &&
		plainArgument(w) && Inside(workspace, w) && rule.word(w)
}

// Inside reports whether a relative name, as a process in the workspace would open it,
// stays inside the workspace once symlinks are followed. A name that does not exist yet is
// judged by its deepest existing folder.
func Inside(workspace, name string) bool {
	p := filepath.Join(workspace, name)
	for {
		if resolved, err := filepath.EvalSymlinks(p); err == nil {
			rel, err := filepath.Rel(workspace, resolved)
			return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

// alwaysOffered reports whether any "always" may be offered for a command: not for a program
// named by a path, because a file in the workspace can change after the grant.
func alwaysOffered(argv []string) bool {
	return len(argv) > 0 && !strings.Contains(argv[0], "/")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSuffix(line, ":")
}

// describeScope words a grant's reach: "git status …", "writes in notes/", "any run".
func describeScope(s protocol.GrantScope) string { return protocol.DescribeScope(s) }
