package protocol

// Workspace catalogues the browser's `@` and `/` menus read: files to reference and skills
// (named prompt snippets) to insert.

// FileEntry is a file of the workspace, by its slash-separated path relative to the root.
type FileEntry struct {
	Path string `json:"path"`
	Dir  bool   `json:"dir,omitempty"`
}

// FileList answers GET /api/files?q=…&limit=…: the best matches for q, best first.
// Truncated says more files matched than were returned.
type FileList struct {
	Files     []FileEntry `json:"files"`
	Truncated bool        `json:"truncated,omitempty"`
}

// Skill is a named prompt snippet from the workspace (`.parley/skills/<name>.md`). Picked in
// the `/` menu it is inserted as the plain text "/<name> ".
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Body        string `json:"body"`
}

// SkillList answers GET /api/skills.
type SkillList struct {
	Skills []Skill `json:"skills"`
}

// Limits of the workspace catalogues.
const (
	MaxFileResults = 200
	MaxSkillBytes  = 16 << 10
)
