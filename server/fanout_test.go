package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"parley/internal/testkit"
	"parley/internal/testkit/testserver"
	"parley/protocol"
	"parley/server"
	"parley/server/edge"
)

// A crowd is many sockets on one session, each recording what reached it and when. Each
// socket's reader keeps its own record (read once the crowd is done, after wg.Wait), so the
// readers share no lock: they run on the server's two cores, and the bench measures the
// server.
type crowd struct {
	socks []*member
	wg    sync.WaitGroup

	mu   sync.Mutex
	errs []string
}

// member is one socket's record.
type member struct {
	events  atomic.Int64 // how many events it has read, for a test to wait on
	frames  int
	last    uint64   // the last offset read: offsets only grow, so a repeat or a reorder shows
	offsets []uint64 // every offset read, when the crowd keeps them
	// Each user.message read: its offset and its arrival (Unix ns), appended as it is read
	// (a map written for every prompt was a sixth of the clients' CPU), and indexed by
	// offset once the reading is over (arrival).
	arrivals [][2]int64
	byOffset map[uint64]time.Time
}

// arrival says when the prompt at an offset reached the socket. Only once it stopped reading.
func (m *member) arrival(off uint64) (time.Time, bool) {
	if m.byOffset == nil {
		m.byOffset = make(map[uint64]time.Time, len(m.arrivals))
		for _, a := range m.arrivals {
			m.byOffset[uint64(a[0])] = time.Unix(0, a[1])
		}
	}
	at, ok := m.byOffset[off]
	return at, ok
}

// join opens n sockets on the session, subscribed after an offset, and reads their frames
// until ctx ends; with all, each keeps every offset it read, not only the prompts'.
func join(ctx context.Context, t testing.TB, client testkit.Client, session string, after uint64, n int, all ...bool) *crowd {
	c := &crowd{socks: make([]*member, n)}
	keep := len(all) > 0 && all[0]
	memo := newFrameMemo()
	for i := range n {
		m := &member{last: after}
		c.socks[i] = m
		conn, err := dialCrowd(client.Base, client.Token)
		if err != nil {
			t.Fatalf("socket %d: %v", i, err)
		}
		t.Cleanup(func() { conn.Close() })
		// As the browser does: events that wait for the socket come in batches.
		sub, _ := json.Marshal(protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: session, After: after, Batch: true})
		if err := conn.writeText(sub); err != nil {
			t.Fatalf("socket %d: %v", i, err)
		}
		var f protocol.ServerFrame
		if first, err := conn.next(); err != nil || json.Unmarshal(first, &f) != nil || f.Type != protocol.FrameSubscribed {
			t.Fatalf("socket %d: %s %v", i, first, err)
		}
		// The reads wait with no deadline: the socket closes when ctx ends.
		context.AfterFunc(ctx, func() { conn.Close() })
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			// The clients' share of a CPU profile: go tool pprof -tagfocus side=client.
			pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("side", "client")))
			var own, evs []frameEvent // evs may be the memo's: it is only read
			for {
				msg, err := conn.next()
				if err != nil {
					if ctx.Err() == nil {
						c.fail(fmt.Sprintf("socket %d: %v", i, err))
					}
					return
				}
				var shared bool
				evs, shared, err = memo.eventsOf(msg, own[:0])
				if !shared {
					own = evs
				}
				if err != nil {
					c.fail(fmt.Sprintf("socket %d: %v", i, err))
					continue
				}
				now := time.Now().UnixNano()
				m.frames++
				for _, ev := range evs {
					if ev.Offset <= m.last {
						c.fail(fmt.Sprintf("socket %d: offset %d after %d", i, ev.Offset, m.last))
					}
					m.last = ev.Offset
					if keep {
						m.offsets = append(m.offsets, ev.Offset)
					}
					if ev.Type == protocol.EventUserMessage {
						m.arrivals = append(m.arrivals, [2]int64{int64(ev.Offset), now})
					}
				}
				m.events.Add(int64(len(evs)))
			}
		}()
	}
	return c
}

func (c *crowd) fail(msg string) {
	c.mu.Lock()
	c.errs = append(c.errs, msg)
	c.mu.Unlock()
}

// frames counts the event and events frames the sockets read.
func (c *crowd) frames() (n int) {
	for _, m := range c.socks {
		n += m.frames
	}
	return n
}

