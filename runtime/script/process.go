package script

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"parley/protocol"
)

// procResult is what run() tells a script about a process.
type procResult struct {
	code           int // -1 when it did not exit on its own
	stdout, stderr string
	err            string // "" on exit status 0
	timedOut       bool   // killed at its timeout
}

// failure words why the process did not succeed, for the run's log after the command line
// ("exited with status 1", "timed out after 2s", "failed: …"); "" when it did.
func (r procResult) failure() string {
	switch {
	case r.code == 0 && r.err == "":
		return ""
	case r.timedOut:
		return r.err
	case r.code > 0:
		return fmt.Sprintf("exited with status %d", r.code)
	}
	return "failed: " + r.err
}

// Output coalescing: a process that writes a byte at a time must not become an event a byte.
const (
	flushEvery = 50 * time.Millisecond
	flushBytes = 4 << 10
	// drainGrace is how long the pipes may stay open after the process group is gone: a
	// process that left the group (setsid) may hold them forever.
	drainGrace = time.Second
)

// processEnv is the whole environment of a process: enough to find programs and run them in
// a predictable locale, and nothing of the server's own (no tokens, no credentials).
//
// home is the process's own empty, private home directory (see newHome). It must not be the
// workspace: a .gitconfig, .npmrc or .bashrc committed there would act as the user's own
// configuration (a core.fsmonitor that runs a command on the next approved `git status`).
// The XDG directories live inside it for the same reason, and git is told to skip the
// system-wide configuration and never to prompt.
func processEnv(home string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	return []string{
		"PATH=" + path,
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"LANG=C.UTF-8",
	}
}

// newHome makes a fresh, empty home directory for one process, readable by the server's
// user alone (os.MkdirTemp creates it 0700).
func newHome() (string, error) {
	return os.MkdirTemp("", "parley-home-")
}

// removeHome removes a process's home and whatever it left there, even directories it made
// unwritable.
func removeHome(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o700) // before WalkDir reads it
		}
		return nil
	})
	os.RemoveAll(dir)
}

// runProcess runs argv in dir without a shell, with empty stdin, in its own process group.
// It streams output through emit as it arrives and returns when the process has exited and
// its output is drained. ctx ending kills the whole group; the caller tells a stopped run
// from a finished one by ctx.Err().
func runProcess(ctx context.Context, dir string, argv []string, timeout time.Duration, limit int, emit func(stream, text string)) procResult {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	home, err := newHome()
	if err != nil {
		return procResult{code: -1, err: "cannot make a home directory for the process: " + err.Error()}
	}
	defer removeHome(home) // deferred first, so it runs last: after the group is killed

	sink := newSink(limit, emit)
	defer sink.close()

	cmd := exec.CommandContext(tctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = processEnv(home)
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd.Process) }

	// Our own pipes rather than cmd.StdoutPipe: Wait then returns when the process exits,
	// not when every descendant holding the pipe has, and we decide how long to drain.
	var readers sync.WaitGroup
	var closers []*os.File
	for _, stream := range []string{protocol.StreamStdout, protocol.StreamStderr} {
		r, w, err := os.Pipe()
		if err != nil {
			return procResult{code: -1, err: err.Error()}
		}
		closers = append(closers, r)
		defer w.Close()
		if stream == protocol.StreamStdout {
			cmd.Stdout = w
		} else {
			cmd.Stderr = w
		}
		readers.Go(func() { sink.drain(stream, r) })
	}
	defer func() {
		for _, r := range closers {
			r.Close()
		}
	}()

	// On Linux the process is sent its death signal (see setDeathSignal) when the thread
	// that forked it ends, not only when the server does. Go ends a thread only when a
	// goroutine locked to it exits still locked, so fork from this goroutine's thread,
	// locked for the fork and unlocked after: it stays one Go keeps.
	runtime.LockOSThread()
	startErr := cmd.Start()
	runtime.UnlockOSThread()
	// The child has its copies of the write ends; ours must close so the readers see EOF.
	if w, ok := cmd.Stdout.(*os.File); ok {
		w.Close()
	}
	if w, ok := cmd.Stderr.(*os.File); ok {
		w.Close()
	}
	if startErr != nil {
		readers.Wait()
		return procResult{code: -1, err: startErr.Error()}
	}
	// Should the server die before the process ends, its group goes with it.
	release := guardGroup(cmd.Process.Pid)
	waitErr := cmd.Wait()
	// Whatever the leader left running in its group goes with it: a script's process
	// must not outlive the run.
	killGroup(cmd.Process)
	release()
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainGrace):
		for _, r := range closers {
			r.Close() // unblocks the readers
		}
		<-drained
	}

	res := procResult{code: cmd.ProcessState.ExitCode()}
	res.stdout, res.stderr = sink.captured()
	switch {
	case tctx.Err() != nil && ctx.Err() == nil:
		res.code = -1
		res.err = "timed out after " + durationText(timeout)
		res.timedOut = true
	case waitErr != nil:
		res.err = waitErr.Error() // "exit status 2", "signal: killed"
	}
	return res
}

