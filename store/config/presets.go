package config

// Preset is a provider's default base URL and model, and the headers it
// wants on every request.
type Preset struct {
	Name    string
	Label   string
	APIBase string
	Model   string
	API     string // "openai" or "anthropic": the wire format the provider speaks
	Headers map[string]string
}

// Presets lists the providers `setup` offers, in menu order. "custom" has no
// base URL: the person gives one.
var Presets = []Preset{
	{Name: "kimi", Label: "Kimi (Moonshot)", APIBase: "https://api.moonshot.cn/v1", Model: "kimi-k2.5", API: "openai"},
	{Name: "qwen", Label: "Qwen (DashScope)", APIBase: "https://dashscope.aliyuncs.com/compatible-mode/v1", Model: "qwen3-max", API: "openai"},
	{Name: "openai", Label: "OpenAI", APIBase: "https://api.openai.com/v1", Model: "gpt-5.2", API: "openai"},
	{Name: "minimax", Label: "MiniMax", APIBase: "https://api.minimax.io/v1", Model: "MiniMax-M2", API: "openai"},
	{Name: "novita", Label: "Novita AI", APIBase: "https://api.novita.ai/openai/v1", Model: "moonshotai/kimi-k2.5", API: "openai"},
	{Name: "openrouter", Label: "OpenRouter", APIBase: "https://openrouter.ai/api/v1", Model: "moonshotai/kimi-k2.5", API: "openai",
		Headers: map[string]string{"HTTP-Referer": "https://github.com/metaclaw/metaclaw", "X-Title": "MetaClaw"}},
	{Name: "volcengine", Label: "Volcengine Ark", APIBase: "https://ark.cn-beijing.volces.com/api/v3", Model: "doubao-seed-1-6-250615", API: "openai"},
	{Name: "anthropic", Label: "Anthropic", APIBase: "https://api.anthropic.com/v1", Model: "claude-sonnet-4-5", API: "anthropic"},
	{Name: "custom", Label: "Custom OpenAI-compatible endpoint", API: "openai"},
}

// PresetByName returns the preset for a provider name.
func PresetByName(name string) (Preset, bool) {
	for _, p := range Presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}
