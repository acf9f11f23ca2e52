package script

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// errLeaves is why a path is refused: it names something outside the workspace.
var errLeaves = errors.New("the path leaves the workspace")

// confine resolves p, relative to the workspace or absolute inside it, and returns it
// relative to the workspace. It refuses a path that leaves the workspace lexically (..,
// an absolute path elsewhere) or through a symlink, judged on the deepest part of the path
// that exists.
//
// This check gives a clear error in the common cases; the file operations themselves go
// through os.Root, which enforces the same confinement without a check-then-use race.
func (h *Host) confine(p string) (string, error) {
	if p == "" {
		return "", errors.New("the path is empty")
	}
	if strings.ContainsRune(p, 0) {
		return "", errors.New("the path contains a NUL byte")
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(h.Workspace, abs)
	}
	abs = filepath.Clean(abs)
	rel, ok := within(h.Workspace, abs)
	if !ok {
		return "", errLeaves
	}
	// The deepest existing ancestor decides where the path really goes: whatever lies
	// below it does not exist yet, so cannot be a symlink.
	for cur := abs; ; cur = filepath.Dir(cur) {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			if _, ok := within(h.Workspace, real); !ok {
				return "", errLeaves
			}
			break
		}
		if cur == h.Workspace || cur == filepath.Dir(cur) {
			break
		}
	}
	return rel, nil
}

// resolve is confine for a path about to be written: it returns, relative to the
// workspace, where p really leads. Every symlink on the way is followed, the last element's
// too, and a dangling one's as far as its target goes; the part that does not exist yet is
// taken as written. So what the user approves is the file that is written: a grant for
// notes/ does not cover notes/p/x when notes/p is a symlink to .parley.
func (h *Host) resolve(p string) (string, error) {
	rel, err := h.confine(p)
	if err != nil {
		return "", err
	}
	real, err := followLinks(h.Workspace, rel)
	if err != nil {
		return "", err
	}
	rel, ok := within(h.Workspace, real)
	if !ok {
		return "", errLeaves
	}
	return rel, nil
}

// maxLinks bounds the symlinks followLinks follows, as the kernel bounds a lookup's.
const maxLinks = 40

// followLinks returns dir/rel with every symlink followed, as the system would when opening
// it to write, except that a missing part is not an error: it and what follows are taken as
// written. dir must be absolute and symlink-free.
func followLinks(dir, rel string) (string, error) {
	cur := dir
	todo := strings.Split(rel, string(filepath.Separator))
	exists, links := true, 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur) // cur is symlink-free: its parent is the real one
			_, err := os.Lstat(cur)
			exists = err == nil
			continue
		}
		next := filepath.Join(cur, name)
		if !exists {
			cur = next
			continue
		}
		info, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			exists = false
			cur = next
			continue
		case err != nil:
			return "", err
		case info.Mode()&fs.ModeSymlink == 0:
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", errors.New("too many levels of symbolic links")
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = filepath.VolumeName(target) + string(filepath.Separator)
			target = target[len(cur):]
		}
		todo = append(strings.Split(target, string(filepath.Separator)), todo...)
	}
	return cur, nil
}

// within reports whether path is root or below it, and returns it relative to root.
func within(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// pathError words an error about path for a script: `read "x": what went wrong`.
func pathError(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	// os.Root refuses a symlink out of the workspace with its own words; use ours.
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		err = errLeaves
	}
	return fmt.Errorf("%s %q: %w", op, path, err)
}

// readFile returns the text of a workspace file, up to limit bytes.
func (h *Host) readFile(p string, limit int64) (string, error) {
	rel, err := h.confine(p)
	if err != nil {
		return "", pathError("read", p, err)
	}
	root, err := os.OpenRoot(h.Workspace)
	if err != nil {
		return "", pathError("read", p, err)
	}
	defer root.Close()
	// Stat before opening: opening a FIFO would block the script until someone writes.
	info, err := root.Stat(rel)
	if err != nil {
		return "", pathError("read", p, err)
	}
	if info.IsDir() {
		return "", pathError("read", p, errors.New("it is a directory (use list)"))
	}
	if !info.Mode().IsRegular() {
		return "", pathError("read", p, errors.New("not a regular file"))
	}
	tooBig := pathError("read", p, fmt.Errorf("the file is over the %s read limit", sizeText(limit)))
	if info.Size() > limit {
		return "", tooBig
	}
	f, err := root.Open(rel)
	if err != nil {
		return "", pathError("read", p, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return "", pathError("read", p, err)
	}
	if int64(len(data)) > limit { // it grew since the stat
		return "", tooBig
	}
	return string(data), nil
}

// listDir returns the sorted names in a workspace directory, directories with a trailing "/".
func (h *Host) listDir(p string) ([]string, error) {
	rel, err := h.confine(p)
	if err != nil {
		return nil, pathError("list", p, err)
	}
	root, err := os.OpenRoot(h.Workspace)
	if err != nil {
		return nil, pathError("list", p, err)
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		return nil, pathError("list", p, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, pathError("list", p, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// writeFile writes text to a workspace file, creating its parent directories.
// The caller has confined rel and passed the approval gate.
func (h *Host) writeFile(p, rel, text string) error {
	root, err := os.OpenRoot(h.Workspace)
	if err != nil {
		return pathError("write", p, err)
	}
	defer root.Close()
	if dir := filepath.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return pathError("write", p, err)
		}
	}
	if err := root.WriteFile(rel, []byte(text), 0o644); err != nil {
		return pathError("write", p, err)
	}
	return nil
}

// sizeText words a byte count the way limits are written: 256 KiB, 1 MiB, 1000 bytes.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
