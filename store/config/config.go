// Package config is MetaClaw's typed configuration: every key with its
// default, its validation and its documentation, read from and written to the
// settings table of the store, and imported from or exported to the
// reference implementation's config.yaml layout. It imports only store; every
// package above store may import it.
//
// The Config struct is the single source of truth: the struct tags give each
// field its dotted key (as in the reference YAML), default, checks and doc,
// and Fields derives the key table from them by reflection, once.
package config

// Config is the whole configuration. Field tags:
//
//	key      the YAML name; nested structs join names with dots
//	default  the default value, as text
//	enum     allowed values, separated by |
//	check    url | hhmm | port | host | path | origins
//	min, max bounds for numbers
//	secret   "true" for credentials: masked in output, never logged
//	alias    older names accepted for the same key, separated by |
//	doc      one line for `config show`, the web page and errors
type Config struct {
	Mode             string `key:"mode" default:"madmax" enum:"madmax|rl|skills_only" doc:"what runs: skills only, RL training as soon as a batch is full, or RL in training windows"`
	ClawType         string `key:"claw_type" default:"openclaw" enum:"openclaw|copaw|ironclaw|picoclaw|zeroclaw|nanoclaw|nemoclaw|hermes|claude-code|none" doc:"the agent metaclaw start points at the proxy (once chosen in setup or set); none = leave every agent alone"`
	MaxContextTokens int    `key:"max_context_tokens" default:"0" min:"0" doc:"prompt token limit past which the oldest turns are cut; 0 = auto: never toward llm.* (the agent compacts its own history), the trained model's context (max_context_length - max_tokens) in rl/madmax"`
	ContextWindow    int    `key:"context_window" default:"0" min:"0" doc:"context window metaclaw connect announces to the agent; 0 = auto: the limit MetaClaw cuts at (see max_context_tokens), else 200000"`

	// Programmatic rollout, under the reference's names.
	OpenClawEnvDataDir     string `key:"openclaw_env_data_dir" check:"path" doc:"folder of JSONL task files ({\"task_id\", \"instruction\"}) run through the agent without its TUI; empty = off"`
	OpenClawEnvSplit       string `key:"openclaw_env_split" default:"train" doc:"task file read from openclaw_env_data_dir (<split>.jsonl; every *.jsonl when absent)"`
	OpenClawEnvConcurrency int    `key:"openclaw_env_concurrency" default:"4" min:"1" max:"32" doc:"rollout episodes run at once"`
	OpenClawEnvMaxSteps    int    `key:"openclaw_env_max_steps" default:"15" min:"1" max:"200" doc:"most model calls of one episode of the built-in loop"`
	OpenClawEnvRounds      int    `key:"openclaw_env_rounds" default:"1" min:"0" doc:"episodes per task; 0 = forever, as the reference"`

	LLM       LLM       `key:"llm"`
	Proxy     Proxy     `key:"proxy"`
	Web       Web       `key:"web"`
	Skills    Skills    `key:"skills"`
	Memory    Memory    `key:"memory"`
	RL        RL        `key:"rl"`
	OPD       OPD       `key:"opd"`
	Scheduler Scheduler `key:"scheduler"`
	WeChat    WeChat    `key:"wechat"`
	Learning  Learning  `key:"learning"`
}

// Learning bounds what learning costs the person: the model calls the
// judge, the evolver and memory extraction make with their keys.
type Learning struct {
	MaxCallsPerDay int    `key:"max_calls_per_day" default:"1000" min:"0" doc:"most model calls learning makes a day (judge, evolver, extraction); past it learning pauses itself until midnight and says so; 0 = no limit"`
	Judge          string `key:"judge" default:"auto" enum:"auto|every_turn|session_end|off" doc:"when turns are judged: auto = every main turn in rl/madmax (training needs each reward), at session end in skills_only; session_end judges only the answers evolution reads"`
	SessionVotes   int    `key:"session_votes" default:"1" min:"1" max:"15" doc:"judge votes per turn when judging at session end (rl.prm_votes counts for every-turn judging)"`
}