// prompts posts n prompts at a pace and returns each one's offset and when it was sent.
func prompts(t testing.TB, client testkit.Client, session string, n int, every time.Duration) map[uint64]time.Time {
	sent := map[uint64]time.Time{}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for i := range n {
		<-tick.C
		start := time.Now()
		resp, body := client.Post("/api/sessions/"+session+"/prompt", protocol.SendPromptRequest{Text: fmt.Sprintf("prompt %d", i), AttemptID: fmt.Sprintf("fan-%d", i)})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("prompt %d: %d %s", i, resp.StatusCode, body)
		}
		sent[testkit.DecodeAs[protocol.SendPromptResponse](t, body).Offset] = start
	}
	return sent
}

// promptsAtRate posts n prompts at a rate whatever the server's answers take: each in its
// own goroutine at its time, as n users would, so a slow answer never lowers the rate (the
// sequential sender of prompts falls behind as soon as one POST outlasts the interval, and
// then measures a lighter load than asked). It returns each one's offset and when it was
// sent, once every answer is in.
func promptsAtRate(t testing.TB, client testkit.Client, session string, n int, every time.Duration, answerTimes ...*[]time.Duration) map[uint64]time.Time {
	type answer struct {
		offset uint64
		at     time.Time
		took   time.Duration // send → the POST's answer
		err    error
	}
	answers := make([]answer, n)
	// Each sender keeps its connection, as a user's browser does: http.DefaultClient keeps
	// two idle ones, so most prompts would wait for a new connection.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	defer hc.CloseIdleConnections()
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * every))) // late: at once, to keep the rate
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := &answers[i]
			a.at = time.Now()
			body := fmt.Sprintf(`{"text":"prompt %d","attemptId":"fan-%d"}`, i, i)
			req, err := http.NewRequest(http.MethodPost, client.Base+"/api/sessions/"+session+"/prompt", strings.NewReader(body))
			if err != nil {
				a.err = err
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+client.Token)
			resp, err := hc.Do(req)
			if err != nil {
				a.err = err
				return
			}
			defer resp.Body.Close()
			var got protocol.SendPromptResponse
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
				a.err = fmt.Errorf("%d: %v", resp.StatusCode, err)
				return
			}
			a.offset, a.took = got.Offset, time.Since(a.at)
		}()
	}
	wg.Wait()
	sent := map[uint64]time.Time{}
	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("prompt %d: %v", i, a.err)
		}
		sent[a.offset] = a.at
		for _, took := range answerTimes {
			*took = append(*took, a.took)
		}
	}
	return sent
}

// TestManySocketsOnOneSessionEachGetEveryEvent: every socket on a session receives every
// event of it, in full and once, while the log serves them all from one consumer.
func TestManySocketsOnOneSessionEachGetEveryEvent(t *testing.T) {
	sockets, n := 100, 30
	if testing.Short() {
		sockets, n = 20, 10
	}
	ts, rt := testServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	info, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "crowd"})
	if err != nil {
		t.Fatal(err)
	}
	c := join(ctx, t, ts.Client(t), info.ID, 0, sockets, true)
	prompts(t, ts.Client(t), info.ID, n, 20*time.Millisecond)
	testkit.WaitEvents(t, ts.Events, info.ID, "every prompt answered", testkit.TurnsEnded(n))
	stored, err := ts.Events(ctx, info.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, func() bool {
		for _, m := range c.socks {
			if m.events.Load() < int64(len(stored)) {
				return false
			}
		}
		return true
	}, "every socket has every stored event")
	// The session's one feed, while every socket is open: never a consumer per socket. The
	// reads of the log (each socket's catch-up, the test's own) end a moment after they did.
	testkit.Eventually(t, func() bool { return ts.ConsumersOf(t, info.ID) == 1 },
		"one consumer follows the session for its %d sockets", sockets)
	cancel()
	c.wg.Wait()
	if len(c.errs) > 0 {
		t.Fatalf("%d problems, first: %s", len(c.errs), c.errs[0])
	}
	for i, m := range c.socks {
		if len(m.offsets) != len(stored) {
			t.Fatalf("socket %d read %d events, the log holds %d", i, len(m.offsets), len(stored))
		}
		for j, ev := range stored {
			if m.offsets[j] != ev.Offset {
				t.Fatalf("socket %d: event %d is offset %d, the log's is %d (%s)", i, j, m.offsets[j], ev.Offset, ev.Type)
			}
		}
	}
}

