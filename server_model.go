//go:build !wasm

package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"parley/runtime/agent/model"
)

// defaultModelWindow is a context window many local models have; -model-window says another.
const defaultModelWindow = 32768

// addModelFlags declares the model endpoint's flags on fs and returns what reads them after
// parsing. The key is never a flag (it would show in ps and in shell history): it comes from
// PARLEY_MODEL_KEY, else OPENAI_API_KEY. OPENAI_BASE_URL stands in for the URL, as the usual
// clients read it.
func addModelFlags(fs *flag.FlagSet, getenv func(string) string) func() (model.Config, error) {
	first := func(names ...string) string {
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	var c model.Config
	fs.StringVar(&c.URL, "model-url", first("PARLEY_MODEL_URL", "OPENAI_BASE_URL"),
		"base URL of an OpenAI-compatible Chat Completions endpoint, e.g. http://127.0.0.1:11434/v1 for Ollama; empty keeps the offline agent (PARLEY_MODEL_URL, else OPENAI_BASE_URL). The key comes from PARLEY_MODEL_KEY or OPENAI_API_KEY")
	fs.StringVar(&c.Model, "model", getenv("PARLEY_MODEL"), "the model to ask, e.g. llama3.2 (PARLEY_MODEL); a session can pick another of the endpoint's models")
	window, windowEnv := defaultModelWindow, getenv("PARLEY_MODEL_WINDOW")
	if windowEnv != "" {
		window, _ = strconv.Atoi(windowEnv) // not a number: 0, refused below
	}
	fs.IntVar(&c.Window, "model-window", window,
		"the context window in tokens that the context ring counts against when the endpoint's model list does not say it (PARLEY_MODEL_WINDOW)")
	return func() (model.Config, error) {
		switch {
		case c.Window < 1:
			return c, fmt.Errorf("-model-window (or PARLEY_MODEL_WINDOW=%q) is not a positive number: give the model's context window in tokens, like %d", windowEnv, defaultModelWindow)
		case c.URL == "" && c.Model != "":
			return c, errors.New("-model needs -model-url: the endpoint's base URL, like http://127.0.0.1:11434/v1")
		case c.URL != "" && c.Model == "":
			return c, errors.New("-model-url needs -model: the name of the model to ask, like llama3.2")
		}
		c.Key = first("PARLEY_MODEL_KEY", "OPENAI_API_KEY")
		return c, nil
	}
}