// Judging modes (learning.judge as it applies).
const (
	JudgeEveryTurn  = "every_turn"
	JudgeSessionEnd = "session_end"
	JudgeOff        = "off"
)

// JudgeMode is learning.judge as it applies in the effective mode: auto
// judges every turn where the policy trains and at session end otherwise.
func (c *Config) JudgeMode() string {
	switch c.Learning.Judge {
	case "", "auto":
		if c.Resolve().Mode == ModeSkillsOnly {
			return JudgeSessionEnd
		}
		return JudgeEveryTurn
	}
	return c.Learning.Judge
}

// LLM is the upstream provider the agent's calls go to.
type LLM struct {
	Provider string `key:"provider" default:"kimi" enum:"kimi|qwen|openai|minimax|novita|openrouter|volcengine|anthropic|custom" doc:"provider preset"`
	ModelID  string `key:"model_id" default:"kimi-k2.5" doc:"upstream model id"`
	APIBase  string `key:"api_base" default:"https://api.moonshot.cn/v1" check:"url" doc:"upstream base URL, usually ending in /v1"`
	APIKey   string `key:"api_key" secret:"true" doc:"upstream API key"`
}

// Proxy is the local endpoint agents talk to.
type Proxy struct {
	Host                 string `key:"host" default:"127.0.0.1" check:"host" doc:"address the proxy listens on"`
	Port                 int    `key:"port" default:"30000" check:"port" doc:"port the proxy listens on"`
	APIKey               string `key:"api_key" secret:"true" doc:"optional bearer token clients must send to the proxy"`
	MaxBodyBytes         int    `key:"max_body_bytes" default:"33554432" min:"1024" doc:"largest request body accepted, in bytes"`
	ForwardClientAuth    bool   `key:"forward_client_auth" default:"false" doc:"send the caller's own Authorization / x-api-key upstream instead of llm.api_key"`
	SessionIdleMinutes   int    `key:"session_idle_minutes" default:"30" min:"1" doc:"a session ends after this many minutes without a turn"`
	ModelMapping         string `key:"model_mapping" default:"auto" enum:"auto|always|never" doc:"replace the client's model with llm.model_id: auto (unless the upstream serves the client's model), always, never"`
	ConnectTimeoutSec    int    `key:"connect_timeout_seconds" default:"10" min:"1" doc:"upstream connect timeout"`
	FirstByteTimeoutSec  int    `key:"first_byte_timeout_seconds" default:"120" min:"1" doc:"longest wait for the upstream's response headers (a non-streamed answer's whole generation)"`
	RetryOnTimeout       bool   `key:"retry_on_timeout" default:"false" doc:"retry a request whose upstream did not answer within first_byte_timeout_seconds (it may be billed again)"`
	StreamIdleTimeoutSec int    `key:"stream_idle_timeout_seconds" default:"120" min:"1" doc:"longest silence between two streamed events"`
	MaxRetries           int    `key:"max_retries" default:"2" min:"0" max:"10" doc:"retries on connect errors, 429 and 5xx, only before any byte reached the client"`
	InjectTimeoutMS      int    `key:"inject_timeout_ms" default:"200" min:"1" doc:"longest wait for skills and memories before a turn goes out without them"`
	AllowedOrigins       string `key:"allowed_origins" check:"origins" doc:"browser pages (origins such as http://localhost:5173, comma-separated) allowed to call the proxy; empty = none"`
	MaxInflightBytes     int    `key:"max_inflight_bytes" default:"268435456" min:"1048576" doc:"memory the request bodies in flight may hold together, in bytes; over it a request waits briefly, then gets 503"`
	MaxConnsPerAddress   int    `key:"max_connections_per_address" default:"256" min:"1" doc:"most open connections from one remote address"`
	FallbackProvider     string `key:"fallback_provider" default:"custom" enum:"kimi|qwen|openai|minimax|novita|openrouter|volcengine|anthropic|custom" doc:"provider preset of the fallback upstream"`
	FallbackAPIBase      string `key:"fallback_api_base" check:"url" doc:"fallback upstream base URL, used when the primary fails; empty = none"`
	FallbackAPIKey       string `key:"fallback_api_key" secret:"true" doc:"fallback upstream API key"`
	FallbackModelID      string `key:"fallback_model_id" doc:"model used on the fallback upstream; empty = llm.model_id"`
}

