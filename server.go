//go:build !wasm

package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"parley/runtime"
	"parley/runtime/agent/model"
	"parley/runtime/mcp"
	"parley/runtime/script"
	"parley/server"
)

// config is what the flags and their environment twins set.
type config struct {
	Addr string
	Data string
	NATS string
	// Replicas is how many copies a NATS cluster keeps of the log (0: what it can hold).
	Replicas int
	// Model is the model agent's endpoint (see server_model.go); no URL keeps the offline agent.
	Model model.Config
	// Workspaces are the folders sessions work in, absolute; the first is the default.
	Workspaces []string
	Token      string
	// DecisionTimeout ends a question or approval that asks for no timeout of its own.
	DecisionTimeout time.Duration
	// ScriptMemory is the memory limit of one script, in bytes.
	ScriptMemory int64
	// MCPConfig is the user's MCP servers file (-mcp-config), absolute; "" for none.
	MCPConfig string
	// Upstream, when set, makes this an edge (edge.go): the bundle here, the API and the
	// socket at the runtime at this address, presented UpstreamToken.
	Upstream, UpstreamToken string
	// Notify is how decisions reach a person who is not looking (server_notify.go).
	Notify notifyConfig
	// Web is the folder of the browser bundle. go-app serves /web from the working
	// directory, so it is not a flag; tests point it elsewhere.
	Web string
}

// parseConfig reads flags, falling back to PARLEY_* environment variables, then defaults.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	cwd, _ := os.Getwd()
	fs := flag.NewFlagSet("parley", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := config{Web: webFolder(os.Executable)}
	fs.StringVar(&c.Addr, "addr", env("PARLEY_ADDR", "127.0.0.1:8080"), "listen address (PARLEY_ADDR); keep it on localhost unless a proxy guards it")
	fs.StringVar(&c.Data, "data", env("PARLEY_DATA", defaultDataDir()), "data directory: the event store and the access token (PARLEY_DATA)")
	fs.StringVar(&c.NATS, "nats", env("PARLEY_NATS", ""), "URL of an external NATS server with JetStream; empty runs one embedded (PARLEY_NATS)")
	replicas := env("PARLEY_REPLICAS", "0")
	fs.StringVar(&replicas, "replicas", replicas, "copies a NATS cluster keeps of the event log and buckets, 1 to 5; 0 picks 3 when the cluster has three nodes, else 1 (PARLEY_REPLICAS)")
	workspaces := &workspaceFlag{list: filepath.SplitList(env("PARLEY_WORKSPACE", cwd))}
	fs.Var(workspaces, "workspace", "a `folder` sessions work in; repeat it for several, the first is the default (PARLEY_WORKSPACE: a list separated by '"+string(filepath.ListSeparator)+"')")
	modelConfig := addModelFlags(fs, getenv)
	notifyFlags := addNotifyFlags(fs, getenv)
	// A flag's value shows in ps: the token comes from the environment or a file only.
	tokenFile := env("PARLEY_TOKEN_FILE", "")
	fs.StringVar(&tokenFile, "token-file", tokenFile, "a `file` holding the access token for /api and /ws; else PARLEY_TOKEN holds it; with neither, the one kept in the data directory (PARLEY_TOKEN_FILE)")
	timeout := env("PARLEY_DECISION_TIMEOUT", "10m")
	fs.StringVar(&timeout, "decision-timeout", timeout, "how long a question or approval waits for an answer by default, e.g. 10m or 1h (PARLEY_DECISION_TIMEOUT)")
	memory := env("PARLEY_SCRIPT_MEMORY", "256MiB")
	fs.StringVar(&memory, "script-memory", memory, "how much memory one script may use, e.g. 256MiB or 1GiB; a script that needs more is stopped (PARLEY_SCRIPT_MEMORY)")
	mcpConfig := addMCPFlags(fs, getenv)
	upstreamTokenFile := addEdgeFlags(fs, &c, env)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: parley [flags]\n\nParley serves a web chat for AI agents on a local address.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if err := noSecretsInFlags(fs); err != nil {
		return c, err
	}
	var err error
	if c.Replicas, err = parseReplicas(replicas); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	d, err := time.ParseDuration(timeout)
	if err != nil || d <= 0 || d > 24*time.Hour {
		return c, fmt.Errorf("decision timeout %q: use a duration between 1s and 24h, like 10m", timeout)
	}
	c.DecisionTimeout = d
	if c.ScriptMemory, err = parseSize(memory); err != nil || c.ScriptMemory < minScriptMemory || c.ScriptMemory > maxScriptMemory {
		return c, fmt.Errorf("script memory %q: use a size between 128MiB and 1TiB, like 256MiB or 2GiB", memory)
	}
	if c.Workspaces, err = checkWorkspaces(workspaces.list); err != nil {
		return c, err
	}
	if c.Model, err = modelConfig(); err != nil {
		return c, err
	}
	if c.MCPConfig, err = mcpConfig(); err != nil {
		return c, err
	}
	if c.UpstreamToken, err = upstreamToken(c.Upstream, *upstreamTokenFile, getenv); err != nil {
		return c, err
	}
	if c.Notify, err = notifyFlags(); err != nil {
		return c, err
	}
	if c.Token, err = accessToken(tokenFile, getenv); err != nil {
		return c, err
	}
	return c, nil
}

