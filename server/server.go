// Package server is Parley's HTTP surface: the API and the event socket behind the access
// token, and the browser bundle. It asks the runtime to do things and answers in protocol
// types; flags, the data folder and the listener are the main package's (docs/architecture.md).
package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"parley/protocol"
	"parley/runtime"
	"parley/runtime/fanout"
	"parley/runtime/notify"
	"parley/server/sockets"
)

// Runtime is what the server asks of the agent runtime; *runtime.Runtime is the one.
type Runtime interface {
	// SessionList lists the sessions (or the archived ones) with the index's version; with
	// wait, once the version differs from it (or after hold).
	SessionList(ctx context.Context, archived bool, wait *uint64, hold time.Duration) (protocol.SessionList, error)
	CreateSession(ctx context.Context, req protocol.CreateSessionRequest) (protocol.SessionInfo, error)
	Session(ctx context.Context, id string) (protocol.SessionInfo, error)
	UpdateSession(ctx context.Context, id string, req protocol.UpdateSessionRequest) (protocol.SessionInfo, error)
	WithdrawPrompt(ctx context.Context, session string, prompt uint64) (protocol.WithdrawResponse, error)
	EditPrompt(ctx context.Context, session string, prompt uint64, req protocol.EditPromptRequest) (protocol.EditResponse, error)
	SendPrompt(ctx context.Context, session string, req protocol.SendPromptRequest) (protocol.SendPromptResponse, error)
	StopTurn(ctx context.Context, session string, req protocol.StopRequest) (protocol.StopResponse, error)
	PendingDecisions(ctx context.Context, session string) (protocol.DecisionList, error)
	Reply(ctx context.Context, session, decision string, reply protocol.ReplyRequest) (protocol.ReplyResponse, error)
	ListGrants(ctx context.Context, workspaceID string) (protocol.GrantList, error)
	RevokeGrant(ctx context.Context, workspaceID, id string) error
	ListCommands(workspaceID string) (protocol.CommandList, error)
	ListFunctions(workspaceID string) (protocol.FunctionList, error)
	RunFunction(ctx context.Context, name string, req protocol.RunFunctionRequest) (protocol.RunFunctionResponse, error)
	SearchFiles(workspaceID, q string, limit int) (protocol.FileList, error)
	ListSkills(workspaceID string) (protocol.SkillList, error)
	Workspaces() protocol.WorkspaceList
	// The controls row (controls.go).
	Models(ctx context.Context) protocol.ModelList
	SetModel(ctx context.Context, session string, req protocol.SetModelRequest) (protocol.SessionSettingResponse, error)
	SetPermissions(ctx context.Context, session string, req protocol.SetPermissionsRequest) (protocol.SessionSettingResponse, error)
	// The approvals screen (approvals.go).
	ApprovalQueue(ctx context.Context, wait *uint64, hold time.Duration) (protocol.ApprovalQueue, error)
	// Versions are the session index's and the approvals queue's versions, once either
	// differs from seen (or after hold): a socket's "versions" frames (socket.go).
	Versions(ctx context.Context, seen protocol.Versions, hold time.Duration) protocol.Versions
	ApprovalHistory(ctx context.Context, f protocol.HistoryFilter) (protocol.ApprovalHistory, error)
	ApprovalGrants(ctx context.Context) (protocol.GrantEntries, error)
	RequestRetry(ctx context.Context, session, decision string) (protocol.RetryResponse, error)
	// Head is the offset of a session's last event, 0 for none.
	Head(ctx context.Context, session string) (uint64, error)
	// Follow streams a session's events after an offset, stored ones then live ones.
	Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error)
	// Subscribe is Follow for a socket: the events that wait are taken at once (socket.go).
	Subscribe(ctx context.Context, session string, after uint64) (*fanout.Subscription, error)
	// Replay hands a session's stored events in (after, through] to visit, in chunks.
	Replay(ctx context.Context, session string, after, through uint64, visit func([]protocol.Event) error) error
	// Window finds where a page can start showing a session (runtime/window.go).
	Window(ctx context.Context, session string, before uint64, size int) (protocol.Window, []protocol.Event, error)
	// Live streams the deltas of a session's streaming messages from now on (never stored).
	Live(ctx context.Context, session string) (<-chan protocol.Delta, error)
}

var _ Runtime = (*runtime.Runtime)(nil)

