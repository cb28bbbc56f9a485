package tinker

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/wait"
)

// DefaultSDKVersion is the sdk_version sent to client/config and
// create_session. The service derives feature flags from it. 0.22.0 is the
// Tinker SDK that MinT pins, and lies in the range (0.20–0.24) where the
// SDK still sent forward_backward as JSON by default, which is what this
// client sends; Tinker accepted JSON from such clients as of August 2026.
const DefaultSDKVersion = "0.22.0"

// DefaultUserAgent names MetaClaw to the service.
const DefaultUserAgent = "MetaClaw (Go Tinker client)"

// Options configure a Client. Zero values take the documented defaults.
type Options struct {
	// Backend is rl.backend (auto|tinker|mint|weaver); with BaseURL empty
	// it picks the default base URL (DefaultBaseURL).
	Backend string
	// BaseURL is rl.base_url: the service root, without /api/v1.
	BaseURL string
	// APIKey is sent as X-API-Key. It is never logged or put in errors.
	APIKey string

	// Tags label the session (default ["metaclaw"]).
	Tags []string
	// UserMetadata is attached to the session.
	UserMetadata map[string]string
	// ProjectID is sent with create_session when set.
	ProjectID string
	// SDKVersion is sent to the service (default DefaultSDKVersion).
	SDKVersion string
	// UserAgent is the User-Agent header (default DefaultUserAgent).
	UserAgent string

	// HTTPClient does the requests (default: 5 s connect timeout; each
	// call sets its own deadline).
	HTTPClient *http.Client
	// Logger receives warnings (default slog.Default()).
	Logger *slog.Logger
	// HeartbeatInterval is the period of Serve's heartbeat (default 10 s).
	HeartbeatInterval time.Duration
	// Sleep waits between retries and during back-pressure pauses. Tests
	// inject a fake; the default honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now tells the time for heartbeat health and pauses (default time.Now).
	Now func() time.Time
	// Rand returns a float in [0,1) for retry jitter (default math/rand).
	Rand func() float64
	// MaxRetries bounds HTTP-level retries of one call (default 10).
	MaxRetries int
	// SubmitBudget bounds the total back-off spent resubmitting one async
	// request after HTTP-level retries gave up (default 5 min).
	SubmitBudget time.Duration
}

// normalize fills defaults and checks the options.
func (o Options) normalize() (Options, error) {
	if strings.TrimSpace(o.APIKey) == "" {
		return o, errors.New("tinker: no api key (rl.api_key)")
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL(o.Backend, o.APIKey)
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return o, errors.New("tinker: base url must be an http(s) URL (rl.base_url)")
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if len(o.Tags) == 0 {
		o.Tags = []string{"metaclaw"}
	}
	o.SDKVersion = cmpOr(o.SDKVersion, DefaultSDKVersion)
	o.UserAgent = cmpOr(o.UserAgent, DefaultUserAgent)
	if o.HTTPClient == nil {
		o.HTTPClient = defaultHTTPClient()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.HeartbeatInterval = cmpOr(o.HeartbeatInterval, 10*time.Second)
	o.MaxRetries = cmpOr(o.MaxRetries, 10)
	o.SubmitBudget = cmpOr(o.SubmitBudget, 5*time.Minute)
	if o.Sleep == nil {
		o.Sleep = wait.Sleep
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	return o, nil
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: t}
}

// Flags are the feature flags client/config returns. Flags this client does
// not know are ignored.
type Flags struct {
	PJWTAuthEnabled             bool   `json:"pjwt_auth_enabled"`
	CredentialDefaultSource     string `json:"credential_default_source"`
	ProtoCompressFwdBwd         bool   `json:"proto_compress_fwdbwd"`
	ParallelFwdBwdChunks        bool   `json:"parallel_fwdbwd_chunks"`
	FwdBwdMaxChunkLen           int    `json:"fwdbwd_max_chunk_len"`
	FwdBwdMaxChunkBytes         int    `json:"fwdbwd_max_chunk_bytes_count"`
	SampleMaxConcurrentRequests int    `json:"sample_max_concurrent_requests"`
	SampleNoRetries             bool   `json:"sample_no_retries"`
	BillingExceptionMaxPauseSec int    `json:"billing_exception_max_pause_duration_sec"`
	CreateModelViaLoadWeights   bool   `json:"create_model_via_load_weights"`
}

// DefaultFlags are the documented defaults, used for flags the service
// leaves out and when client/config answers 404.
func DefaultFlags() Flags {
	return Flags{
		CredentialDefaultSource:     "api_key",
		ParallelFwdBwdChunks:        true,
		FwdBwdMaxChunkLen:           1024,
		FwdBwdMaxChunkBytes:         5_000_000,
		SampleMaxConcurrentRequests: 2000,
		BillingExceptionMaxPauseSec: 3600,
	}
}

// sane replaces non-positive limits with the defaults.
func (f Flags) sane() Flags {
	d := DefaultFlags()
	if f.FwdBwdMaxChunkLen <= 0 {
		f.FwdBwdMaxChunkLen = d.FwdBwdMaxChunkLen
	}
	if f.FwdBwdMaxChunkBytes <= 0 {
		f.FwdBwdMaxChunkBytes = d.FwdBwdMaxChunkBytes
	}
	if f.SampleMaxConcurrentRequests <= 0 {
		f.SampleMaxConcurrentRequests = d.SampleMaxConcurrentRequests
	}
	if f.BillingExceptionMaxPauseSec <= 0 {
		f.BillingExceptionMaxPauseSec = d.BillingExceptionMaxPauseSec
	}
	return f
}
