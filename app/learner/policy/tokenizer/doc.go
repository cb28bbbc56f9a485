// Package tokenizer encodes text to token ids and decodes ids back to
// text for the byte-level BPE tokenizers of the policy models MetaClaw
// serves in rl and madmax modes (Qwen2/Qwen3, Llama 3, GPT-2 style). It
// reads a Hugging Face tokenizer.json and reproduces what Hugging Face's
// tokenizers library produces for it, token for token, so that the tokens
// MetaClaw samples and the tokens it trains on are the same.
//
// Supported: a BPE model (vocab; merges as "a b" strings or [a, b] pairs;
// ignore_merges), added tokens (matched before normalisation, leftmost and
// longest first, with lstrip/rstrip), NFC/NFD/NFKC/NFKD normalisers, the
// Split (regex or string, every split behaviour) and ByteLevel
// pre-tokenisers and the ByteLevel decoder. The GPT-2, Qwen (GPT-4 style),
// Qwen3.5 and Llama 3 split patterns run on a hand-written scanner that
// reproduces the regex exactly (including the \s+(?!\S) lookahead that Go's
// regexp lacks); any other pattern runs on github.com/dlclark/regexp2.
// WordPiece, Unigram, WordLevel and SentencePiece-style BPE tokenizers are
// refused with an error.
//
// Moonshot's Kimi K2/K2.5/K2.6 ship a tiktoken BPE file (tiktoken.model)
// instead of a tokenizer.json; LoadTiktokenDir reads it with the repo's
// tokenizer_config.json and reproduces Kimi's TikTokenTokenizer (its
// Han-aware split pattern, PatternKimi, on a hand-written scanner, its 256
// special tokens after the ranks, and the cutting of long texts its
// encode does), token for token with OpenAI's tiktoken. Post-processors are ignored: Encode is Hugging
// Face's encode(text, add_special_tokens=False), which is what
// apply_chat_template(tokenize=True) uses.
//
// A Tokenizer is safe for concurrent use. The learner (app/learner/...) and
// the app may import this package; it imports no project package.
package tokenizer
