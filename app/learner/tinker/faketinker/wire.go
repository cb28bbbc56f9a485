package faketinker

import "encoding/json"

// Tensor is a decoded TensorData: {"data":[…],"dtype":…,"shape":[…]}.
type Tensor struct {
	Data              []float64 `json:"data"`
	DType             string    `json:"dtype"`
	Shape             []int     `json:"shape,omitempty"`
	SparseCrowIndices []int     `json:"sparse_crow_indices,omitempty"`
	SparseColIndices  []int     `json:"sparse_col_indices,omitempty"`
}

type wireChunk struct {
	Type   string `json:"type"`
	Tokens []int  `json:"tokens"`
}

type wireInput struct {
	Chunks []wireChunk `json:"chunks"`
}

// tokens joins the encoded_text chunks; ok is false for other chunk types.
func (in wireInput) tokens() ([]int, bool) {
	var out []int
	for _, c := range in.Chunks {
		if c.Type != "encoded_text" {
			return nil, false
		}
		out = append(out, c.Tokens...)
	}
	return out, true
}

type wireDatum struct {
	ModelInput   wireInput         `json:"model_input"`
	LossFnInputs map[string]Tensor `json:"loss_fn_inputs"`
}

type wireFwdInput struct {
	Data         []json.RawMessage  `json:"data"`
	LossFn       string             `json:"loss_fn"`
	LossFnConfig map[string]float64 `json:"loss_fn_config"`
}

type wireFwdRequest struct {
	ModelID      string        `json:"model_id"`
	SeqID        *int          `json:"seq_id"`
	FwdBwdInput  *wireFwdInput `json:"forward_backward_input"`
	ForwardInput *wireFwdInput `json:"forward_input"`
}

type wireLoRA struct {
	Rank         int    `json:"rank"`
	Seed         *int64 `json:"seed"`
	TrainUnembed bool   `json:"train_unembed"`
	TrainMLP     bool   `json:"train_mlp"`
	TrainAttn    bool   `json:"train_attn"`
}

type wireCreateModel struct {
	SessionID  string    `json:"session_id"`
	ModelSeqID *int      `json:"model_seq_id"`
	BaseModel  string    `json:"base_model"`
	LoRAConfig *wireLoRA `json:"lora_config"`
}

// wireModelOp is the body of optim_step, save_weights,
// save_weights_for_sampler and load_weights.
type wireModelOp struct {
	ModelID       string          `json:"model_id"`
	SeqID         *int            `json:"seq_id"`
	AdamParams    *AdamParams     `json:"adam_params"`
	Path          string          `json:"path"`
	Overwrite     bool            `json:"overwrite"`
	Optimizer     bool            `json:"optimizer"`
	SamplerSeqID  *int            `json:"sampling_session_seq_id"`
	TTLSeconds    json.RawMessage `json:"ttl_seconds"`
	WeightsAccess string          `json:"weights_access_token"`
}

// AdamParams are the optimizer settings optim_step received.
type AdamParams struct {
	LearningRate float64 `json:"learning_rate"`
	Beta1        float64 `json:"beta1"`
	Beta2        float64 `json:"beta2"`
	Eps          float64 `json:"eps"`
	WeightDecay  float64 `json:"weight_decay"`
	GradClipNorm float64 `json:"grad_clip_norm"`
}

type wireSamplingParams struct {
	MaxTokens   int             `json:"max_tokens"`
	Seed        *int64          `json:"seed"`
	Stop        json.RawMessage `json:"stop"`
	Temperature *float64        `json:"temperature"`
	TopK        *int            `json:"top_k"`
	TopP        *float64        `json:"top_p"`
}

type wireSample struct {
	SamplingSessionID string             `json:"sampling_session_id"`
	SeqID             *int               `json:"seq_id"`
	NumSamples        int                `json:"num_samples"`
	Prompt            wireInput          `json:"prompt"`
	SamplingParams    wireSamplingParams `json:"sampling_params"`
	PromptLogprobs    bool               `json:"prompt_logprobs"`
	BaseModel         string             `json:"base_model"`
	ModelPath         string             `json:"model_path"`
}

type wireSequence struct {
	StopReason string    `json:"stop_reason"`
	Tokens     []int     `json:"tokens"`
	Logprobs   []float64 `json:"logprobs"`
}

// probe picks the fields the request log records out of any body.
type probe struct {
	SeqID             *int   `json:"seq_id"`
	ModelID           string `json:"model_id"`
	SamplingSessionID string `json:"sampling_session_id"`
	SessionID         string `json:"session_id"`
	RequestID         string `json:"request_id"`
}

func detail(msg string) map[string]string { return map[string]string{"detail": msg} }