// Bounds of -script-memory: below 128 MiB the limit is mostly the Go runtime's own first
// heap arena (see runtime/script/child_linux.go), and it must fit an int64.
const (
	minScriptMemory = 128 << 20
	maxScriptMemory = 1 << 40
)

// parseSize reads a size with its unit: KiB, MiB, GiB or TiB (K, M, G, T, KB, MB, GB and TB
// are read as the same, in powers of 1024).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, err
	}
	shift, ok := map[string]uint{"k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20, "g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40}[strings.ToLower(strings.TrimSpace(s[i:]))]
	if !ok {
		return 0, fmt.Errorf("no unit in %q", s)
	}
	if n > 1<<(62-shift) {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n << shift, nil
}

// workspaceFlag collects -workspace flags. The first one given replaces the environment's
// list rather than adding to it, as every other flag beats its twin.
type workspaceFlag struct {
	list []string
	set  bool
}

func (f *workspaceFlag) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(f.list, string(filepath.ListSeparator))
}

func (f *workspaceFlag) Set(v string) error {
	if v == "" {
		return errors.New("empty folder")
	}
	if !f.set {
		f.list, f.set = nil, true
	}
	f.list = append(f.list, v)
	return nil
}

// checkWorkspaces makes the folders absolute and refuses one that is not an existing folder,
// before anything starts.
func checkWorkspaces(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		if d == "" {
			continue // an empty entry of PARLEY_WORKSPACE, like a trailing ':'
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("workspace %s: %w", d, err)
		}
		fi, err := os.Stat(abs)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("workspace %s: no such folder; give -workspace an existing folder", abs)
		case err != nil:
			return nil, fmt.Errorf("workspace %s: %w", abs, err)
		case !fi.IsDir():
			return nil, fmt.Errorf("workspace %s: not a folder; give -workspace a folder", abs)
		}
		out = append(out, abs)
	}
	if len(out) == 0 {
		return nil, errors.New("no workspace: give -workspace a folder")
	}
	return out, nil
}

// defaultDataDir is under the user's state directory (XDG_STATE_HOME, else ~/.local/state).
func defaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "parley")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "parley")
	}
	return ".parley"
}

// accessToken reads the configured access token: the file when one is named, else
// PARLEY_TOKEN; empty when neither is set (the data directory keeps one then).
func accessToken(file string, getenv func(string) string) (string, error) {
	if file == "" {
		return strings.TrimSpace(getenv("PARLEY_TOKEN")), nil
	}
	return readTokenFile(file, "token file", "put the access token in it, or leave -token-file out to use the one kept in the data directory")
}

// readTokenFile reads a token kept in file, trimmed; what names the file in an error, and
// fix says what to do about an empty one.
func readTokenFile(file, what, fix string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("%s %s is empty: %s", what, file, fix)
	}
	return t, nil
}