// durationText words a timeout as a person would: 30s, 1.5s, 2m0s.
func durationText(d time.Duration) string {
	return d.Round(time.Millisecond).String()
}

// sink coalesces a process's output into events and captures it, up to a byte limit shared
// by stdout and stderr. Past the limit it stops streaming and capturing but keeps reading,
// so the process is not blocked on a full pipe.
type sink struct {
	mu        sync.Mutex // serialises emit: events of a run arrive in order, one at a time
	emit      func(stream, text string)
	limit     int
	used      int
	truncated bool
	closed    bool // no event after runProcess returns, even from a timer that already fired
	streams   map[string]*streamBuf
}

type streamBuf struct {
	captured strings.Builder
	pending  []byte
	timer    *time.Timer // the armed flush, if any
}

func newSink(limit int, emit func(stream, text string)) *sink {
	return &sink{emit: emit, limit: limit, streams: map[string]*streamBuf{
		protocol.StreamStdout: {},
		protocol.StreamStderr: {},
	}}
}

// drain reads one stream to EOF (or until its read end is closed).
func (s *sink) drain(stream string, r *os.File) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.write(stream, buf[:n])
		}
		if err != nil {
			s.mu.Lock()
			s.flush(stream, true)
			s.mu.Unlock()
			return
		}
	}
}

func (s *sink) write(stream string, p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.truncated || s.closed {
		return
	}
	b := s.streams[stream]
	if room := s.limit - s.used; len(p) > room {
		p = p[:runeBoundary(p[:room])]
		s.truncated = true
	}
	s.used += len(p)
	b.captured.Write(p)
	b.pending = append(b.pending, p...)
	if s.truncated {
		for name := range s.streams {
			s.flush(name, true)
		}
		note := fmt.Sprintf("\n[output truncated after %s]\n", sizeText(int64(s.limit)))
		b.captured.WriteString(note)
		s.emit(stream, note)
		return
	}
	switch {
	case len(b.pending) >= flushBytes:
		s.flush(stream, false)
	case b.timer == nil:
		s.arm(stream, false)
	}
}

// arm schedules a flush of stream. Called with s.mu held.
func (s *sink) arm(stream string, final bool) {
	b := s.streams[stream]
	var t *time.Timer
	t = time.AfterFunc(flushEvery, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		// A timer stopped too late to keep it from firing must not act: another may have
		// been armed since, or the sink closed.
		if b.timer != t || s.closed || s.truncated {
			return
		}
		b.timer = nil
		s.flush(stream, final)
	})
	b.timer = t
}

// flush emits a stream's pending output. Unless final, it stops at the last newline when
// there is one, so events hold whole lines, and never splits a UTF-8 sequence; the rest goes
// out with the next flush, or at the latest one flushEvery later. Called with s.mu held.
func (s *sink) flush(stream string, final bool) {
	b := s.streams[stream]
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	n := len(b.pending)
	if !final {
		if i := bytes.LastIndexByte(b.pending, '\n'); i >= 0 {
			n = i + 1
		} else {
			n = runeBoundary(b.pending)
		}
	}
	if n > 0 {
		s.emit(stream, string(b.pending[:n]))
		b.pending = append(b.pending[:0], b.pending[n:]...)
	}
	if len(b.pending) > 0 && !final {
		s.arm(stream, true)
	}
}

// close stops the timers; no event is emitted after it.
func (s *sink) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, b := range s.streams {
		if b.timer != nil {
			b.timer.Stop()
			b.timer = nil
		}
	}
}

func (s *sink) captured() (stdout, stderr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams[protocol.StreamStdout].captured.String(), s.streams[protocol.StreamStderr].captured.String()
}

// runeBoundary returns the length of p without a trailing incomplete UTF-8 sequence.
func runeBoundary(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return i
			}
			break
		}
	}
	return len(p)
}