// BenchmarkFanout: PARLEY_BENCH_SOCKETS sockets (default 1,000) on one session while
// PARLEY_BENCH_RATE prompts a second (default 100) arrive for PARLEY_BENCH_SECONDS (10).
// It reports the time from a prompt's publish to its event on every socket (p50, p99, max)
// and from its send (the POST) to the same, how many prompts were answered by the end of the
// send, the CPU time per prompt and the resident memory per socket: once all have joined, and at the end of the send. The sockets'
// clients run in a process of their own (this test binary again, TestFanoutCrowd), so the
// server's CPU and memory are its own, and the clients' are reported beside them; the two
// processes share the machine's cores, as a browser on the same machine would.
func BenchmarkFanout(b *testing.B) {
	sockets := envInt("PARLEY_BENCH_SOCKETS", 1000)
	rate := envInt("PARLEY_BENCH_RATE", 100)
	seconds := envInt("PARLEY_BENCH_SECONDS", 10)
	for range b.N {
		ts, rt := testServer(b)
		ctx, cancel := context.WithCancel(context.Background())
		info, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		rssBefore, joining := rss(), time.Now()
		cr := startCrowd(b, ts.URL, info.ID, sockets)
		rssJoined, joined := rss(), time.Since(joining)
		sending, cpuBefore, writesBefore := time.Now(), cpuTime(), writeCalls()
		cr.say("go")
		var answers []time.Duration
		sent := promptsAtRate(b, ts.Client(b), info.ID, rate*seconds, time.Second/time.Duration(rate), &answers)
		rssSent, sentIn, cpu := rss(), time.Since(sending), cpuTime()-cpuBefore
		cr.say("sent")
		evs, _ := ts.Events(ctx, info.ID, 0)
		answered := testkit.Count(evs, protocol.EventTurnEnded)
		time.Sleep(2 * time.Second)           // what is on its way arrives
		writes := writeCalls() - writesBefore // the frames' writes, and the prompts' few
		c, res := cr.finish(b)
		cancel()
		lat, missing := c.latencies(sent)
		p50, p99, worst := quantiles(lat)
		b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
		// The measure: from the prompt's publish (its event's time, stamped as it is
		// appended, in whole milliseconds: a delivery is counted up to 1 ms late) to every
		// socket. Send → publish is the POST's own path (HTTP, the checks, the append).
		published := map[uint64]time.Time{}
		for _, ev := range evs {
			if _, ok := sent[ev.Offset]; ok {
				published[ev.Offset] = time.UnixMilli(ev.At)
			}
		}
		pubLat, _ := c.latencies(published)
		pub50, pub99, pubWorst := quantiles(pubLat)
		b.ReportMetric(float64(pub50.Microseconds())/1000, "publish-p50-ms")
		b.ReportMetric(float64(pub99.Microseconds())/1000, "publish-p99-ms")
		perSocket := func(rss int64) float64 { return float64(rss) / 1024 / float64(sockets) }
		perPrompt := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(len(sent)) }
		fmt.Printf("fanout_bench: %d sockets, %d prompts/s for %d s: publish → every socket p50 %v, p99 %v, max %v; send → every socket p50 %v, p99 %v, max %v; %d deliveries missing; %d of %d prompts answered by the end of the send (sent in %v); %d events in %.1f frames per socket; CPU per prompt: server %.1f ms, clients %.1f ms; RSS per socket: server %.1f KB joined, %.1f KB after the send; clients %.1f / %.1f KB; joined in %v; %d problems%s\n",
			sockets, rate, seconds, pub50, pub99, pubWorst, p50, p99, worst,
			missing, answered, len(sent), sentIn.Round(time.Millisecond), len(evs), float64(c.frames())/float64(sockets),
			perPrompt(cpu), perPrompt(res.CPUSend), perSocket(rssJoined-rssBefore), perSocket(rssSent-rssBefore),
			perSocket(res.RSSJoined-res.RSSBefore), perSocket(res.RSSSent-res.RSSBefore), joined.Round(time.Millisecond), len(c.errs), firstOf(c.errs))
		first, spread := c.stages(sent)
		a50, a99, _ := quantiles(answers)
		f50, f99, _ := quantiles(first)
		s50, s99, _ := quantiles(spread)
		fmt.Printf("fanout_bench: stages: send → the POST's answer p50 %v, p99 %v; send → the first socket p50 %v, p99 %v; first → last socket p50 %v, p99 %v; the server's write calls per frame a socket read: %.2f\n",
			a50, a99, f50, f99, s50, s99, float64(writes)/float64(c.frames()))
		ts.Stop()
	}
}

