//go:build !wasm

package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/runtime/agent/model"
)

func TestModelFlagsAndEnvironment(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		want    model.Config
		wantErr string
	}{
		{"none: the offline agent", nil, nil, model.Config{Window: 32768}, ""},
		{"flags, key from the environment", []string{"-model-url", "http://127.0.0.1:11434/v1", "-model", "llama3.2"},
			map[string]string{"OPENAI_API_KEY": "k1"}, model.Config{Window: 32768, URL: "http://127.0.0.1:11434/v1", Model: "llama3.2", Key: "k1"}, ""},
		{"Parley's twins win over OpenAI's", nil,
			map[string]string{"PARLEY_MODEL_URL": "http://127.0.0.1:1/v1", "OPENAI_BASE_URL": "http://127.0.0.1:2/v1", "PARLEY_MODEL": "m",
				"PARLEY_MODEL_KEY": "p", "OPENAI_API_KEY": "o"},
			model.Config{Window: 32768, URL: "http://127.0.0.1:1/v1", Model: "m", Key: "p"}, ""},
		{"OPENAI_BASE_URL as the URL", []string{"-model", "m"}, map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:2/v1"},
			model.Config{Window: 32768, URL: "http://127.0.0.1:2/v1", Model: "m"}, ""},
		{"a flag beats its twin", []string{"-model", "flag"}, map[string]string{"PARLEY_MODEL_URL": "http://127.0.0.1:1/v1", "PARLEY_MODEL": "env"},
			model.Config{Window: 32768, URL: "http://127.0.0.1:1/v1", Model: "flag"}, ""},
		{"a model without a URL", []string{"-model", "m"}, nil, model.Config{}, "-model needs -model-url"},
		{"a URL without a model", []string{"-model-url", "http://127.0.0.1:1/v1"}, nil, model.Config{}, "-model-url needs -model"},
		{"the window from the flag", []string{"-model-url", "http://127.0.0.1:1/v1", "-model", "m", "-model-window", "8192"}, map[string]string{"PARLEY_MODEL_WINDOW": "4096"},
			model.Config{Window: 8192, URL: "http://127.0.0.1:1/v1", Model: "m"}, ""},
		{"the window from the environment", nil, map[string]string{"PARLEY_MODEL_WINDOW": "4096"}, model.Config{Window: 4096}, ""},
		{"a window that is no number", nil, map[string]string{"PARLEY_MODEL_WINDOW": "32k"}, model.Config{}, `PARLEY_MODEL_WINDOW="32k"`},
		{"no key flag", []string{"-model-key", "k"}, nil, model.Config{}, "flag provided but not defined: -model-key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseConfig(c.args, func(k string) string { return c.env[k] }, io.Discard)
			if c.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, cfg.Model)
		})
	}
}
