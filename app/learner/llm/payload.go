package llm

// The request and response shapes of the two APIs, reduced to what
// Complete sends and reads.

// chatRequest is an OpenAI Chat Completions request.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"` // sent even when 0
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
}

// chatMessage is one message with plain-text content.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// responseFormat is {"type":"json_object"}.
type responseFormat struct {
	Type string `json:"type"`
}

// chatResponse is the part of a Chat Completions answer Complete reads.
type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"` // null reads as ""
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// messagesRequest is an Anthropic Messages request.
type messagesRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    []textBlock        `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
}

// anthropicMessage is one message with content blocks.
type anthropicMessage struct {
	Role    string      `json:"role"`
	Content []textBlock `json:"content"`
}

// textBlock is a text content block.
type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// messagesResponse is the part of a Messages answer Complete reads: its
// content blocks, of which only "text" ones are kept.
type messagesResponse struct {
	Content []textBlock `json:"content"`
	Usage   struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}
