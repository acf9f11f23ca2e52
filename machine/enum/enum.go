// Package enum names the values of the machines' typed-int enums. Each enum keeps its names
// in one table indexed by value, and its String method is one call to Name, so that a
// value outside the table prints as its type and number (Mode(7)) the same way everywhere.
package enum

import (
	"reflect"
	"strconv"
)

// Name returns names[v], or "T(v)" with T the name of v's type when the table has no entry.
func Name[T ~int](names []string, v T) string {
	if i := int(v); i >= 0 && i < len(names) && names[i] != "" {
		return names[i]
	}
	return reflect.TypeFor[T]().Name() + "(" + strconv.Itoa(int(v)) + ")"
}