// Web is the local web page.
type Web struct {
	Host string `key:"host" default:"127.0.0.1" check:"host" doc:"address the web page listens on"`
	Port int    `key:"port" default:"30001" check:"port" doc:"port of the web page"`
}

// Skills configures the skill library, retrieval and evolution.
type Skills struct {
	Enabled          bool   `key:"enabled" default:"true" doc:"inject skills into main turns"`
	Dir              string `key:"dir" default:"" check:"path" doc:"the skills folder: SKILL.md files kept in step with the library; empty = <data dir>/skills"`
	SyncDir          bool   `key:"sync_dir" default:"true" doc:"keep skills.dir a live view of the library (files in, library changes out); false = leave the folder alone"`
	RetrievalMode    string `key:"retrieval_mode" default:"keyword" enum:"keyword|template|embedding|hybrid" doc:"keyword (BM25), embedding, hybrid; template = keyword"`
	TopK             int    `key:"top_k" default:"6" min:"0" max:"100" doc:"most skills injected per turn"`
	TaskSpecificTopK int    `key:"task_specific_top_k" default:"10" min:"0" max:"100" doc:"most task-specific skills considered per turn"`
	MaxTokens        int    `key:"max_tokens" default:"1500" min:"0" doc:"token budget for injected skills"`
	AutoEvolve       bool   `key:"auto_evolve" default:"true" doc:"evolve skills after each session"`
	EvolveEveryTurns int    `key:"evolution_every_n_turns" default:"20" min:"0" doc:"also evolve every this many main turns of a session; 0 = only at session end"`
	EmbeddingAPIBase string `key:"embedding_api_base" check:"url" doc:"OpenAI-compatible /v1/embeddings base URL for embedding retrieval; empty = llm.api_base"`
	EmbeddingAPIKey  string `key:"embedding_api_key" secret:"true" doc:"embeddings API key; empty = llm.api_key"`
	EmbeddingModel   string `key:"embedding_model" default:"text-embedding-3-small" doc:"embedding model"`
	GeneralTopK      int    `key:"general_top_k" default:"2" min:"0" max:"20" doc:"most general-habit skills injected per turn (they count against max_tokens)"`
	WriteAsks        bool   `key:"write_asks" default:"true" doc:"have the evolver's model write, for each skill without them, example requests it fits (its asks), which retrieval searches; false = only the asks of SKILL.md files"`
	AskLanguages     string `key:"ask_languages" default:"auto" check:"languages" doc:"languages besides English to write skills' asks in, searched for requests in them: auto = each one the person has written 3 requests in; none; or codes such as de,es (de es fr it pt)"`
}

