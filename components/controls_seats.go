package components

// The controls row fills the composer's seats from its own package, registered at init.
import _ "parley/components/controls"
