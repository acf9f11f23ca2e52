//go:build race

package script

// raceEnabled: the race detector's shadow memory counts against a child's address space.
const raceEnabled = true
