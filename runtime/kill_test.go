package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// The kill test runs the runtime in a child process (this test binary, re-executed) and
// kills it with SIGKILL at random points while prompts arrive. Sizes: PARLEY_KILL_ROUNDS
// rounds (default 5, or 2 with -short) of PARLEY_KILL_PROMPTS concurrent prompts (default
// 50; "full" picks 50 to 200 per round).

const killChildEnv = "PARLEY_KILLTEST_CHILD"

// serveKillChild is the child: the runtime on its data folder, behind three HTTP routes, its
// address on stdout. It runs until it is killed.
func serveKillChild(dir string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "kill child:", err)
		os.Exit(2)
	}
	emb, err := StartEmbedded(filepath.Join(dir, "data"))
	if err != nil {
		fail(err)
	}
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		fail(err)
	}
	rt, err := New(context.Background(), emb.Conn, Options{Workspace: ws, Exclusive: true})
	if err != nil {
		fail(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /session", func(w http.ResponseWriter, r *http.Request) {
		info, err := rt.CreateSession(r.Context(), protocol.CreateSessionRequest{})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, info.ID)
	})
	mux.HandleFunc("POST /prompt", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		resp, err := rt.SendPrompt(r.Context(), q.Get("s"), protocol.SendPromptRequest{Text: q.Get("text"), AttemptID: q.Get("a")})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, resp.Offset)
	})
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) {
		evs, err := rt.Log().Read(r.Context(), r.URL.Query().Get("s"), 0)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(evs)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	fmt.Println(ln.Addr().String())
	fail(http.Serve(ln, mux))
}

type killChild struct {
	cmd  *exec.Cmd
	base string
}

func startKillChild(t *testing.T, dir string) *killChild {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "the child prints its address")
	return &killChild{cmd: cmd, base: "http://" + line[:len(line)-1]}
}

func (c *killChild) kill() {
	_ = c.cmd.Process.Kill() // SIGKILL: no goodbye, no flush
	_ = c.cmd.Wait()
}

var killClient = &http.Client{Timeout: 20 * time.Second}

func (c *killChild) post(path string, q url.Values) (string, bool) {
	resp, err := killClient.Post(c.base+path+"?"+q.Encode(), "text/plain", nil)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err == nil && resp.StatusCode == http.StatusOK
}

func (c *killChild) events(t *testing.T, session string) []protocol.Event {
	t.Helper()
	resp, err := killClient.Get(c.base + "/events?s=" + session)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var evs []protocol.Event
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&evs))
	return evs
}

// killSizes reads the test's size from the environment.
func killSizes(t *testing.T) (rounds int, prompts func(*rand.Rand) int) {
	rounds = 5
	if testing.Short() {
		rounds = 2
	}
	if v := os.Getenv("PARLEY_KILL_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "PARLEY_KILL_ROUNDS")
		rounds = n
	}
	prompts = func(*rand.Rand) int { return 50 }
	switch v := os.Getenv("PARLEY_KILL_PROMPTS"); v {
	case "":
	case "full":
		prompts = func(rng *rand.Rand) int { return 50 + rng.IntN(151) }
	default:
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "PARLEY_KILL_PROMPTS")
		prompts = func(*rand.Rand) int { return n }
	}
	return rounds, prompts
}

// TestKill9NeverLosesAPrompt: concurrent prompts on a new session, a SIGKILL at a random
// point (after a random number of answers, or while the turns run), a restart. After each
// restart every stored prompt runs exactly once, in log order, and every prompt answered
// 200 is stored; the sessions of earlier rounds do not run anything again.
func TestKill9NeverLosesAPrompt(t *testing.T) {
	rounds, size := killSizes(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, %d rounds", seed, rounds)
	rng := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	child := startKillChild(t, dir)
	defer func() { child.kill() }()

	var sessions []string
	answered := map[string]map[uint64]bool{} // session → offsets answered 200
	start := time.Now()
	for round := range rounds {
		id, ok := child.post("/session", nil)
		require.True(t, ok, "round %d: create a session", round)
		sessions = append(sessions, id)
		answered[id] = map[uint64]bool{}

		n := size(rng)
		killAfter := int64(rng.IntN(n + 1)) // answers before the kill; n: kill while the turns run
		var got atomic.Int64
		var mu sync.Mutex
		killed := make(chan struct{})
		var once sync.Once
		doKill := func() { once.Do(func() { child.kill(); close(killed) }) }
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				q := url.Values{"s": {id}, "a": {"r" + strconv.Itoa(round) + "-" + strconv.Itoa(i)}, "text": {"prompt " + strconv.Itoa(i)}}
				body, ok := child.post("/prompt", q)
				if !ok {
					return
				}
				offset, err := strconv.ParseUint(body, 10, 64)
				if err != nil {
					return
				}
				mu.Lock()
				answered[id][offset] = true
				mu.Unlock()
				if got.Add(1) == killAfter {
					doKill()
				}
			})
		}
		if killAfter == 0 {
			doKill()
		}
		wg.Wait()
		if int(killAfter) == n {
			time.Sleep(time.Duration(rng.IntN(50)) * time.Millisecond)
			doKill()
		}
		<-killed

		child = startKillChild(t, dir)
		for _, s := range sessions {
			checkRanOnce(t, child, s, answered[s], fmt.Sprintf("round %d (killed after %d of %d answers), session %s", round, killAfter, n, s))
		}
	}
	t.Logf("%d rounds in %s", rounds, time.Since(start).Round(time.Millisecond))
}

// checkRanOnce waits until every prompt stored in the session has started, then checks that
// each started exactly once, in log order, and that every answered prompt is stored.
func checkRanOnce(t *testing.T, child *killChild, session string, answered map[uint64]bool, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		evs := child.events(t, session)
		var prompts []uint64
		stored := map[uint64]bool{}
		starts := map[uint64]int{}
		var order []uint64
		for _, ev := range evs {
			switch ev.Type {
			case protocol.EventUserMessage:
				prompts = append(prompts, ev.Offset)
				stored[ev.Offset] = true
			case protocol.EventTurnStarted:
				ts, err := protocol.DecodeEventData[protocol.TurnStarted](ev)
				require.NoError(t, err)
				starts[ts.Prompt]++
				order = append(order, ts.Prompt)
			}
		}
		for offset := range answered {
			require.True(t, stored[offset], "%s: prompt %d was answered 200 but is not stored", what, offset)
		}
		for p, n := range starts {
			require.Equal(t, 1, n, "%s: prompt %d started %d times", what, p, n)
		}
		for i := 1; i < len(order); i++ {
			require.Less(t, order[i-1], order[i], "%s: turns ran out of log order: %v", what, order)
		}
		waiting := 0
		for _, p := range prompts {
			if starts[p] == 0 {
				waiting++
			}
		}
		if waiting == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d of %d stored prompts never ran", what, waiting, len(prompts))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
