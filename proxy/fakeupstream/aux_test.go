package fakeupstream

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
)

// cosine returns the cosine similarity of two vectors.
func cosine(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

func TestEmbeddings(t *testing.T) {
	s, base := startServer(t)
	client := openaiClient(base)
	inputs := []string{"the cat sat on the mat", "The cat sat on a mat!", "quantum chromodynamics lecture"}
	res, err := client.Embeddings.New(context.Background(), openai.EmbeddingNewParams{
		Model: openai.EmbeddingModelTextEmbedding3Small,
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: inputs},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Data) != 3 || res.Model != "text-embedding-3-small" || res.Usage.PromptTokens == 0 || res.Object != "list" {
		t.Fatalf("response = %+v", res)
	}
	for i, d := range res.Data {
		if int(d.Index) != i || len(d.Embedding) != DefaultEmbeddingDim {
			t.Errorf("data[%d]: index %d, dim %d", i, d.Index, len(d.Embedding))
		}
		if n := cosine(d.Embedding, d.Embedding); math.Abs(n-1) > 1e-5 {
			t.Errorf("data[%d] not normalised", i)
		}
	}
	near, far := cosine(res.Data[0].Embedding, res.Data[1].Embedding), cosine(res.Data[0].Embedding, res.Data[2].Embedding)
	if near < 0.7 || far > near {
		t.Errorf("similarities: near %.3f far %.3f", near, far)
	}

	// Deterministic, dimension configurable, single string input.
	s.SetEmbeddingDim(8)
	again, err := client.Embeddings.New(context.Background(), openai.EmbeddingNewParams{
		Model: "e", Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String(inputs[0])},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Embed(inputs[0], 8)
	got := make([]float32, len(again.Data[0].Embedding))
	for i, v := range again.Data[0].Embedding {
		got[i] = float32(v)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("embedding (-want +got):\n%s", diff)
	}
}

func TestEmbeddingsBase64AndDimensions(t *testing.T) {
	_, base := startServer(t)
	resp := post(t, base+"/v1/embeddings", `{"model":"e","input":[[1,2,3]],"encoding_format":"base64","dimensions":16}`, nil)
	var body struct {
		Data []struct {
			Embedding string `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(body.Data[0].Embedding)
	if err != nil || len(raw) != 16*4 {
		t.Fatalf("base64 embedding: %d bytes, %v", len(raw), err)
	}
	want := Embed("1 2 3", 16)
	for i := range want {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])); got != want[i] {
			t.Errorf("component %d = %v, want %v", i, got, want[i])
		}
	}
}

func TestEmbeddingsQueuedError(t *testing.T) {
	s, base := startServer(t)
	s.EnqueueFor("/v1/embeddings", Reply{Status: 500})
	s.Enqueue(TextReply("for chat only"))
	_, err := openaiClient(base).Embeddings.New(context.Background(), openai.EmbeddingNewParams{
		Model: "e", Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("x")},
	})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
		t.Errorf("err = %v", err)
	}
	if s.Pending() != 1 {
		t.Errorf("embeddings consumed the shared queue")
	}
	resp := post(t, base+"/v1/embeddings", `{"input":{"bad":true}}`, nil)
	if resp.StatusCode != 400 {
		t.Errorf("bad input: status %d", resp.StatusCode)
	}
}

func TestCompletionsEchoLogprobs(t *testing.T) {
	_, base := startServer(t)
	prompt := "The quick brown fox\njumps over"
	res, err := openaiClient(base).Completions.New(context.Background(), openai.CompletionNewParams{
		Model:     "teacher",
		Prompt:    openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)},
		Echo:      openai.Bool(true),
		Logprobs:  openai.Int(2),
		MaxTokens: openai.Int(0),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Object != "text_completion" || res.Model != "teacher" || len(res.Choices) != 1 {
		t.Fatalf("response = %+v", res)
	}
	c := res.Choices[0]
	lp := c.Logprobs
	wantTokens := []string{"The", " quick", " brown", " fox", "\njumps", " over"}
	if c.Text != prompt || c.FinishReason != "length" {
		t.Errorf("text %q finish %q", c.Text, c.FinishReason)
	}
	if diff := cmp.Diff(wantTokens, lp.Tokens); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{0, 3, 9, 15, 19, 25}, lp.TextOffset); diff != "" {
		t.Errorf("offsets (-want +got):\n%s", diff)
	}
	raw := c.Logprobs.JSON.TokenLogprobs.Raw()
	if !strings.HasPrefix(raw, "[null,") {
		t.Errorf("first token logprob not null: %s", raw)
	}
	// openai-go drops top_logprobs when its first element is null (as the
	// real API sends it with echo), so decode the raw JSON.
	var tops []map[string]float64
	if err := json.Unmarshal([]byte(lp.JSON.TopLogprobs.Raw()), &tops); err != nil || len(tops) != len(wantTokens) || tops[0] != nil {
		t.Fatalf("top_logprobs %s: %v", lp.JSON.TopLogprobs.Raw(), err)
	}
	for i := 1; i < len(wantTokens); i++ {
		want := TokenLogprob(wantTokens[i-1], wantTokens[i])
		if lp.TokenLogprobs[i] != want || want >= 0 {
			t.Errorf("logprob %d = %v, want %v", i, lp.TokenLogprobs[i], want)
		}
		if top := tops[i]; len(top) != 3 || top[wantTokens[i]] != want {
			t.Errorf("top_logprobs[%d] = %v", i, top)
		}
	}
	if res.Usage.PromptTokens != 6 || res.Usage.CompletionTokens != 0 {
		t.Errorf("usage = %+v", res.Usage)
	}
}

func TestCompletionsGenerate(t *testing.T) {
	s, base := startServer(t)
	s.EnqueueFor("/v1/completions", TextReply(" one two three four"))
	resp := post(t, base+"/v1/completions", `{"model":"m","prompt":["a b","c"],"max_tokens":2}`, nil)
	var body oaCompletion
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if len(body.Choices) != 2 || body.Choices[0].Text != " one two" || body.Choices[1].Index != 1 ||
		body.Choices[0].FinishReason != "length" || body.Choices[0].Logprobs != nil || body.Usage.CompletionTokens != 4 {
		t.Errorf("body = %+v", body)
	}
}

func TestCountTokens(t *testing.T) {
	_, base := startServer(t)
	res, err := anthropicClient(base).Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{
		Model:    "claude-sonnet-4-5",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("count me"))},
	})
	if err != nil || res.InputTokens <= 0 {
		t.Errorf("count tokens: %v %+v", err, res)
	}
}

func TestTokenizeRoundTrip(t *testing.T) {
	for _, s := range []string{"", "  lead", "trail  ", "a\n\nb c", "ünï cödé"} {
		if got := strings.Join(Tokenize(s), ""); got != s {
			t.Errorf("Tokenize(%q) joins to %q", s, got)
		}
	}
}

func TestSplitRunes(t *testing.T) {
	got := splitRunes("héllo👍x", 2)
	want := []string{"hé", "ll", "o👍", "x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
