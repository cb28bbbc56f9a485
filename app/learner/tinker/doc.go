// Package tinker is a Go client for the Tinker training service's REST+JSON
// wire protocol (see ../shared/reference/tinker-wire.md), and for services
// that speak the same protocol (MinT). It owns the transport (auth headers,
// idempotency keys, HTTP retries with back-off), the session (client/config
// flags, create_session, the heartbeat service), futures (retrieve_future
// polling and resubmission), the sampling side (sampling sessions and
// asample with per-session sequence ids and 429 back-pressure) and the
// training side (models, chunked forward_backward, optim_step, saving and
// loading weights), plus the wire types (Datum, TensorData, ModelInput) and
// helpers that build RL datums.
//
// A Client is made with New, connected with Start and kept alive by running
// Serve (the heartbeat) until the caller's context ends. All methods are
// safe for concurrent use.
//
// # Sequence ids
//
// The service runs the requests of one model, and the samples of one
// sampling session, strictly in seq_id order, so a seq_id that is taken and
// never delivered stalls everything after it. The client assigns seq ids and
// submits under a per-model (per-sampling-session) mutex so the service sees
// them in order; once an id is taken the submission finishes even if the
// caller's context is cancelled (bounded by the retry budget), so
// cancellation never leaves a hole. If a submission still fails, the call
// returns an error wrapping ErrSequenceBroken and every later call on that
// Model (SamplingSession) fails fast with it. The caller must then start
// over: for a training model, CreateModel again and LoadWeights from the last
// checkpoint saved with SaveWeights; for sampling, CreateSamplingSession
// again. A failure after the request was accepted (a failed future, or the
// caller giving up while polling) leaves no hole.
//
// # Imports
//
// The learner's RL trainer and policy, the app (for status) and tests may
// import this package. It imports only the standard library. Tests use the
// fake service in the faketinker subpackage.
package tinker
