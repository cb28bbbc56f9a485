// Package memory is MetaClaw's long-term memory: what the person told their
// agent — preferences, facts, the state of their projects, procedures,
// summaries of past sessions — kept per scope (user/workspace), and put back
// into the turns where it helps.
//
// It owns four things:
//
//   - Extraction: after a session (and every memory.flush_every main turns)
//     an extraction model reads what the user said and what the assistant
//     answered — never system prompts, so never injected skills or memories —
//     and returns strict JSON memories (ParseExtraction). When no model is
//     reachable a conservative rule-based extractor (RuleExtract) stands in
//     and the turns wait in a queue for a model pass that replaces its
//     results.
//   - Consolidation: every candidate is compared only with its neighbours
//     (same topic, same text, or the few most similar memories), never with
//     the whole store: duplicates merge and reinforce importance, a newer
//     memory on the same topic supersedes the older one (kept as history),
//     and episodes nobody uses decay.
//   - Retrieval: a per-scope index of the retrieval core (a BM25F index
//     updated in place, with embeddings in the hybrid modes, fused by
//     retrieval.Fuse), combined with the question's time (when.go: a
//     period named in it, "first" or "latest"), importance, recency and
//     confidence, diversified so that a question needing two facts gets
//     both, within memory.max_injected_units and memory.max_injected_tokens;
//     pinned memories come first. Every memory keeps when it was said (its
//     session's date); a question about time gets the dates rendered.
//     The store's FTS5 index stays the search of record: it cannot answer
//     within the per-turn budget at 100,000 memories (docs/performance.md).
//   - Service: Serve runs extraction on the proxy's events (Notify, with
//     learning.Event), retries queued model passes, decays episodes,
//     records usage and compacts the database after "forget". The Service
//     is the proxy's memory injector itself (Inject); its HTTP API is
//     memory/memapi.
//
// learner.Build makes it and hands it to the proxy; app/cli uses it for
// `metaclaw memory`. It imports store, store/config, proxy/learning, the
// learner's llm, redact and retrieval packages and its internal helpers;
// nothing below app imports it.
package memory