// Server holds what the HTTP handlers share.
type Server struct {
	rt      Runtime
	token   string
	bundle  *Bundle
	sockets sockets.Set
	frames  frameCache
	origin  *http.CrossOriginProtection
	// Notifications (notify.go); nil until SetNotifier.
	notifier     *notify.Notifier
	push         *notify.Push
	streamsDone  chan struct{}
	closeStreams sync.Once
}

// New serves rt behind token, with the browser bundle b.
func New(rt Runtime, token string, b *Bundle) *Server {
	return &Server{rt: rt, token: token, bundle: b, origin: http.NewCrossOriginProtection()}
}

// CloseSockets closes every open socket with "going away". http.Server.Shutdown leaves
// hijacked connections alone: register this with RegisterOnShutdown, and clients reconnect
// at once.
func (s *Server) CloseSockets() { s.sockets.CloseAll() }

// route is one endpoint of the API.
type route struct {
	pattern string // a ServeMux pattern with its method
	handler http.HandlerFunc
}

// api is every endpoint behind the token. A table, so a test can hold each state-changing
// one to the origin rule.
func (s *Server) api() []route {
	return []route{
		{"GET /api/sessions", s.listSessions},
		{"POST /api/sessions", s.createSession},
		{"GET /api/sessions/{id}", s.getSession},
		{"PATCH /api/sessions/{id}", s.updateSession},
		{"POST /api/sessions/{id}/prompts/{prompt}/withdraw", s.withdrawPrompt},
		{"POST /api/sessions/{id}/prompts/{prompt}/edit", s.editPrompt},
		{"GET /api/sessions/{id}/events", s.listEvents},
		{"GET /api/sessions/{id}/window", s.windowPage},
		{"POST /api/sessions/{id}/prompt", s.sendPrompt},
		{"POST /api/sessions/{id}/stop", s.stopTurn},
		{"GET /api/sessions/{id}/decisions", s.listDecisions},
		{"GET /api/decisions", s.listDecisions},
		{"POST /api/sessions/{id}/decisions/{decision}", s.replyDecision},
		{"GET /api/grants", s.listGrants},
		{"GET /api/approvals", s.approvalQueue},
		{"GET /api/approvals/history", s.approvalHistory},
		{"GET /api/approvals/grants", s.approvalGrants},
		{"POST /api/sessions/{id}/decisions/{decision}/retry", s.requestRetry},
		{"DELETE /api/grants/{grant}", s.revokeGrant},
		{"GET /api/commands", s.listCommands},
		{"GET /api/functions", s.listFunctions},
		{"POST /api/functions/{name}/run", s.runFunction},
		{"GET /api/files", s.listFiles},
		{"GET /api/skills", s.listSkills},
		{"GET /api/workspaces", s.listWorkspaces},
		{"GET /api/models", s.listModels},
		{"POST /api/sessions/{id}/model", s.setModel},
		{"POST /api/sessions/{id}/permissions", s.setPermissions},
		{"GET /api/mcp", s.listMCP},
		{"POST /api/mcp/reconnect", s.reconnectMCP},
		{"GET /api/notifications", s.withNotifier(s.streamNotifications)},
		{"POST /api/notifications/seen", s.withNotifier(s.claimSeen)},
		{"GET /api/push", s.withPush(s.pushKey)},
		{"PUT /api/push/{device}", s.withPush(s.subscribePush)},
		{"DELETE /api/push/{device}", s.withPush(s.unsubscribePush)},
		{"/api/", func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusNotFound, "not_found", r.Method+" "+r.URL.Path+" is not part of the API")
		}},
		{"GET /ws", s.socket},
	}
}

// Handler is the whole HTTP surface: the API and the socket behind the token, the wasm
// precompressed, and everything else to go-app (pages, manifest, service worker, /web).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range s.api() {
		mux.Handle(r.pattern, s.authorised(r.handler))
	}
	return s.withBundle(mux)
}

// withBundle adds the bundle's routes to mux: the wasm precompressed, the rest to go-app
// behind the token link. Front serves the same around a proxy (front.go).
func (s *Server) withBundle(mux *http.ServeMux) http.Handler {
	mux.HandleFunc("GET /web/app.wasm", s.bundle.serveWasm)
	mux.HandleFunc("GET /web/{$}", http.NotFound) // go-app's file server would list the folder
	mux.HandleFunc("GET /manifest.webmanifest", serveManifest)
	mux.Handle("/", s.acceptTokenLink(s.bundle.withoutFalseBooleans(s.seed)))
	return securityHeaders(mux)
}
