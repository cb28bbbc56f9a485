// Package retrieval is the one retrieval core of the learner: skills and
// memory both rank with it. It owns
//
//   - the query: what the person is asking now, read out of an agent's
//     conversation (Build) — the latest human instruction of a tool loop,
//     never the tool output, system prompt or agent wrappers (OpenClaw,
//     Claude Code, NanoClaw, Hermes, chat-bot JSON envelopes), with pasted
//     stack traces, logs and code reduced to their identifiers;
//   - the terms: tokenising and stemming (Terms), shared by queries and
//     documents;
//   - the keyword index (Index): a fielded BM25 (BM25F) kept in memory and
//     updated in place, whose periodic compaction runs off the turn's path;
//     a search reports, per hit, its score and which query terms it
//     matched (the evidence abstention and explanations read);
//   - embeddings: the OpenAI-compatible /v1/embeddings client (Embedder),
//     cached in the store, and nearest-vector search over an Index's
//     vectors;
//   - the fusion of the two (Fuse) for the "hybrid" modes, and the token
//     budget fit (Fit).
//
// What to inject is decided by its users: app/learner/skills (abstention,
// categories, efficacy) and app/learner/memory (importance, time).
// It imports store and the learner's internal packages; only app/learner
// packages import it.
package retrieval
