package tinker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// poller holds the retry state of one await.
type poller struct {
	c           *Client
	s           submission
	id          string // current request id
	resubmitted bool   // the request was resubmitted after a 410
	resubmits   int
	backoffs    int // consecutive back-offs (429, connection errors, 5xx)
	n5xx        int // consecutive 5xx answers
	n400        int
	billed      time.Duration
}

// step interprets one poll: done with the result decoded into out, or a
// wait before the next poll, or a final error.
func (p *poller) step(ctx context.Context, resp *rawResponse, err error, out any) (bool, time.Duration, error) {
	if err != nil {
		if ctx.Err() != nil {
			return true, 0, fmt.Errorf("tinker: %s: waiting for request %s: %w", p.s.endpoint, p.id, ctx.Err())
		}
		return false, p.backoff(), nil
	}
	switch st := resp.status; {
	case st == http.StatusOK:
		return p.result(resp.body, out)
	case st == http.StatusRequestTimeout:
		p.pending()
		return false, 0, nil
	case st == http.StatusGone:
		return false, 0, p.resubmit(ctx)
	case st == http.StatusTooManyRequests:
		return false, p.backoff(), nil
	case st >= 500:
		if p.n5xx++; p.n5xx <= maxImmediate5xx {
			return false, 0, nil
		}
		return false, p.backoff(), nil
	case st == http.StatusBadRequest && p.n400 < max400Polls:
		p.n400++
		return false, 0, nil
	case st == http.StatusPaymentRequired && p.billed+billingStep <= p.c.billingCap():
		p.billed += billingStep
		return false, billingStep, nil
	}
	return true, 0, p.c.failure("retrieve_future", resp, nil)
}

// pending resets the error counters after an answer that says "not yet".
func (p *poller) pending() { p.backoffs, p.n5xx = 0, 0 }

// backoff is min(2ⁿ, 30) s over consecutive back-offs.
func (p *poller) backoff() time.Duration {
	d := expBackoff(p.backoffs)
	p.backoffs++
	return d
}

// futureProbe tells the kinds of 200 answer apart.
type futureProbe struct {
	Type     string          `json:"type"`
	Status   string          `json:"status"`
	Error    json.RawMessage `json:"error"`
	Category string          `json:"category"`
}

func (p *poller) result(body []byte, out any) (bool, time.Duration, error) {
	var probe futureProbe
	if err := json.Unmarshal(body, &probe); err != nil {
		return true, 0, fmt.Errorf("tinker: retrieve_future: decode answer for %s: %w", p.s.reqType, err)
	}
	switch {
	case probe.Type == "try_again", probe.Status == "complete_metadata":
		p.pending()
		return false, 0, nil
	case len(probe.Error) > 0 && string(probe.Error) != "null":
		return true, 0, &FutureError{RequestType: p.s.reqType, RequestID: p.id,
			Category: cmpOr(probe.Category, "unknown"), Message: redact(rawText(probe.Error), p.c.opts.APIKey)}
	}
	return true, 0, decodeBody("retrieve_future", body, out)
}

// rawText is a JSON string's value, or the raw JSON of anything else.
func rawText(m json.RawMessage) string {
	var s string
	if json.Unmarshal(m, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(m))
}

// resubmit sends the original request again after its future expired.
func (p *poller) resubmit(ctx context.Context) error {
	if p.resubmits >= maxResubmits {
		return fmt.Errorf("tinker: %s: request expired %d times", p.s.endpoint, p.resubmits)
	}
	p.resubmits++
	ref, err := p.c.send(ctx, p.s)
	if err != nil {
		return fmt.Errorf("tinker: %s: resubmit after expiry: %w", p.s.endpoint, err)
	}
	p.id, p.resubmitted = ref.RequestID, true
	p.pending()
	return nil
}
