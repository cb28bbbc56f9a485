package faketinker

import (
	"crypto/sha256"
	"fmt"
	"time"
)

// state is the service's state, guarded by Server.mu.
type state struct {
	closed      bool
	down        DownMode
	faults      map[string][]Fault
	expireNext  map[string]int // endpoint → futures to create already expired
	tryAgain    int
	tryAgain408 bool
	responder   func(SampleRequest) [][]int
	sampleDelay time.Duration
	tokenDelay  time.Duration
	flags       map[string]any
	jwts        map[string]bool

	sessions    map[string]*session
	models      map[string]*model
	samplers    map[string]*sampler
	checkpoints map[string]*Checkpoint
	ckptOrder   []string
	futures     map[string]*future
	idem        map[string]idemEntry

	requests []Request
	datums   []RecordedDatum
	samples  []SampleRecord
	nextID   int

	samplesInFlight    int // asample jobs run but not yet delivered to a poll
	maxSamplesInFlight int
}

type idemEntry struct {
	hash [32]byte
	rep  reply
}

func newState(o Options) state {
	flags := map[string]any{
		"pjwt_auth_enabled": o.JWT, "credential_default_source": "api_key",
		"proto_compress_fwdbwd": false, "parallel_fwdbwd_chunks": true,
		"fwdbwd_max_chunk_len": 1024, "fwdbwd_max_chunk_bytes_count": 5000000,
		"sample_max_concurrent_requests": 2000, "sample_no_retries": false,
		"billing_exception_max_pause_duration_sec": 3600, "create_model_via_load_weights": false,
	}
	for k, v := range o.Flags {
		flags[k] = v
	}
	return state{
		faults: map[string][]Fault{}, expireNext: map[string]int{}, flags: flags,
		tryAgain: o.TryAgainPolls, tryAgain408: o.TryAgain408,
		sampleDelay: o.SampleDelay, tokenDelay: o.SampleTokenDelay, jwts: map[string]bool{},
		sessions: map[string]*session{}, models: map[string]*model{}, samplers: map[string]*sampler{},
		checkpoints: map[string]*Checkpoint{}, futures: map[string]*future{}, idem: map[string]idemEntry{},
	}
}

// id returns a fresh id with the given prefix.
func (st *state) id(prefix string) string {
	st.nextID++
	return fmt.Sprintf("%s-%d", prefix, st.nextID)
}

// session is a client session.
type session struct {
	id            string
	tags          []string
	sdkVersion    string
	heartbeats    int
	lastHeartbeat time.Time
}

// job is the work behind one or more futures (a resubmission after 410
// gets a new future for the same job).
type job struct {
	done      chan struct{}
	result    any
	errMsg    string
	category  string
	sample    bool // counted in samplesInFlight until delivered
	delivered bool
}

func newJob() *job { return &job{done: make(chan struct{})} }

// complete records the result; call once.
func (j *job) complete(result any) {
	j.result = result
	close(j.done)
}

// failUser completes the job with a user error.
func (j *job) fail(category, format string, args ...any) {
	j.errMsg, j.category = fmt.Sprintf(format, args...), category
	close(j.done)
}

// future is one request id.
type future struct {
	id      string
	kind    string // endpoint that created it
	job     *job
	polls   int
	expired bool
}

// newFuture registers a future for j.
func (st *state) newFuture(kind string, j *job) *future {
	f := &future{id: st.id("req"), kind: kind, job: j}
	if st.expireNext[kind] > 0 {
		st.expireNext[kind]--
		f.expired = true
	}
	st.futures[f.id] = f
	return f
}

// sequencer runs the requests of one model or sampling session strictly
// in seq_id order.
type sequencer struct {
	next    int
	entries map[int]*seqEntry
	waiting map[int]func()
}

type seqEntry struct {
	hash [32]byte
	idem string
	fut  *future
}

func newSequencer(next int) *sequencer {
	return &sequencer{next: next, entries: map[int]*seqEntry{}, waiting: map[int]func(){}}
}

// admit takes request seq of c into q: a duplicate gets the existing
// future (a new one for the same job if that expired), different content
// under a used seq_id is refused, and run is called once every earlier
// seq_id has run.
func (st *state) admit(q *sequencer, seq int, c *call, run func(j *job)) reply {
	hash := sha256.Sum256(c.body)
	if e, dup := q.entries[seq]; dup {
		switch {
		case e.idem != c.idem && e.hash != hash:
			return fail(400, "seq_id %d already used with different content", seq)
		case e.fut.expired:
			e.fut = st.newFuture(c.endpoint, e.fut.job)
		}
		return ok(futureBody(e.fut))
	}
	if seq < q.next {
		return fail(400, "seq_id %d is behind the sequence (next %d)", seq, q.next)
	}
	j := newJob()
	f := st.newFuture(c.endpoint, j)
	q.entries[seq] = &seqEntry{hash: hash, idem: c.idem, fut: f}
	q.waiting[seq] = func() { run(j) }
	for {
		fn, ready := q.waiting[q.next]
		if !ready {
			break
		}
		delete(q.waiting, q.next)
		q.next++
		fn()
	}
	return ok(futureBody(f))
}

func futureBody(f *future) map[string]any { return map[string]any{"request_id": f.id} }
