package components

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/app/locale"
	"parley/i18n"
)

// TestPhrasesSayTheStoresWords: the one lookup behind outcomes and run titles says an exact
// phrase, a phrase with words after it, and leaves anything else as it is; each table says
// its own phrases only.
func TestPhrasesSayTheStoresWords(t *testing.T) {
	locale.Use(i18n.Chinese)
	defer locale.Use(i18n.English)
	zh := i18n.Chinese.T
	for in, want := range map[string]string{
		"Rejected":             zh(i18n.OutcomeRejected),
		"Rejected: use printf": zh(i18n.OutcomeRejectedWith, "use printf"),
		"Environment: Staging": "Environment: Staging",
		"Script":               "Script",
	} {
		assert.Equal(t, want, outcomeText(in), in)
	}
	for in, want := range map[string]string{
		"Script":                      zh(i18n.RunScript),
		"Example hello":               zh(i18n.RunExample, "hello"),
		"Function Greet (greet.star)": zh(i18n.RunFunctionTitle, "Greet (greet.star)"),
		"Rejected":                    "Rejected",
	} {
		assert.Equal(t, want, runTitle(in), in)
	}
}
