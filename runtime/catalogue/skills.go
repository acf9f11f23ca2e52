package catalogue

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"parley/protocol"
)

// Skills are named prompt snippets in .parley/skills/<name>.md, read on each listing like
// the catalogue's files. The `/` menu inserts "/<name> ", so a name must be a safe token and
// must not be a server command's.

// skillsDir is where a workspace keeps its skills, relative to the workspace.
const skillsDir = WorkspaceDir + "/skills"

// maxSkillDescription bounds a skill's description, in characters.
const maxSkillDescription = 120

// Skills lists a workspace's skills, sorted by name. A file too large or not text is listed
// with an Error and no Body; one with a name that is not a token, or a server command's
// name, is left out (and logged).
func Skills(workspace string) protocol.SkillList {
	list := protocol.SkillList{Skills: []protocol.Skill{}}
	// Through os.Root, a symlinked skill that leads out of the workspace cannot be read.
	root, err := os.OpenRoot(workspace)
	if err != nil {
		slog.Warn("list skills", "err", err)
		return list
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), skillsDir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("list skills", "dir", skillsDir, "err", err)
		}
		return list
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.IsDir() {
			continue
		}
		file := path.Join(skillsDir, e.Name())
		if !protocol.ValidSessionID(name) {
			slog.Warn("skill skipped: its name must be letters, digits, '-' and '_'", "file", file)
			continue
		}
		if isCommand(name) {
			slog.Warn("skill skipped: it has the name of a server command", "file", file, "command", "/"+name)
			continue
		}
		list.Skills = append(list.Skills, readSkill(root, file, name))
	}
	slices.SortFunc(list.Skills, func(a, b protocol.Skill) int { return strings.Compare(a.Name, b.Name) })
	return list
}

func isCommand(name string) bool {
	return slices.ContainsFunc(protocol.Commands, func(c protocol.CommandInfo) bool { return c.Name == name })
}

func readSkill(root *os.Root, file, name string) protocol.Skill {
	skill := protocol.Skill{Name: name}
	f, err := root.Open(file)
	if err != nil {
		slog.Warn("skill unreadable", "file", file, "err", err)
		skill.Error = "the file cannot be read: it may be a link that leaves the workspace"
		return skill
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && !info.Mode().IsRegular() {
		skill.Error = "not a regular file"
		return skill
	}
	data, err := io.ReadAll(io.LimitReader(f, protocol.MaxSkillBytes+1))
	switch {
	case err != nil:
		skill.Error = "the file cannot be read"
		slog.Warn("skill unreadable", "file", file, "err", err)
	case len(data) > protocol.MaxSkillBytes:
		skill.Error = fmt.Sprintf("the file is larger than %d KiB: shorten it to use it as a skill", protocol.MaxSkillBytes/1024)
	case !utf8.Valid(data):
		skill.Error = "the file is not UTF-8 text"
	default:
		skill.Body = string(data)
		skill.Description = describeSkill(skill.Body)
	}
	return skill
}

// describeSkill is the first non-empty line, without a Markdown heading's '#'s, cut to
// maxSkillDescription characters.
func describeSkill(body string) string {
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > maxSkillDescription {
			runes := []rune(line)
			line = strings.TrimSpace(string(runes[:maxSkillDescription-1])) + "…"
		}
		return line
	}
	return ""
}
