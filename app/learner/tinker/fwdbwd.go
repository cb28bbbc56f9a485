package tinker

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// FwdBwdResult is the result of ForwardBackward or Forward over all datums.
type FwdBwdResult struct {
	LossFnOutputType string
	// Outputs has one entry per datum, in order; each holds at least
	// "logprobs" (the target tokens' logprobs).
	Outputs []map[string]TensorData
	// Metrics are the chunks' metrics merged: name:mean weighted by datum
	// count, name:sum summed, name:min and name:max reduced, names without
	// a reduction treated as means, other reductions (slack, unique,
	// hash_unordered) taken from the first chunk that has them.
	Metrics map[string]float64
	// SeqIDs are the seq ids of the chunks, in data order.
	SeqIDs []int
}

type wireFwdBwdResult struct {
	LossFnOutputType string                  `json:"loss_fn_output_type"`
	LossFnOutputs    []map[string]TensorData `json:"loss_fn_outputs"`
	Metrics          map[string]float64      `json:"metrics"`
}

type fwdInput struct {
	Data         []json.RawMessage  `json:"data"`
	LossFn       string             `json:"loss_fn"`
	LossFnConfig map[string]float64 `json:"loss_fn_config,omitempty"`
}

// fwdKind names the two forward endpoints.
type fwdKind struct{ endpoint, inputKey, reqType string }

var (
	kindFwdBwd = fwdKind{"forward_backward", "forward_backward_input", "ForwardBackward"}
	kindFwd    = fwdKind{"forward", "forward_input", "Forward"}
)

// ForwardBackward computes the loss lossFn (with lossCfg, e.g. ppo's
// clip_low_threshold) and accumulates its gradients. The data is split
// into chunks of at most fwdbwd_max_chunk_len datums and
// fwdbwd_max_chunk_bytes_count encoded bytes; each chunk takes its own
// seq_id, chunks 2..n are submitted first and chunk 1 last (as the SDK
// does, so the service can batch them), and the results are joined in
// order.
func (c *Client) ForwardBackward(ctx context.Context, m Model, data []Datum, lossFn string, lossCfg map[string]float64) (FwdBwdResult, error) {
	return c.forward(ctx, m, kindFwdBwd, data, lossFn, lossCfg)
}

// Forward is ForwardBackward without gradients (the JSON /forward
// endpoint): it returns the loss, the target logprobs and the metrics.
func (c *Client) Forward(ctx context.Context, m Model, data []Datum, lossFn string, lossCfg map[string]float64) (FwdBwdResult, error) {
	return c.forward(ctx, m, kindFwd, data, lossFn, lossCfg)
}

func (c *Client) forward(ctx context.Context, m Model, k fwdKind, data []Datum, lossFn string, cfg map[string]float64) (FwdBwdResult, error) {
	if lossFn == "" {
		return FwdBwdResult{}, fmt.Errorf("tinker: %s: no loss function", k.endpoint)
	}
	chunks, err := c.chunkData(k.endpoint, data)
	if err != nil {
		return FwdBwdResult{}, err
	}
	n := len(chunks)
	subs, refs, rtts := make([]submission, n), make([]futureRef, n), make([]time.Duration, n)
	var first int
	err = c.submitSeq(ctx, m.seq, n, func(sctx context.Context, f int) error {
		first = f
		for _, i := range submitOrder(n) {
			req := map[string]any{"model_id": m.ID, "seq_id": f + i,
				k.inputKey: fwdInput{Data: chunks[i], LossFn: lossFn, LossFnConfig: cfg}}
			var err error
			if subs[i], refs[i], rtts[i], err = c.marshalAndSend(sctx, k.endpoint, k.reqType, req); err != nil {
				return fmt.Errorf("chunk %d of %d: %w", i+1, n, err)
			}
		}
		return nil
	})
	if err != nil {
		return FwdBwdResult{}, err
	}
	results := make([]wireFwdBwdResult, n)
	for i := range chunks {
		if err := c.await(ctx, subs[i], refs[i].RequestID, rtts[i], &results[i]); err != nil {
			return FwdBwdResult{}, err
		}
		if got := len(results[i].LossFnOutputs); got != len(chunks[i]) {
			return FwdBwdResult{}, fmt.Errorf("tinker: %s: chunk %d: %d outputs for %d datums", k.endpoint, i+1, got, len(chunks[i]))
		}
	}
	return mergeResults(results, chunks, first), nil
}

// submitOrder is 1..n-1 then 0: chunk 1 goes last.
func submitOrder(n int) []int {
	order := make([]int, 0, n)
	for i := 1; i < n; i++ {
		order = append(order, i)
	}
	return append(order, 0)
}

// chunkData validates and encodes the datums and splits them by the
// service's chunk limits. A datum larger than the byte limit goes alone.
func (c *Client) chunkData(endpoint string, data []Datum) ([][]json.RawMessage, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("tinker: %s: no data", endpoint)
	}
	f := c.Flags()
	var chunks [][]json.RawMessage
	var cur []json.RawMessage
	size := 0
	for i, d := range data {
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("tinker: %s: datum %d: %w", endpoint, i, err)
		}
		raw, err := json.Marshal(d)
		if err != nil {
			return nil, fmt.Errorf("tinker: %s: encode datum %d: %w", endpoint, i, err)
		}
		if len(cur) > 0 && (len(cur) >= f.FwdBwdMaxChunkLen || size+len(raw) > f.FwdBwdMaxChunkBytes) {
			chunks, cur, size = append(chunks, cur), nil, 0
		}
		cur, size = append(cur, raw), size+len(raw)
	}
	return append(chunks, cur), nil
}

// mergeResults joins the chunks' outputs and merges their metrics.
func mergeResults(results []wireFwdBwdResult, chunks [][]json.RawMessage, first int) FwdBwdResult {
	out := FwdBwdResult{}
	parts := make([]map[string]float64, len(results))
	weights := make([]int, len(results))
	for i, r := range results {
		out.LossFnOutputType = cmpOr(out.LossFnOutputType, r.LossFnOutputType)
		out.Outputs = append(out.Outputs, r.LossFnOutputs...)
		out.SeqIDs = append(out.SeqIDs, first+i)
		parts[i], weights[i] = r.Metrics, len(chunks[i])
	}
	out.Metrics = MergeMetrics(parts, weights)
	return out
}

// MergeMetrics merges per-chunk metrics, weights[i] being chunk i's datum
// count: name:mean (and names without a reduction) are weighted means,
// name:sum sums, name:min and name:max the extremes, and any other
// reduction the first chunk's value. A missing weight counts as 1.
func MergeMetrics(parts []map[string]float64, weights []int) map[string]float64 {
	out := map[string]float64{}
	wsum := map[string]float64{}
	for i, p := range parts {
		w := 1
		if i < len(weights) {
			w = weights[i]
		}
		for k, v := range p {
			prev, seen := out[k]
			switch reduction(k) {
			case "mean", "":
				out[k] += v * float64(w)
				wsum[k] += float64(w)
			case "sum":
				out[k] += v
			case "min":
				if !seen || v < prev {
					out[k] = v
				}
			case "max":
				if !seen || v > prev {
					out[k] = v
				}
			default:
				if !seen {
					out[k] = v
				}
			}
		}
	}
	for k, w := range wsum {
		if w > 0 {
			out[k] /= w
		}
	}
	return out
}

func reduction(key string) string {
	if i := strings.LastIndexByte(key, ':'); i >= 0 {
		return key[i+1:]
	}
	return ""
}
