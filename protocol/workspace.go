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
	// Error says why the skill cannot be used (its file is too large, or not text); its
	// Body is then empty. A listed broken skill tells its author what to fix.
	Error string `json:"error,omitempty"`
}

// SkillList answers GET /api/skills.
type SkillList struct {
	Skills []Skill `json:"skills"`
}

// Workspace is a folder sessions work in, as the composer's workspace picker shows it.
type Workspace struct {
	ID   string `json:"id"`
	Name string `json:"name"` // the folder's base name
	Path string `json:"path"` // absolute, on the server
}

// WorkspaceList answers GET /api/workspaces.
type WorkspaceList struct {
	Workspaces []Workspace `json:"workspaces"`
}

// DefaultWorkspace is the id of the workspace the server was started with.
const DefaultWorkspace = "default"

// Limits of the workspace catalogues.
const (
	MaxFileResults     = 200
	DefaultFileResults = 50
	MaxFileQueryBytes  = 200
	MaxSkillBytes      = 16 << 10
)