func firstOf(errs []string) string {
	if len(errs) == 0 {
		return ""
	}
	return " (first: " + errs[0] + ")"
}

// crowdProcess is the bench's clients in a process of their own: TestFanoutCrowd, driven
// over its standard input and output.
type crowdProcess struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines *bufio.Scanner
	out   string // where it writes its record
}

// crowdRecord is what the crowd's process hands back.
type crowdRecord struct {
	Frames  []int
	Errs    []string
	Prompts [][][2]int64 // per socket: user.message offset, arrival (Unix ns)
	// Its CPU time from "go" to "sent", and its resident memory before it dialled, once
	// every socket had joined, and at "sent".
	CPUSend                       time.Duration
	RSSBefore, RSSJoined, RSSSent int64
}

func startCrowd(b testing.TB, url, session string, n int) *crowdProcess {
	out := filepath.Join(b.TempDir(), "crowd.gob")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFanoutCrowd$", "-test.count=1", "-test.timeout=0")
	cmd.Env = append(os.Environ(), "PARLEY_CROWD_URL="+url, "PARLEY_CROWD_SESSION="+session,
		"PARLEY_CROWD_SOCKETS="+strconv.Itoa(n), "PARLEY_CROWD_OUT="+out)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	cp := &crowdProcess{cmd: cmd, in: in, lines: bufio.NewScanner(stdout), out: out}
	cp.await(b, "joined")
	return cp
}

// await reads the process's output up to a line that says what (or what and a value after a
// space: the line stays in cp.lines.Text()).
func (cp *crowdProcess) await(b testing.TB, what string) {
	for cp.lines.Scan() {
		if l := cp.lines.Text(); l == what || strings.HasPrefix(l, what+" ") {
			return
		}
	}
	b.Fatalf("the crowd's process ended before it said %q: %v", what, cp.lines.Err())
}

func (cp *crowdProcess) say(what string) { fmt.Fprintln(cp.in, what) }

// finish closes the crowd's sockets and reads its record.
func (cp *crowdProcess) finish(b testing.TB) (*crowd, crowdRecord) {
	cp.say("stop")
	cp.await(b, "stopped")
	data, err := os.ReadFile(cp.out)
	if err != nil {
		b.Fatal(err)
	}
	var res crowdRecord
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&res); err != nil {
		b.Fatal(err)
	}
	c := &crowd{errs: res.Errs}
	for i, arrivals := range res.Prompts {
		c.socks = append(c.socks, &member{frames: res.Frames[i], arrivals: arrivals})
	}
	return c, res
}

