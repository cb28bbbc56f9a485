package store

import (
	"bytes"
	"crypto/sha256"
	"sync"
)

// A session's next request starts with most of its last one: the agent
// resends the conversation and adds to its end, and the injected text in
// the system prompt stays the same through a tool loop. The chunks of
// that common prefix cut the same way again (a cut depends only on the
// bytes before it), so they are taken from the last request's cuts
// without cutting or hashing them: a turn then costs its new bytes, not
// the whole conversation. Cutting a request after another gives exactly
// the chunks cutting it alone gives (FuzzSplitAfterAgrees).

// splitMemo is a session's last split request: a copy of its bytes, the
// end and hash of each chunk, and the turn that stored it with the depth
// of its skeleton (see request_delta.go). Whoever took it from splitMemos
// owns it.
type splitMemo struct {
	req    []byte
	ends   []int
	hashes [][sha256.Size]byte
	turn   int64 // 0 until the turn is inserted
	depth  int
}

// remember makes m (nil: a new memo) remember req and its chunks, reusing
// m's buffers, and returns it.
func (m *splitMemo) remember(req []byte, parts []chunk, depth int) *splitMemo {
	if m == nil {
		m = &splitMemo{}
	}
	m.req = append(m.req[:0], req...)
	m.ends, m.hashes = m.ends[:0], m.hashes[:0]
	end := 0
	for _, p := range parts {
		end += len(p.body)
		m.ends, m.hashes = append(m.ends, end), append(m.hashes, p.hash)
	}
	m.turn, m.depth = 0, depth
	return m
}

// splitRequestAfter is splitRequest for a request that may begin like
// prev (nil: nothing known).
func splitRequestAfter(req []byte, prev *splitMemo) (skel []byte, parts []chunk, ok bool) {
	parts, _, ok = splitAfter(req, prev)
	if !ok {
		return nil, nil, false
	}
	return fullSkeleton(parts), parts, true
}

// splitAfter cuts req into chunks, taking those of its common prefix with
// prev (nil: nothing known) from prev; reused says how many of the first
// chunks were. ok is false for a request to store whole.
func splitAfter(req []byte, prev *splitMemo) (parts []chunk, reused int, ok bool) {
	if len(req) < partsFrom {
		return nil, 0, false
	}
	start := 0
	if prev != nil {
		same := commonPrefix(req, prev.req)
		whole := same == len(req) && same == len(prev.req)
		for i, end := range prev.ends {
			// A chunk ending where prev ended may have been cut by the end
			// of the data, which req need not share.
			if end > same || end == len(prev.req) && !whole {
				break
			}
			parts = append(parts, chunk{hash: prev.hashes[i], body: req[start:end]})
			start = end
		}
	}
	reused = len(parts)
	for rest := req[start:]; len(rest) > 0; {
		n := cut(rest)
		parts = append(parts, chunk{hash: sha256.Sum256(rest[:n]), body: rest[:n]})
		rest = rest[n:]
	}
	return parts, reused, true
}

// fullSkeleton is the skeleton listing every chunk: skelVersion, then each
// chunk's SHA-256 in order.
func fullSkeleton(parts []chunk) []byte {
	skel := append(make([]byte, 0, 1+len(parts)*sha256.Size), skelVersion)
	for _, p := range parts {
		skel = append(skel, p.hash[:]...)
	}
	return skel
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	const block = 256 // compared with the runtime's vectorised equality
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// splitMemos holds the last split request of recently recording sessions,
// in two generations: when the current one is full (maxMemoSessions
// sessions or maxMemoBytes of requests) it becomes the previous one. A
// recording takes its session's memo out and puts it back updated, so a
// memo has one user at a time (a second recording of the same session at
// the same time finds none and cuts from scratch). A request over
// maxMemoBytes/8 is not remembered, and an ended session's memo is
// dropped (EndSession), so an idle process holds none of them once its
// sessions have ended.
type splitMemos struct {
	mu        sync.Mutex
	cur, prev map[string]*splitMemo
	curBytes  int
}

const (
	maxMemoSessions = 64
	maxMemoBytes    = 4 << 20
)

// take removes session's memo and returns it; nil when there is none.
func (ms *splitMemos) take(session string) *splitMemo {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if m, ok := ms.cur[session]; ok {
		delete(ms.cur, session)
		ms.curBytes -= cap(m.req)
		return m
	}
	m := ms.prev[session]
	delete(ms.prev, session)
	return m
}

// put makes m session's memo.
func (ms *splitMemos) put(session string, m *splitMemo) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if cap(m.req) > maxMemoBytes/8 {
		return
	}
	if len(ms.cur) >= maxMemoSessions || ms.curBytes+cap(m.req) > maxMemoBytes {
		ms.prev, ms.cur, ms.curBytes = ms.cur, nil, 0
	}
	if ms.cur == nil {
		ms.cur = make(map[string]*splitMemo, maxMemoSessions)
	}
	delete(ms.prev, session)
	ms.cur[session] = m
	ms.curBytes += cap(m.req)
}
