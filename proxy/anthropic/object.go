package anthropic

import "github.com/metaclaw/metaclaw/proxy/internal/rawjson"

// The ordered-raw-JSON helpers live in proxy/internal/rawjson, shared with
// the other wire package; these names keep this package's code short.
type (
	object    = rawjson.Object
	objWriter = rawjson.Writer
)

var (
	parseObject = rawjson.ParseObject
	isNull      = rawjson.IsNull
	rawArray    = rawjson.RawArray
	marshalJSON = rawjson.Marshal
)
