// Package fakeweaver is a fake Nex-AGI Weaver training service for tests.
// It speaks the REST API the Weaver SDK (nex-weaver) calls, as the weaver
// package documents it, over real HTTP on 127.0.0.1: X-WEAVER-API-KEY
// auth and JSON error bodies, sessions and heartbeats, LoRA models,
// forward-backward passes, optimizer steps, sampler exports, checkpoints
// and loads as operations polled at /api/v1/operations/{id}, and sampling
// sessions (opened at once for a base model, behind a sync operation for
// exported weights) with samples.
//
// It is strict where a client could go wrong unseen: the seq_ids of a
// model must run 1, 2, 3, ... (the SDK's counter), every datum must be a
// well-formed Tinker-style datum for its loss, names must be unique and
// paths must exist. It is deterministic: target logprobs depend on the
// model's step, sampled tokens on the prompt, unless SetResponder scripts
// them. It records what it received (Datums, Samples, Checkpoints,
// Requests) and can fail the next call of an endpoint (FailNext) or the
// next operation (FailNextOperation), or be down (SetDown).
//
// It does not import the weaver client package, so the client's tests
// check the wire format from both sides. Only tests may import it.
package fakeweaver
