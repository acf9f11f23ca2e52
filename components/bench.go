package components

import (
	"runtime"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// benchHooks expose, on a page opened with ?bench, the Go heap held after a collection, for
// `make bench`'s memory per streamed message (the input bar exposes its own counters).
func benchHooks(ctx app.Context) {
	if !strings.Contains(ctx.Page().URL().RawQuery, "bench") {
		return
	}
	app.Window().Set("parleyHeapLive", app.FuncOf(func(app.Value, []app.Value) any {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc)
	}))
}
