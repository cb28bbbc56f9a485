package tinker

import (
	"context"
	"fmt"
	"strings"
)

// ModelInfo is get_info's answer about a model.
type ModelInfo struct {
	ModelID   string
	ModelName string
	Arch      string
	// TokenizerID is the Hugging Face repo of the tokenizer: the service's
	// model_data.tokenizer_id cut at the first ':', or, when it gives
	// none, TokenizerIDFor(the model name).
	TokenizerID string
	IsLoRA      bool
	LoRARank    int
}

type wireModelInfo struct {
	ModelID   string `json:"model_id"`
	ModelData struct {
		Arch        string `json:"arch"`
		ModelName   string `json:"model_name"`
		TokenizerID string `json:"tokenizer_id"`
	} `json:"model_data"`
	IsLoRA    bool   `json:"is_lora"`
	LoRARank  int    `json:"lora_rank"`
	ModelName string `json:"model_name"`
}

// GetInfo describes a model created with CreateModel.
func (c *Client) GetInfo(ctx context.Context, modelID string) (ModelInfo, error) {
	body, err := marshal("get_info", map[string]string{"type": "get_info", "model_id": modelID})
	if err != nil {
		return ModelInfo{}, err
	}
	var w wireModelInfo
	if err := c.do(ctx, "get_info", body, &w, callOpts{}); err != nil {
		return ModelInfo{}, err
	}
	name := cmpOr(w.ModelName, w.ModelData.ModelName)
	tok, _, _ := strings.Cut(w.ModelData.TokenizerID, ":")
	if tok == "" {
		tok = TokenizerIDFor(name)
	}
	return ModelInfo{ModelID: cmpOr(w.ModelID, modelID), ModelName: name, Arch: w.ModelData.Arch,
		TokenizerID: tok, IsLoRA: w.IsLoRA, LoRARank: w.LoRARank}, nil
}

// TokenizerIDFor guesses the tokenizer repo from a base model name as the
// SDK does: cut at ':', and keep the first two segments of org/model/variant.
func TokenizerIDFor(model string) string {
	name, _, _ := strings.Cut(model, ":")
	if parts := strings.Split(name, "/"); len(parts) == 3 {
		name = parts[0] + "/" + parts[1]
	}
	return name
}

// SupportedModel is one model the service can train or sample.
type SupportedModel struct {
	ModelName        string `json:"model_name"`
	MaxContextLength int    `json:"max_context_length"`
}

// Capabilities are get_server_capabilities' answer.
type Capabilities struct {
	SupportedModels []SupportedModel `json:"supported_models"`
}

// GetServerCapabilities lists the models the service supports.
func (c *Client) GetServerCapabilities(ctx context.Context) (Capabilities, error) {
	var caps Capabilities
	err := c.do(ctx, "get_server_capabilities", nil, &caps, callOpts{get: true})
	return caps, err
}

// Healthz checks that the service answers {"status":"ok"}.
func (c *Client) Healthz(ctx context.Context) error {
	var h struct {
		Status string `json:"status"`
	}
	if err := c.do(ctx, "healthz", nil, &h, callOpts{get: true}); err != nil {
		return err
	}
	if h.Status != "ok" {
		return fmt.Errorf("tinker: healthz: status %q", h.Status)
	}
	return nil
}
