package catalogue

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"parley/protocol"
)

// The workspace's files for the composer's `@` menu. A walk of the tree is kept and
// refreshed in the background, so a person typing a query waits for one walk at most, not
// one per keystroke: a walk of 50,000 files takes about 170–250 ms here, a search of it
// 0.05–4 ms (BenchmarkFileSearch).

const (
	// fileIndexTTL is how long a walk answers searches before the tree is walked again.
	fileIndexTTL = 3 * time.Second
	// fileIndexMaxStale is how old a walk may be and still answer while a new one runs.
	fileIndexMaxStale = 30 * time.Second
	// maxIndexedFiles bounds the walk, and so its memory, in a huge tree (a home folder
	// picked as the workspace); what lies beyond is not offered.
	maxIndexedFiles = 200_000
)

// skippedDirs are never descended into, wherever they are; dot-folders are skipped too.
var skippedDirs = map[string]bool{"node_modules": true}

// Files is one workspace's walked tree.
type Files struct {
	root string
	now  func() time.Time

	walkMu sync.Mutex // one walk at a time; concurrent searches share it

	mu         sync.Mutex // guards what follows
	entries    []indexedFile
	walked     time.Time // when the walk of entries started
	refreshing bool
}

type indexedFile struct {
	path  string // slash-separated, relative to the root
	lower string // path lowered, for case-insensitive matching
	base  int    // where the base name starts in lower
	bytes uint64 // byteSet(lower): a query with a byte not in it cannot match
	dir   bool
	mod   int64 // unix nanoseconds
}

// NewFiles indexes the tree under root; now is the clock a walk's age is measured with.
func NewFiles(root string, now func() time.Time) *Files {
	return &Files{root: root, now: now}
}

// Search matches q case-insensitively against each relative path and ranks the matches:
// the base name starts with q, then the base name holds q, then the path holds q, then q's
// characters appear in the path in order. Within a rank shorter paths come first, then
// paths in byte order. An empty q lists files (not folders), most recently modified first.
func (x *Files) Search(q string, limit int) (protocol.FileList, error) {
	limit = min(max(limit, 1), protocol.MaxFileResults)
	entries, err := x.snapshot()
	if err != nil {
		return protocol.FileList{}, err
	}
	q = strings.ToLower(strings.TrimSpace(q))
	var top *topK
	if q == "" {
		top = newTopK(limit, func(a, b hit) int {
			ea, eb := &entries[a.i], &entries[b.i]
			return cmp.Or(cmp.Compare(eb.mod, ea.mod), strings.Compare(ea.path, eb.path))
		})
		for i := range entries {
			if !entries[i].dir {
				top.add(hit{i: int32(i)})
			}
		}
	} else {
		top = newTopK(limit, func(a, b hit) int {
			ea, eb := &entries[a.i], &entries[b.i]
			return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(len(ea.path), len(eb.path)), strings.Compare(ea.path, eb.path))
		})
		need := byteSet(q)
		for i := range entries {
			if need&^entries[i].bytes != 0 {
				continue
			}
			if rank, ok := matchRank(&entries[i], q); ok {
				top.add(hit{i: int32(i), rank: rank})
			}
		}
	}
	out := protocol.FileList{Files: make([]protocol.FileEntry, 0, len(top.best)), Truncated: top.seen > len(top.best)}
	for _, h := range top.best {
		out.Files = append(out.Files, protocol.FileEntry{Path: entries[h.i].path, Dir: entries[h.i].dir})
	}
	return out, nil
}

type hit struct {
	i    int32
	rank int8
}

// topK keeps the best limit hits seen, sorted, and counts them all. A short query matches
// most of a big tree; sorting all of it would cost more than the match, and a hit worse
// than the last kept is dropped at once.
type topK struct {
	limit int
	order func(a, b hit) int
	best  []hit
	seen  int
}

func newTopK(limit int, order func(a, b hit) int) *topK {
	return &topK{limit: limit, order: order, best: make([]hit, 0, limit+1)}
}

func (k *topK) add(h hit) {
	k.seen++
	if len(k.best) == k.limit && k.order(h, k.best[k.limit-1]) >= 0 {
		return
	}
	at, _ := slices.BinarySearchFunc(k.best, h, k.order)
	k.best = slices.Insert(k.best, at, h)
	if len(k.best) > k.limit {
		k.best = k.best[:k.limit]
	}
}

// matchRank ranks an entry against a lowered, non-empty query; ok is false when it does
// not match at all.
func matchRank(e *indexedFile, q string) (rank int8, ok bool) {
	base := e.lower[e.base:]
	switch {
	case strings.HasPrefix(base, q):
		return 0, true
	case strings.Contains(base, q):
		return 1, true
	case strings.Contains(e.lower, q):
		return 2, true
	case subsequence(e.lower, q):
		return 3, true
	}
	return 0, false
}

// byteSet is a bit per byte value (modulo 64) present in s: a cheap test that rules out
// most paths before any of the matches runs.
func byteSet(s string) uint64 {
	var set uint64
	for i := 0; i < len(s); i++ {
		set |= 1 << (s[i] & 63)
	}
	return set
}

// subsequence reports whether q's bytes appear in s in order.
func subsequence(s, q string) bool {
	j := 0
	for i := 0; i < len(s) && j < len(q); i++ {
		if s[i] == q[j] {
			j++
		}
	}
	return j == len(q)
}

