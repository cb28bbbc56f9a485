// Package faketinker is a fake Tinker training service for tests. It speaks
// the same REST+JSON wire protocol as the real service (see
// ../shared/reference/tinker-wire.md) over real HTTP on 127.0.0.1: auth by
// X-API-Key, client/config, sessions and heartbeats, futures polled with
// retrieve_future, sampling sessions and asample, models, forward_backward,
// optim_step and checkpoints.
//
// It is strict where the real service is: requests of one model, and
// samples of one sampling session, run strictly in seq_id order (a request
// whose predecessors have not arrived waits; a duplicate seq_id with the
// same idempotency key or the same content gets the same future, one with
// different content is refused). It is deterministic where tests need it:
// sampled tokens and logprobs are a pure function of the prompt, the
// sampler checkpoint, the seed and the sample index, and SetResponder lets
// a test script the exact tokens. It records what it received (Datums,
// Samples, Requests, Checkpoints) and lets tests inject faults (FailNext,
// ExpireNext, SetTryAgain, SetDown).
//
// It does not import the client package, so tests of the client check the
// wire format from both sides. Only tests and the faketinker command may
// import it.
package faketinker