// Memory configures long-term memory.
type Memory struct {
	Enabled           bool   `key:"enabled" default:"true" doc:"inject memories into main turns"`
	Scope             string `key:"scope" default:"default" doc:"scope used when a request names none"`
	AutoExtract       bool   `key:"auto_extract" default:"true" doc:"extract memories at session end"`
	FlushEvery        int    `key:"flush_every" default:"10" min:"1" doc:"also extract every this many main turns"`
	MaxInjectedUnits  int    `key:"max_injected_units" default:"6" min:"0" max:"100" doc:"most memories injected per turn"`
	MaxInjectedTokens int    `key:"max_injected_tokens" default:"800" min:"0" doc:"token budget for injected memories"`
	RetrievalMode     string `key:"retrieval_mode" default:"keyword" enum:"keyword|embedding|hybrid" doc:"keyword (BM25), embedding or hybrid"`
	ExtractAPIBase    string `key:"extract_api_base" check:"url" doc:"extraction model base URL; empty = llm.api_base"`
	ExtractAPIKey     string `key:"extract_api_key" secret:"true" doc:"extraction model API key; empty = llm.api_key"`
	ExtractModel      string `key:"extract_model" doc:"extraction model; empty = llm.model_id"`
	EpisodeHalfLife   int    `key:"episode_half_life_days" default:"30" min:"1" doc:"an unused episode summary loses half its weight in this many days, then fades out"`
}

// RL configures the training backend, the judge and the evolver.
type RL struct {
	Enabled         bool    `key:"enabled" default:"false" doc:"enable RL training (implied by mode rl and madmax)"`
	Backend         string  `key:"backend" default:"auto" enum:"auto|tinker|mint|weaver" doc:"training service: tinker or mint (Tinker protocol), weaver (Weaver REST API); auto picks weaver for a weaver base URL, mint for an sk-mint- key or mint URL, else tinker"`
	Model           string  `key:"model" default:"Qwen/Qwen3-8B" doc:"base model trained with LoRA"`
	APIKey          string  `key:"api_key" secret:"true" alias:"tinker_api_key" doc:"training service API key"`
	BaseURL         string  `key:"base_url" check:"url" alias:"tinker_base_url" doc:"training service base URL; empty = the backend's default"`
	PRMURL          string  `key:"prm_url" default:"https://api.openai.com/v1" check:"url" doc:"judge (PRM) base URL"`
	PRMModel        string  `key:"prm_model" default:"gpt-5.2" doc:"judge model"`
	PRMAPIKey       string  `key:"prm_api_key" secret:"true" doc:"judge API key"`
	PRMVotes        int     `key:"prm_votes" default:"3" min:"0" max:"15" doc:"judge votes per turn (majority wins, ties 0); 0 turns the judge off"`
	LoRARank        int     `key:"lora_rank" default:"32" min:"1" max:"1024" doc:"LoRA rank"`
	BatchSize       int     `key:"batch_size" default:"4" min:"1" doc:"samples per training step"`
	ResumeFromCkpt  string  `key:"resume_from_ckpt" doc:"checkpoint path to resume training from"`
	EvolverAPIBase  string  `key:"evolver_api_base" check:"url" doc:"skill evolver base URL; empty = llm.api_base"`
	EvolverAPIKey   string  `key:"evolver_api_key" secret:"true" doc:"skill evolver API key; empty = llm.api_key"`
	EvolverModel    string  `key:"evolver_model" default:"gpt-5.2" doc:"skill evolver model"`
	LearningRate    float64 `key:"learning_rate" default:"0.0001" min:"0" doc:"Adam learning rate"`
	AdamBeta1       float64 `key:"adam_beta1" default:"0.9" min:"0" max:"1" doc:"Adam beta1"`
	AdamBeta2       float64 `key:"adam_beta2" default:"0.95" min:"0" max:"1" doc:"Adam beta2"`
	AdamEps         float64 `key:"adam_eps" default:"1e-08" min:"0" doc:"Adam epsilon"`
	WeightDecay     float64 `key:"weight_decay" default:"0" min:"0" doc:"AdamW decoupled weight decay"`
	GradClipNorm    float64 `key:"grad_clip_norm" default:"0" min:"0" doc:"gradient clipping norm; 0 turns clipping off"`
	GroupSize       int     `key:"group_size" default:"4" min:"1" max:"64" doc:"responses per prompt for group-relative advantages (group_size-1 extra samples in a window); 1 normalises over the batch"`
	AdvantageStd    bool    `key:"advantage_std" default:"true" doc:"divide advantages by the group's standard deviation"`
	LossFn          string  `key:"loss_fn" default:"importance_sampling" enum:"importance_sampling|ppo|cispo" doc:"training loss"`
	PPOClipLow      float64 `key:"ppo_clip_low" default:"0.8" min:"0" doc:"ppo: lower ratio clip"`
	PPOClipHigh     float64 `key:"ppo_clip_high" default:"1.2" min:"0" doc:"ppo: upper ratio clip"`
	CISPOClipLow    float64 `key:"cispo_clip_low" default:"0" min:"0" doc:"cispo: lower ratio clip"`
	CISPOClipHigh   float64 `key:"cispo_clip_high" default:"4" min:"0" doc:"cispo: upper ratio clip"`
	CheckpointEvery int     `key:"checkpoint_every" default:"10" min:"1" doc:"save full training state every this many steps (and when a window closes)"`
	Tokenizer       string  `key:"tokenizer" doc:"Hugging Face repo of the tokenizer and chat template; empty = the one the service reports for rl.model"`
	HFEndpoint      string  `key:"hf_endpoint" default:"https://huggingface.co" check:"url" doc:"Hugging Face Hub the tokenizer is fetched from on first use"`
	MaxTokens       int     `key:"max_tokens" default:"4096" min:"1" doc:"sampling limit when the request names none"`
}

