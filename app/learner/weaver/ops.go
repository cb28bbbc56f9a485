package weaver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/wait"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
)

// OperationError is an operation the service accepted and then failed
// (status "error"), with its error_code and error_message.
type OperationError struct {
	Endpoint string
	ID       string
	Code     string
	Message  string
}

// Error names the operation and the service's reason.
func (e *OperationError) Error() string {
	msg := "weaver: " + e.Endpoint + " operation " + e.ID + " failed: " + e.Code
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// maxPollErrors is how many transient failures of polling one operation
// are tolerated, as the SDK's WEAVER_OPERATION_POLL_TRANSIENT_RETRIES
// default.
const maxPollErrors = 20

// enqueue posts an operation once and waits for it; it returns the
// operation's response. When the operation carries a seq_id (seqed), a
// post that failed without a refusal leaves it unknown whether the service
// took that seq_id, so the model must be replaced: the error then wraps
// tinker.ErrSequenceBroken.
func (c *Client) enqueue(ctx context.Context, path string, body any, seqed bool) (map[string]any, error) {
	var op map[string]any
	if err := c.call(ctx, http.MethodPost, path, body, &op, noRetry); err != nil {
		var ae *tinker.APIError
		refused := errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 && ae.Status != http.StatusRequestTimeout
		if refused || !seqed {
			return nil, err // refused: the service did not take it
		}
		return nil, fmt.Errorf("%w: %w", tinker.ErrSequenceBroken, err)
	}
	return c.waitOp(ctx, endpointName(path), op)
}

// waitOp polls GET /api/v1/operations/{id} until the operation is done or
// failed.
func (c *Client) waitOp(ctx context.Context, endpoint string, op map[string]any) (map[string]any, error) {
	id := lookupString(op, "id")
	if id == "" {
		return nil, c.errorf(endpoint, "the answer is not an operation (no id)")
	}
	delay, pollErrors := c.opts.PollInterval, 0
	for {
		switch strings.ToLower(lookupString(op, "status")) {
		case "done":
			resp := lookupMap(op, "response")
			if resp == nil {
				resp = map[string]any{}
			}
			return resp, nil
		case "error":
			code := lookupString(op, "error_code")
			if code == "" {
				code = lookupString(op, "error")
			}
			if code == "" {
				code = "operation_failed"
			}
			return nil, &OperationError{Endpoint: endpoint, ID: id, Code: code, Message: lookupString(op, "error_message")}
		}
		if err := wait.Sleep(ctx, delay); err != nil {
			return nil, err
		}
		delay = min(delay*2, 2*time.Second)
		var next map[string]any
		err := c.call(ctx, http.MethodGet, "/api/v1/operations/"+url.PathEscape(id), nil, &next, noRetry)
		switch {
		case err == nil:
			op = next
		case pollTransient(err) && pollErrors < maxPollErrors:
			pollErrors++
		default:
			return nil, err
		}
	}
}

// pollTransient: the SDK retries a poll on a retryable answer, a 5xx and
// connection failures.
func pollTransient(err error) bool {
	var ae *tinker.APIError
	if errors.As(err, &ae) {
		return ae.Status >= 500 || ae.Status == http.StatusTooManyRequests
	}
	var ce *tinker.ConnError
	return errors.As(err, &ce)
}
