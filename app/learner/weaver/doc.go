// Package weaver is a client of Nex-AGI's Weaver training service
// (rl.backend weaver), the third backend the reference MetaClaw names
// beside Tinker and MinT. Weaver is reachable over HTTP: its Python SDK,
// nex-weaver (github.com/nex-agi/weaver), "mirrors the REST API exposed by
// weaver-server" (its README), and this package speaks that REST API
// directly. It implements the same methods the trainer and the policy use
// on the Tinker client, with Tinker's types (tinker.Model, tinker.Datum,
// tinker.SamplingSession, ...) and error types (*tinker.APIError,
// *tinker.ConnError), so the rest of MetaClaw does not know which service
// it talks to.
//
// The wire format, as read in the SDK (weaver/_http.py, service_client.py,
// training_client.py, sampling_client.py, operations.py, _payloads.py and
// types/, commits of 2026):
//
//   - Every request carries the key in X-WEAVER-API-KEY. An error answer
//     is JSON {"error": code, "message": ..., "retryable": bool}.
//   - POST /api/v1/sessions {"tags", "user_metadata", "sdk_version"} opens
//     a session ({"id": ...}); POST /api/v1/sessions/{id}/heartbeat keeps
//     it (the SDK beats every 30 s).
//   - POST /api/v1/sessions/{id}/models {"model_seq_id", "base_model",
//     "lora_config": {"rank", "train_unembed", "train_mlp", "train_attn"}}
//     creates a LoRA training model ({"id", "base_model", "tokenizer_path"}).
//   - Work on a model is an operation: POST
//     /api/v1/models/{id}/forward-backward-passes {"payload": {"model_id",
//     "seq_id", "forward_backward_input": {"loss_fn", "data",
//     "loss_fn_config"}}}, .../optimizer-steps {"payload": {"model_id",
//     "seq_id", "adam_params"}}, .../export-sampler {"seq_id", "path"},
//     .../checkpoints {"type", "name"}, .../load {"path",
//     "include_optimizer"}. seq_id counts 1, 2, 3, ... per model. The answer
//     is an operation {"id", "status", ...}, polled with GET
//     /api/v1/operations/{id} until its status is "done" (its "response"
//     is the result) or "error" ("error_code", "error_message"). The SDK
//     posts an operation once, never retrying: it is not idempotent.
//   - A datum is Tinker's: {"model_input": {"chunks": [{"type":
//     "encoded_text", "tokens"}]}, "loss_fn_inputs": {name: {"data",
//     "dtype", "shape"}}}; forward_backward's result is {"result":
//     {"loss_fn_outputs": [{"logprobs": ...}], "metrics": {...}}}.
//   - POST /api/v1/sessions/{id}/sampling-sessions
//     {"sampling_session_seq_id", "base_model", "model_path"} opens a
//     sampler: the session itself (201), or {"sampling_session",
//     "sync_operation"} (202) whose operation must finish first. POST
//     /api/v1/sampling-sessions/{id}/samples {"prompt", "sampling_params":
//     {"temperature", "top_p", "top_k", "max_tokens", "stop", "seed"},
//     "num_samples", "prompt_logprobs", "topk_prompt_logprobs"} is an
//     operation whose response holds "sequences" (at the top or under
//     "result"), each {"tokens", "logprobs", "stop_reason"}.
//   - Checkpoint paths are weaver://{model_id}/checkpoints/{name}.
//
// Differences from Tinker that callers see: Weaver's stop list takes
// strings only, so stop tokens (SamplingParams.StopTokens) are not sent and
// sampling ends at the served model's own end of turn; GetInfo reads
// GET /api/v1/models/{id}. The learner (app/learner/...) and the app may
// import this package.
package weaver
