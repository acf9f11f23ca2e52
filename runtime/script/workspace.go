package script

import (
	"context"
	"errors"
	"path/filepath"
	"time"
)

// The workspace operations below are the script builtins' own, exported for the model's
// tools (runtime/agent/toolbox), so that a model is confined exactly as a script is: one
// implementation of the paths, the os.Root access and the process limits.

// ReadFile returns the text of a workspace file, up to Limits.ReadBytes.
func (h *Host) ReadFile(p string) (string, error) { return h.readFile(p, h.Limits.ReadBytes) }

// ListDir returns the sorted names in a workspace folder, folders with a trailing "/".
func (h *Host) ListDir(p string) ([]string, error) { return h.listDir(p) }

// WriteTarget returns, slash-separated and relative to the workspace, the file a write of p
// would really change (symlinks followed): what the gate must be asked about. It refuses a
// path out of the workspace and the workspace itself.
func (h *Host) WriteTarget(p string) (string, error) {
	rel, err := h.resolve(p)
	if err != nil {
		return "", pathError("write", p, err)
	}
	if rel == "." {
		return "", pathError("write", p, errors.New("it is the workspace itself"))
	}
	return filepath.ToSlash(rel), nil
}

// ReadTarget returns, slash-separated and relative to the workspace ("." for the workspace
// itself), what a read of p would really reach (symlinks followed): what the gate is asked
// about when a session asks for every read. It refuses a path out of the workspace.
func (h *Host) ReadTarget(p string) (string, error) {
	rel, err := h.resolve(p)
	if err != nil {
		return "", pathError("read", p, err)
	}
	return filepath.ToSlash(rel), nil
}

// WriteFile writes text to the file WriteTarget named, creating its folders. The caller has
// passed the gate for target.
func (h *Host) WriteFile(target, text string) error {
	return h.writeFile(target, filepath.FromSlash(target), text)
}

// Process is what a process run by RunProcess did.
type Process struct {
	// Code is the exit status; -1 when it did not exit on its own or did not start.
	Code           int
	Stdout, Stderr string
	// Failure words why it did not succeed ("exited with status 1", "timed out after 30s");
	// empty when it did.
	Failure string
}

// RunProcess runs argv in the workspace as run() does: no shell, empty stdin, its own
// environment and home, its own process group, killed on timeout (at most
// Limits.ProcessTimeout) and when ctx ends, output bounded by Limits.OutputBytes. emit, if not
// nil, receives the output as it arrives.
func (h *Host) RunProcess(ctx context.Context, argv []string, timeout time.Duration, emit func(stream, text string)) Process {
	if len(argv) == 0 || argv[0] == "" {
		return Process{Code: -1, Failure: "failed: the command is empty"}
	}
	if timeout <= 0 || timeout > h.Limits.ProcessTimeout {
		timeout = h.Limits.ProcessTimeout
	}
	if emit == nil {
		emit = func(string, string) {}
	}
	r := runProcess(ctx, h.Workspace, argv, timeout, h.Limits.OutputBytes, emit)
	return Process{Code: r.code, Stdout: r.stdout, Stderr: r.stderr, Failure: r.failure()}
}

// WriteDetails is what a person is shown to approve writing text to path.
func WriteDetails(path, text string) string { return writeDetails(path, text) }

// ShellQuote renders argv as a command line a person can read and paste.
func ShellQuote(argv []string) string { return shellQuote(argv) }