// loadToken returns the configured token, or the one kept in the data directory, making it
// on first start. Keeping it lets an installed PWA work across restarts.
func loadToken(dataDir, configured string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	path := filepath.Join(dataDir, "token")
	if b, err := os.ReadFile(path); err == nil {
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read token: %w", err)
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	t := hex.EncodeToString(b[:])
	if err := os.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	return t, nil
}

func serve() {
	// First: started as a script child, the binary runs the script and exits here.
	script.ChildMain()
	cfg, err := parseConfig(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "parley:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "parley:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends.
func run(ctx context.Context, cfg config, stdout io.Writer) error {
	// Listen before anything else, so a busy address fails before the data folder is touched
	// or any work can run.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()
	if err := os.MkdirAll(cfg.Data, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	if cfg.Upstream != "" {
		return runEdge(ctx, cfg, ln, stdout)
	}
	// One Parley per data folder: a second one would run the same store's queued work behind
	// the first one's back, and two embedded JetStreams on one folder lose data. With -nats
	// the folder holds only the token, and runtimes of one cluster may share it.
	if cfg.NATS == "" {
		unlock, err := lockData(cfg.Data)
		if err != nil {
			return err
		}
		defer unlock()
	}
	token, err := loadToken(cfg.Data, cfg.Token)
	if err != nil {
		return err
	}
	bundle, err := server.LoadBundle(cfg.Web)
	if err != nil {
		return err
	}

	var nc *nats.Conn
	if cfg.NATS != "" {
		nc, err = connectNATS(cfg.NATS)
		if err != nil {
			return fmt.Errorf("connect to NATS at %s: %w", cfg.NATS, err)
		}
		defer nc.Close()
	} else {
		emb, err := runtime.StartEmbedded(cfg.Data)
		if err != nil {
			return err
		}
		defer emb.Close()
		nc = emb.Conn
	}
	// Embedded, no other runtime can share the log: decisions an earlier process left
	// pending are aborted at start instead of after their lease.
	rt, err := runtime.New(ctx, nc, runtime.Options{Workspaces: cfg.Workspaces, Exclusive: cfg.NATS == "", DecisionTimeout: cfg.DecisionTimeout,
		Limits: script.Limits{Memory: cfg.ScriptMemory}, Model: cfg.Model, Replicas: cfg.Replicas, MCP: mcp.Options{UserFile: cfg.MCPConfig}})
	if err != nil {
		return err
	}
	defer rt.Close()

	handlers := server.New(rt, token, bundle)
	stopNotify, err := startNotify(ctx, cfg, rt, handlers)
	if err != nil {
		return err
	}
	defer stopNotify()
	announce(stdout, ln, "running", token)
	slog.Info("serving", "addr", ln.Addr().String(), "data", cfg.Data, "workspaces", cfg.Workspaces, "nats", cmp.Or(cfg.NATS, "embedded"),
		"version", bundle.Version(), "runtime", rt.Owner())

	return serveUntil(ctx, ln, handlers.Handler(), handlers.CloseSockets, handlers.CloseStreams)
}

// announce prints the address to open, with the token it carries, for a person to read off
// the terminal; Parley is as running says. Beyond localhost it warns first.
func announce(stdout io.Writer, ln net.Listener, running, token string) {
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !isLoopback(host) {
		slog.Warn("listening beyond localhost: anyone who can reach this address and has the token can drive the agent", "addr", ln.Addr().String())
	}
	fmt.Fprintf(stdout, "Parley is %s. Open this address (it carries your access token):\n\n    http://%s/?token=%s\n\n", running, displayAddr(ln.Addr()), token)
}

// serveUntil serves h on ln until the server fails or ctx ends, then shuts it down, giving
// open requests 5 s; onShutdown closes what a shutdown does not wait for (the sockets and
// streams, which stay open as long as their pages).
func serveUntil(ctx context.Context, ln net.Listener, h http.Handler, onShutdown ...func()) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	for _, f := range onShutdown {
		srv.RegisterOnShutdown(f)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// urlFlags are the flags that take a URL, with where its secret goes instead.
var urlFlags = map[string]string{
	"model-url": "give the URL in PARLEY_MODEL_URL instead, or the key in PARLEY_MODEL_KEY",
	"nats":      "give the URL in PARLEY_NATS instead",
	"upstream":  "the runtime's token goes in PARLEY_UPSTREAM_TOKEN or -upstream-token-file",
}

// noSecretsInFlags refuses a URL given on the command line that carries a secret (a password,
// or a query parameter named like a key or a token): a command line is read by anyone on the
// machine in ps and lands in shell histories, where the environment is the process's own
// (QA round 22: -model-url with ?api_key= and -nats with a password were taken without a
// word). The error shows the URL with the secret hidden.
func noSecretsInFlags(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		instead, ok := urlFlags[f.Name]
		if !ok || err != nil {
			return
		}
		for _, one := range strings.Split(f.Value.String(), ",") { // -nats: a cluster's nodes
			if shown, secret := urlSecret(strings.TrimSpace(one)); secret && err == nil {
				err = fmt.Errorf("-%s %s: a secret on the command line shows in ps and in shell histories; %s", f.Name, shown, instead)
			}
		}
	})
	return err
}

// urlSecret reports whether raw holds a secret (a password, a query parameter named like a
// key, a fragment, a path segment shaped like a key), and raw with them hidden.
func urlSecret(raw string) (shown string, secret bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)", false
	}
	if _, has := u.User.Password(); has {
		secret = true
	} else if u.User != nil && u.User.Username() != "" && u.Scheme == "nats" {
		secret = true // nats://TOKEN@host: the user name is the token
	}
	q := u.Query()
	for name := range q {
		low := strings.ToLower(name)
		for _, word := range []string{"key", "token", "secret", "pass", "sig", "auth"} {
			if strings.Contains(low, word) {
				secret = true
				q.Set(name, "xxxxx")
			}
		}
	}
	u.RawQuery = q.Encode()
	if u.User != nil {
		u.User = url.User("xxxxx")
	}
	// No server reads a fragment: one there is a key pasted onto the URL (QA round 23).
	if u.Fragment != "" {
		secret, u.Fragment = true, "xxxxx"
	}
	// A path segment shaped like an API key (OpenAI's sk-…, GitHub's ghp_…, Slack's xox…-):
	// a key pasted in as part of the path.
	segs := strings.Split(u.Path, "/")
	for i, seg := range segs {
		if looksLikeKey(seg) {
			secret, segs[i] = true, "xxxxx"
		}
	}
	u.Path, u.RawPath = strings.Join(segs, "/"), ""
	return u.Redacted(), secret
}

// looksLikeKey says a URL path segment holds something shaped like a well-known API key: a
// key's prefix and at least 16 more characters, alone or after a separator a path may carry
// parameters with (";key=…", ",…"; QA round 24 found "/v1;sk-…" taken).
func looksLikeKey(seg string) bool {
	for _, part := range strings.FieldsFunc(seg, func(r rune) bool { return strings.ContainsRune(";,=:", r) }) {
		for _, prefix := range keyPrefixes {
			if strings.HasPrefix(part, prefix) && len(part) >= len(prefix)+16 {
				return true
			}
		}
	}
	return false
}

// keyPrefixes begin the API keys of well-known services: OpenAI's and Anthropic's sk-,
// GitHub's, Slack's, GitLab's, AWS's, Google's AIza and ya29., Hugging Face's hf_, Groq's
// gsk_, xAI's, Perplexity's, Replicate's.
var keyPrefixes = []string{"sk-", "sk_", "ghp_", "gho_", "github_pat_", "xoxb-", "xoxp-", "glpat-", "AKIA", "ASIA",
	"AIza", "ya29.", "hf_", "gsk_", "xai-", "pplx-", "r8_"}

// webFolder is where the page's files are: web/ in the current folder, as `make run` runs
// it; else the one beside the folder the binary is in (bin/parley's ../web), so that the
// binary run from another folder, as a service is, still finds them (QA round 22: it said
// "web/app.wasm is missing" of a built tree).
func webFolder(executable func() (string, error)) string {
	if fileExists(filepath.Join("web", "app.wasm")) {
		return "web"
	}
	if exe, err := executable(); err == nil {
		if dir := filepath.Join(filepath.Dir(exe), "..", "web"); fileExists(filepath.Join(dir, "app.wasm")) {
			return filepath.Clean(dir)
		}
	}
	return "web" // its error names it, and says how to build it
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
