package script

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

// The built-in catalogue: examples run by /example <slug>, functions offered by the fn-form.
// They are ordinary scripts and function files, held to the same sandbox as anyone's.
//
//go:embed catalogue/examples/*.star catalogue/functions/*.star
var catalogue embed.FS

// BuiltinExamples returns the built-in examples' sources by slug ("hello" for
// catalogue/examples/hello.star). Run one with Exec under the name "examples/<slug>.star".
func BuiltinExamples() map[string]string { return catalogueDir("catalogue/examples") }

// BuiltinFunctions returns the built-in functions' sources by name ("greet" for
// catalogue/functions/greet.star). Load and call one under the name "functions/<name>.star".
func BuiltinFunctions() map[string]string { return catalogueDir("catalogue/functions") }

func catalogueDir(dir string) map[string]string {
	entries, err := fs.ReadDir(catalogue, dir)
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		data, err := fs.ReadFile(catalogue, path.Join(dir, e.Name()))
		if err != nil {
			panic(err)
		}
		out[strings.TrimSuffix(e.Name(), ".star")] = string(data)
	}
	return out
}

// Describe reads an example's header: the comment lines it starts with. The first is the
// title; the others are the description, lines of a paragraph joined with spaces and
// paragraphs (separated by a bare "#") with a newline.
func Describe(src string) (title, description string) {
	var paras []string
	var para []string
	endPara := func() {
		if len(para) > 0 {
			paras = append(paras, strings.Join(para, " "))
			para = nil
		}
	}
	first := true
	for line := range strings.Lines(src) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "#") {
			break
		}
		text := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		switch {
		case first && (strings.HasPrefix(line, "#!") || text == ""):
			continue // an interpreter line or a blank is not a title
		case first:
			title, first = text, false
		case text == "":
			endPara()
		default:
			para = append(para, text)
		}
	}
	endPara()
	return title, strings.Join(paras, "\n")
}
