package components

import (
	"encoding/json"

	"parley/protocol"
)

func decodeInto(ev protocol.Event, v any) error { return json.Unmarshal(ev.Data, v) }