// WeChat configures OpenClaw's WeChat channel, which `metaclaw start`
// installs and enables when OpenClaw is the agent.
type WeChat struct {
	Enabled    bool   `key:"enabled" default:"false" doc:"install and enable OpenClaw's WeChat channel plugin on start (log in with start --wechat-relogin)"`
	PluginSpec string `key:"plugin_spec" default:"@tencent-weixin/openclaw-weixin@latest" doc:"npm spec of the plugin, as openclaw plugins install takes it"`
}

// OPD configures on-policy distillation from a teacher model.
type OPD struct {
	Enabled       bool    `key:"enabled" default:"false" doc:"enable on-policy distillation"`
	TeacherURL    string  `key:"teacher_url" check:"url" doc:"teacher base URL (OpenAI-compatible /v1/completions)"`
	TeacherModel  string  `key:"teacher_model" doc:"teacher model name"`
	TeacherAPIKey string  `key:"teacher_api_key" secret:"true" doc:"teacher API key"`
	KLPenaltyCoef float64 `key:"kl_penalty_coef" default:"1.0" min:"0" doc:"KL penalty coefficient"`
}

// Scheduler configures madmax training windows.
type Scheduler struct {
	Enabled              bool     `key:"enabled" default:"false" doc:"use training windows (always on in madmax)"`
	SleepStart           string   `key:"sleep_start" default:"23:00" check:"hhmm" doc:"sleep hours start, local HH:MM"`
	SleepEnd             string   `key:"sleep_end" default:"07:00" check:"hhmm" doc:"sleep hours end, local HH:MM"`
	IdleThresholdMinutes int      `key:"idle_threshold_minutes" default:"30" min:"1" doc:"keyboard idle minutes that open a window"`
	MinWindowMinutes     int      `key:"min_window_minutes" default:"15" min:"1" doc:"shortest window worth training in"`
	ScreenPollSeconds    int      `key:"screen_poll_seconds" default:"60" min:"5" doc:"screen-activity fallback interval"`
	ScreenFallback       bool     `key:"screen_fallback" default:"true" doc:"watch the screen for changes when no keyboard idle source works (frames stay in memory)"`
	Calendar             Calendar `key:"calendar"`
}

// Calendar configures the Google Calendar signal.
type Calendar struct {
	Enabled         bool   `key:"enabled" default:"false" doc:"open windows during calendar meetings"`
	CredentialsPath string `key:"credentials_path" check:"path" doc:"OAuth client secrets JSON"`
	TokenPath       string `key:"token_path" check:"path" doc:"where the OAuth token is kept (mode 0600)"`
}
