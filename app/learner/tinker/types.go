package tinker

import (
	"encoding/json"
	"math"
)

// Tensor dtypes on the wire.
const (
	DTypeInt64   = "int64"
	DTypeFloat32 = "float32"
)

// ChunkEncodedText is the type of a chunk of token ids.
const ChunkEncodedText = "encoded_text"

// Chunk is one piece of a ModelInput. Only encoded_text chunks are built
// by this package.
type Chunk struct {
	Type   string `json:"type"`
	Tokens []int  `json:"tokens"`
}

// ModelInput is a model's input: {"chunks":[{"type":"encoded_text","tokens":[…]}]}.
type ModelInput struct {
	Chunks []Chunk `json:"chunks"`
}

// TokensInput is a ModelInput of one encoded_text chunk.
func TokensInput(tokens []int) ModelInput {
	return ModelInput{Chunks: []Chunk{{Type: ChunkEncodedText, Tokens: append([]int(nil), tokens...)}}}
}

// Len is the number of tokens in the input's encoded_text chunks.
func (m ModelInput) Len() int {
	n := 0
	for _, c := range m.Chunks {
		n += len(c.Tokens)
	}
	return n
}

// Tokens is the concatenation of the input's encoded_text chunks.
func (m ModelInput) Tokens() []int {
	out := make([]int, 0, m.Len())
	for _, c := range m.Chunks {
		out = append(out, c.Tokens...)
	}
	return out
}

// TensorData is a tensor on the wire: {"data":[…],"dtype":"int64","shape":[n]}.
// Data holds the values as float64 (int64 values up to 2⁵³ are exact and
// encode without a fraction). For sparse CSR tensors Data holds the
// non-zeros and Shape is required.
type TensorData struct {
	Data              []float64 `json:"data"`
	DType             string    `json:"dtype"`
	Shape             []int     `json:"shape,omitempty"`
	SparseCrowIndices []int     `json:"sparse_crow_indices,omitempty"`
	SparseColIndices  []int     `json:"sparse_col_indices,omitempty"`
}

// IntTensor is a 1-D int64 tensor.
func IntTensor(v []int) TensorData {
	d := make([]float64, len(v))
	for i, x := range v {
		d[i] = float64(x)
	}
	return TensorData{Data: d, DType: DTypeInt64, Shape: []int{len(v)}}
}

// FloatTensor is a 1-D float32 tensor.
func FloatTensor(v []float64) TensorData {
	return TensorData{Data: append([]float64(nil), v...), DType: DTypeFloat32, Shape: []int{len(v)}}
}

// Ints returns the values as ints (for int64 tensors).
func (t TensorData) Ints() []int {
	out := make([]int, len(t.Data))
	for i, x := range t.Data {
		out[i] = int(math.Round(x))
	}
	return out
}

// Datum is one training example: {"model_input":…,"loss_fn_inputs":{name: TensorData}}.
type Datum struct {
	ModelInput   ModelInput            `json:"model_input"`
	LossFnInputs map[string]TensorData `json:"loss_fn_inputs"`
}

// LoRAConfig configures the adapter trained by a model. A zero Rank means
// 32; all three Train flags false means all true (the service rejects a
// config that trains nothing).
type LoRAConfig struct {
	Rank         int    `json:"rank"`
	Seed         *int64 `json:"seed,omitempty"`
	TrainUnembed bool   `json:"train_unembed"`
	TrainMLP     bool   `json:"train_mlp"`
	TrainAttn    bool   `json:"train_attn"`
}

func (l LoRAConfig) normalized() LoRAConfig {
	if l.Rank == 0 {
		l.Rank = 32
	}
	if !l.TrainUnembed && !l.TrainMLP && !l.TrainAttn {
		l.TrainUnembed, l.TrainMLP, l.TrainAttn = true, true, true
	}
	return l
}

// AdamParams are optim_step's AdamW settings. GradClipNorm 0 turns
// clipping off.
type AdamParams struct {
	LearningRate float64 `json:"learning_rate"`
	Beta1        float64 `json:"beta1"`
	Beta2        float64 `json:"beta2"`
	Eps          float64 `json:"eps"`
	WeightDecay  float64 `json:"weight_decay"`
	GradClipNorm float64 `json:"grad_clip_norm"`
}

// DefaultAdamParams are the service's defaults.
func DefaultAdamParams() AdamParams {
	return AdamParams{LearningRate: 1e-4, Beta1: 0.9, Beta2: 0.95, Eps: 1e-12}
}

// SamplingParams control asample. Temperature is sent as given, so zero
// means greedy: start from DefaultSamplingParams. TopK 0 is sent as -1
// (off) and TopP 0 as 1 (off). At most one of StopTokens and StopStrings
// may be set.
type SamplingParams struct {
	MaxTokens      int // 0 leaves it to the service
	Seed           *int64
	StopTokens     []int
	StopStrings    []string
	Temperature    float64
	TopK           int
	TopP           float64
	PromptLogprobs bool // also return the prompt tokens' logprobs
}

// DefaultSamplingParams are temperature 1, no top-k or top-p, maxTokens.
func DefaultSamplingParams(maxTokens int) SamplingParams {
	return SamplingParams{MaxTokens: maxTokens, Temperature: 1, TopK: -1, TopP: 1}
}

// wireSamplingParams is SamplingParams as sent.
type wireSamplingParams struct {
	MaxTokens   int             `json:"max_tokens,omitempty"`
	Seed        *int64          `json:"seed,omitempty"`
	Stop        json.RawMessage `json:"stop"`
	Temperature float64         `json:"temperature"`
	TopK        int             `json:"top_k"`
	TopP        float64         `json:"top_p"`
}

func (p SamplingParams) wire() wireSamplingParams {
	w := wireSamplingParams{MaxTokens: p.MaxTokens, Seed: p.Seed, Stop: json.RawMessage("null"),
		Temperature: p.Temperature, TopK: p.TopK, TopP: p.TopP}
	if w.TopK == 0 {
		w.TopK = -1
	}
	if w.TopP == 0 {
		w.TopP = 1
	}
	switch {
	case len(p.StopTokens) > 0:
		w.Stop, _ = json.Marshal(p.StopTokens)
	case len(p.StopStrings) > 0:
		w.Stop, _ = json.Marshal(p.StopStrings)
	}
	return w
}

// SampledSequence is one completion.
type SampledSequence struct {
	StopReason string    `json:"stop_reason"` // "stop" or "length"
	Tokens     []int     `json:"tokens"`
	Logprobs   []float64 `json:"logprobs,omitempty"` // one per token
}

// SampleResult is asample's answer.
type SampleResult struct {
	Sequences []SampledSequence
	// PromptLogprobs has one entry per prompt token when asked for; NaN
	// where the service gives none (the first token).
	PromptLogprobs []float64
	// SeqID is the asample seq_id that produced the result.
	SeqID int
}

type wireSampleResult struct {
	Sequences      []SampledSequence `json:"sequences"`
	PromptLogprobs []*float64        `json:"prompt_logprobs"`
}

func (w wireSampleResult) result(seq int) SampleResult {
	r := SampleResult{Sequences: w.Sequences, SeqID: seq}
	if w.PromptLogprobs != nil {
		r.PromptLogprobs = make([]float64, len(w.PromptLogprobs))
		for i, p := range w.PromptLogprobs {
			r.PromptLogprobs[i] = math.NaN()
			if p != nil {
				r.PromptLogprobs[i] = *p
			}
		}
	}
	return r
}