// TestFanoutCrowd is BenchmarkFanout's clients, in the process the bench starts for them
// (PARLEY_CROWD_URL set). Run as a test, it checks that process, small: a crowd of three
// sockets in a process of its own has every stored event of a session on each, and its
// record says each prompt arrived on every socket, so the bench's figures read a crowd that
// works.
func TestFanoutCrowd(t *testing.T) {
	url := os.Getenv("PARLEY_CROWD_URL")
	if url == "" {
		ts, rt := testServer(t)
		info, err := rt.CreateSession(context.Background(), protocol.CreateSessionRequest{Title: "crowd"})
		if err != nil {
			t.Fatal(err)
		}
		cr := startCrowd(t, ts.URL, info.ID, 3)
		cr.say("go")
		sent := promptsAtRate(t, ts.Client(t), info.ID, 3, 50*time.Millisecond)
		cr.say("sent")
		stored := testkit.WaitEvents(t, ts.Events, info.ID, "every prompt answered", testkit.TurnsEnded(3))
		testkit.Eventually(t, func() bool {
			cr.say("least")
			cr.await(t, "least")
			n, _ := strconv.Atoi(cr.lines.Text()[len("least "):])
			return n >= len(stored)
		}, "every socket of the crowd has every stored event")
		c, _ := cr.finish(t)
		if len(c.errs) > 0 {
			t.Fatalf("%d problems, first: %s", len(c.errs), c.errs[0])
		}
		if _, missing := c.latencies(sent); missing != 0 {
			t.Fatalf("the crowd's record misses %d of %d deliveries", missing, 3*len(sent))
		}
		return
	}
	n := envInt("PARLEY_CROWD_SOCKETS", 1)
	var res crowdRecord
	res.RSSBefore = rss()
	ctx, cancel := context.WithCancel(context.Background())
	c := join(ctx, t, testkit.Client{T: t, Base: url, Token: testkit.Token}, os.Getenv("PARLEY_CROWD_SESSION"), 0, n)
	res.RSSJoined = rss()
	fmt.Println("joined")
	in := bufio.NewScanner(os.Stdin)
	var cpu0 time.Duration
	for in.Scan() && in.Text() != "stop" {
		switch in.Text() {
		case "go":
			cpu0 = cpuTime()
			// The clients' CPU profile over the send, to read beside the server's.
			if f := os.Getenv("PARLEY_CROWD_CPUPROFILE"); f != "" {
				w, err := os.Create(f)
				if err == nil {
					err = pprof.StartCPUProfile(w)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		case "sent":
			res.CPUSend, res.RSSSent = cpuTime()-cpu0, rss()
			pprof.StopCPUProfile()
		case "least": // how many events the socket that has read fewest has read
			least := int64(-1)
			for _, m := range c.socks {
				if k := m.events.Load(); least < 0 || k < least {
					least = k
				}
			}
			fmt.Printf("least %d\n", least)
		}
	}
	cancel()
	c.wg.Wait()
	res.Errs = c.errs
	for _, m := range c.socks {
		res.Frames = append(res.Frames, m.frames)
		res.Prompts = append(res.Prompts, m.arrivals)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(res); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv("PARLEY_CROWD_OUT"), buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	fmt.Println("stopped")
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// cpuTime is the CPU time the process has used, user and system: on a shared machine a
// steadier measure of the work than the wall clock.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// writeCalls counts the process's write system calls (write, writev, sendmsg...; 0 where
// /proc is missing).
func writeCalls() int64 { return procNumber("io", "syscw:") }

// rss is the process's resident memory in bytes (0 where /proc is missing).
func rss() int64 { return procNumber("status", "VmRSS:") << 10 }

// procNumber is the number on the line of /proc/self/<file> that starts with key, its unit
// (kB) left out; 0 where /proc is missing.
func procNumber(file, key string) int64 {
	data, err := os.ReadFile("/proc/self/" + file)
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// finish lets what is on its way arrive, closes the crowd's sockets (cancel is their
// context's), and reports send → every socket: p50 and p99 as the bench's metrics, and with
// the worst and the deliveries missing for the bench's line.
func (c *crowd) finish(b *testing.B, cancel context.CancelFunc, sent map[uint64]time.Time) (p50, p99, worst time.Duration, missing int) {
	time.Sleep(2 * time.Second) // what is on its way arrives
	cancel()
	c.wg.Wait()
	lat, missing := c.latencies(sent)
	p50, p99, worst = quantiles(lat)
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	return p50, p99, worst, missing
}

// stages are, for each prompt sent, how long it took to reach the first socket, and how
// much later it reached the last: the pipeline before the feed's wake-up, and the wake-up's
// writes (plus the clients' reads).
func (c *crowd) stages(sent map[uint64]time.Time) (first, spread []time.Duration) {
	for off, at := range sent {
		var lo, hi time.Time
		for _, m := range c.socks {
			if t, ok := m.arrival(off); ok {
				if lo.IsZero() || t.Before(lo) {
					lo = t
				}
				if t.After(hi) {
					hi = t
				}
			}
		}
		if !lo.IsZero() {
			first, spread = append(first, lo.Sub(at)), append(spread, hi.Sub(lo))
		}
	}
	return first, spread
}

// latencies are, for every socket and every prompt sent (offset → when), how long the prompt
// took to reach the socket; missing counts the deliveries that never came.
func (c *crowd) latencies(sent map[uint64]time.Time) (lat []time.Duration, missing int) {
	for _, m := range c.socks {
		for off, at := range sent {
			if arrived, ok := m.arrival(off); ok {
				lat = append(lat, arrived.Sub(at))
			} else {
				missing++
			}
		}
	}
	return lat, missing
}

// BenchmarkFanoutEdge is BenchmarkFanout twice, each on a fresh runtime: once on the
// runtime itself, once through an edge (server/edge, as `parley -upstream` runs it) in front
// of it, where the prompts are sent to the edge and the sockets are the edge's. It reports
// send → every socket, p50 and p99 of each, and what the edge adds. Everything runs in this
// one process on loopback, so the edge's relay shares the runtime's cores: on two machines
// it would cost the runtime less.
func BenchmarkFanoutEdge(b *testing.B) {
	sockets := envInt("PARLEY_BENCH_SOCKETS", 1000)
	rate := envInt("PARLEY_BENCH_RATE", 100)
	seconds := envInt("PARLEY_BENCH_SECONDS", 10)
	for range b.N {
		direct := fanoutRound(b, false, sockets, rate, seconds)
		through := fanoutRound(b, true, sockets, rate, seconds)
		b.ReportMetric(ms(direct.p(0.5)), "direct-p50-ms")
		b.ReportMetric(ms(direct.p(0.99)), "direct-p99-ms")
		b.ReportMetric(ms(through.p(0.5)), "edge-p50-ms")
		b.ReportMetric(ms(through.p(0.99)), "edge-p99-ms")
		for _, r := range []fanoutResult{direct, through} {
			fmt.Printf("fanout_bench: %s: %d sockets, %d prompts at %d/s (sent in %v): send → every socket p50 %v, p99 %v, max %v; %d deliveries missing; %d problems%s\n",
				r.via, sockets, rate*seconds, rate, r.sending.Round(time.Millisecond), r.p(0.5).Round(time.Microsecond), r.p(0.99).Round(time.Microsecond), r.p(1).Round(time.Microsecond), r.missing, r.problems, r.first)
		}
		fmt.Printf("fanout_bench: the edge adds p50 %v, p99 %v\n",
			(through.p(0.5) - direct.p(0.5)).Round(time.Microsecond), (through.p(0.99) - direct.p(0.99)).Round(time.Microsecond))
	}
}

type fanoutResult struct {
	via      string
	lat      []time.Duration // sorted
	missing  int
	problems int
	first    string        // the first problem, if any
	sending  time.Duration // how long the prompts took to send: past rate×seconds, the sender fell behind
}

func (r fanoutResult) p(q float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	return r.lat[min(len(r.lat)-1, int(q*float64(len(r.lat))))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// fanoutRound runs one round of the fan-out on a fresh runtime, through an edge or not.
func fanoutRound(b *testing.B, throughEdge bool, sockets, rate, seconds int) fanoutResult {
	ts := testserver.Start(b, testserver.Options{})
	defer ts.Stop()
	client, via := ts.Client(b), "one process"
	if throughEdge {
		p, err := edge.New(edge.Options{Upstream: ts.URL, Token: testkit.Token})
		if err != nil {
			b.Fatal(err)
		}
		bundle, err := server.LoadBundle(testkit.WebFolder(b))
		if err != nil {
			b.Fatal(err)
		}
		es := httptest.NewServer(server.Front("edge-token", bundle, p))
		defer func() { es.Close(); p.CloseSockets() }()
		client, via = testkit.Client{T: b, Base: es.URL, Token: "edge-token"}, "edge + runtime"
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	info, err := ts.Runtime.CreateSession(ctx, protocol.CreateSessionRequest{Title: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	c := join(ctx, b, client, info.ID, 0, sockets)
	start := time.Now()
	sent := promptsAtRate(b, client, info.ID, rate*seconds, time.Second/time.Duration(rate))
	sending := time.Since(start)
	time.Sleep(2 * time.Second) // what is on its way arrives
	cancel()
	c.wg.Wait()
	r := fanoutResult{via: via, problems: len(c.errs), sending: sending}
	if len(c.errs) > 0 {
		r.first = " (first: " + c.errs[0] + ")"
	}
	r.lat, r.missing = c.latencies(sent)
	slices.Sort(r.lat)
	return r
}
