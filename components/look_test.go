package components

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// themeColours reads the colour variables of the dark theme (:root) and of the light one
// (the prefers-color-scheme: light block) from the stylesheet.
func themeColours(t *testing.T) (dark, light map[string]string) {
	t.Helper()
	css, err := os.ReadFile("../web/parley.css")
	require.NoError(t, err)
	s := string(css)
	root := s[strings.Index(s, ":root {"):]
	root = root[:strings.Index(root, "}")]
	li := strings.Index(s, "@media (prefers-color-scheme: light)")
	require.GreaterOrEqual(t, li, 0)
	lightBlock := s[li:]
	lightBlock = lightBlock[:strings.Index(lightBlock, "}")]
	vars := regexp.MustCompile(`--([a-z-]+):\s*(#[0-9a-fA-F]{6})`)
	read := func(block string) map[string]string {
		out := map[string]string{}
		for _, m := range vars.FindAllStringSubmatch(block, -1) {
			out[m[1]] = m[2]
		}
		return out
	}
	dark = read(root)
	light = read(root)
	for k, v := range read(lightBlock) {
		light[k] = v
	}
	return dark, light
}

func luminance(hex string) float64 {
	var c [3]float64
	for i := range c {
		n, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		v := float64(n) / 255
		if v <= 0.03928 {
			c[i] = v / 12.92
		} else {
			c[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
}

func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// TestThemeContrast: in both themes, every text colour reaches WCAG AA (4.5:1) on the
// backgrounds it is drawn on, and a control's border 3:1 (docs/look.md, "Contrast").
func TestThemeContrast(t *testing.T) {
	pairs := [][2]string{
		{"text", "bg"}, {"text", "card"}, {"text", "panel"}, {"text", "user-bg"},
		{"muted", "bg"}, {"muted", "card"}, {"muted", "panel"}, {"muted", "user-bg"},
		{"accent", "bg"}, {"accent", "card"}, {"accent-ink", "accent"},
		{"danger", "card"}, {"danger", "bg"}, {"warn", "card"},
	}
	dark, light := themeColours(t)
	for name, theme := range map[string]map[string]string{"dark": dark, "light": light} {
		for _, p := range pairs {
			fg, bg := theme[p[0]], theme[p[1]]
			require.NotEmpty(t, fg, "%s: --%s", name, p[0])
			require.NotEmpty(t, bg, "%s: --%s", name, p[1])
			assert.GreaterOrEqual(t, contrast(fg, bg), 4.5, "%s: --%s on --%s", name, p[0], p[1])
		}
	}
	// A control's border is all that marks some controls (an input, an outlined button): 3:1
	// (WCAG 1.4.11) against every background a control sits on.
	for name, theme := range map[string]map[string]string{"dark": dark, "light": light} {
		for _, bg := range []string{"bg", "card", "panel", "user-bg"} {
			require.NotEmpty(t, theme["control-line"], "%s: --control-line", name)
			assert.GreaterOrEqual(t, contrast(theme["control-line"], theme[bg]), 3.0, "%s: --control-line on --%s", name, bg)
		}
	}
	assert.InDelta(t, 21, contrast("#000000", "#ffffff"), 0.01, "the formula")
}
