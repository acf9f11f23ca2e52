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
	// ID is the folder's base name, lower-cased and made URL-safe, with -2, -3… when two
	// folders share a name. It stays the same as long as the server's flags do.
	ID   string `json:"id"`
	Name string `json:"name"` // the folder's base name
	Path string `json:"path"` // absolute, on the server
	// Default marks the workspace used when a request names none: the first one the server
	// was started with.
	Default bool `json:"default,omitempty"`
}

// WorkspaceList answers GET /api/workspaces, in the order the server was given them.
type WorkspaceList struct {
	Workspaces []Workspace `json:"workspaces"`
}

// DefaultWorkspace names the default workspace wherever an id is taken, besides its own id.
// Sessions made when there was only one workspace carry it.
const DefaultWorkspace = "default"

// Limits of the workspace catalogues.
const (
	MaxFileResults     = 200
	DefaultFileResults = 50
	MaxFileQueryBytes  = 200
	MaxSkillBytes      = 16 << 10
)