// snapshot returns the walked tree. A walk younger than fileIndexTTL is used as it is; one
// younger than fileIndexMaxStale too, while a walk in the background replaces it, so a
// person typing never waits for a walk after the first; an older one, or none, is walked
// again first. The slice is never changed after it is returned.
func (x *Files) snapshot() ([]indexedFile, error) {
	x.mu.Lock()
	entries, age := x.entries, x.now().Sub(x.walked)
	if entries != nil && age < fileIndexMaxStale {
		if age >= fileIndexTTL && !x.refreshing {
			x.refreshing = true
			// Not tied to the runtime's Close: it ends with its one walk.
			go x.refresh()
		}
		x.mu.Unlock()
		return entries, nil
	}
	x.mu.Unlock()
	return x.walk()
}

func (x *Files) refresh() {
	defer func() {
		x.mu.Lock()
		x.refreshing = false
		x.mu.Unlock()
	}()
	if _, err := x.walk(); err != nil {
		slog.Warn("list workspace files", "err", err)
	}
}

// walk walks the tree unless a walk that finished while it waited for its turn is fresh.
func (x *Files) walk() ([]indexedFile, error) {
	x.walkMu.Lock()
	defer x.walkMu.Unlock()
	x.mu.Lock()
	entries, fresh := x.entries, x.entries != nil && x.now().Sub(x.walked) < fileIndexTTL
	x.mu.Unlock()
	if fresh {
		return entries, nil
	}
	started := x.now()
	entries, err := walkWorkspace(x.root)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	x.entries, x.walked = entries, started
	x.mu.Unlock()
	return entries, nil
}

var errWalkFull = errors.New("walk full")

// walkWorkspace lists the files and folders under root. It skips dot-folders (.git,
// .parley, …), node_modules, and what the top-level .gitignore's simple patterns ignore.
// Symlinks are never followed: one that leads to a file or folder inside root is listed
// as what it leads to, one that leads outside root (or nowhere) is left out.
func walkWorkspace(root string) ([]indexedFile, error) {
	ignore := readGitignore(filepath.Join(root, ".gitignore"))
	entries := make([]indexedFile, 0, 1024)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if p == root {
			return err // an unreadable root fails the walk
		}
		if err != nil {
			return nil // an unreadable folder inside is just left out
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		name := d.Name()
		dir := d.IsDir()
		// SkipDir on anything but a walked folder would skip the rest of its parent.
		skip := func() error {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			var ok bool
			if dir, ok = linkInside(root, p); !ok {
				return nil
			}
		}
		if dir && (strings.HasPrefix(name, ".") || skippedDirs[name]) {
			return skip()
		}
		if ignore.ignores(rel, name, dir) {
			return skip()
		}
		var mod int64
		if info, err := d.Info(); err == nil {
			mod = info.ModTime().UnixNano()
		}
		if len(entries) == maxIndexedFiles {
			slog.Warn("workspace too large to index whole; the @ menu offers part of it", "workspace", root, "entries", maxIndexedFiles)
			return errWalkFull
		}
		lower := strings.ToLower(rel)
		entries = append(entries, indexedFile{path: rel, lower: lower, base: strings.LastIndexByte(lower, '/') + 1, bytes: byteSet(lower), dir: dir, mod: mod})
		return nil
	})
	if err != nil && !errors.Is(err, errWalkFull) {
		return nil, fmt.Errorf("list workspace files: %w", err)
	}
	return entries, nil
}

// linkInside follows the symlink at p and reports whether it ends inside root, and whether
// at a folder (which the walk still does not enter).
func linkInside(root, p string) (dir, ok bool) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false, false
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return false, false
	}
	info, err := os.Stat(real)
	if err != nil {
		return false, false
	}
	return info.IsDir(), true
}

// gitignore holds the simple patterns of a top-level .gitignore: globs as path.Match reads
// them, a trailing "/" for folders only, a leading or inner "/" anchoring the glob at the
// root (else it matches a base name at any depth), a leading "**/" as no anchor. Lines
// starting with "!" (re-inclusion) and patterns with any other "**" are not supported and
// are skipped, so what they would ignore stays listed.
type gitignore []ignorePattern

type ignorePattern struct {
	glob     string
	anchored bool
	dirOnly  bool
}

func readGitignore(name string) gitignore {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out gitignore
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p, ok := parseIgnoreLine(sc.Text()); ok {
			out = append(out, p)
		}
	}
	return out
}

func parseIgnoreLine(line string) (ignorePattern, bool) {
	line = strings.TrimRight(line, " \t\r")
	if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "!") {
		return ignorePattern{}, false
	}
	var p ignorePattern
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if rest, ok := strings.CutPrefix(line, "**/"); ok {
		line = rest
	} else if strings.Contains(line, "/") {
		p.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	if line == "" || strings.Contains(line, "**") {
		return ignorePattern{}, false
	}
	if _, err := path.Match(line, ""); err != nil {
		return ignorePattern{}, false // a malformed glob
	}
	p.glob = line
	return p, true
}

// ignores reports whether a relative path (with its base name) is ignored.
func (g gitignore) ignores(rel, name string, dir bool) bool {
	for _, p := range g {
		if p.dirOnly && !dir {
			continue
		}
		subject := name
		if p.anchored {
			subject = rel
		}
		if ok, _ := path.Match(p.glob, subject); ok {
			return true
		}
	}
	return false
}
