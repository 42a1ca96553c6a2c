package api

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"

	"github.com/crownsdev/crowns/models"
)

// Compression thresholds of rendered answers.
const (
	// minGzipSize: smaller bodies go out as they are.
	minGzipSize = 1024
	// gzipOnlySize: from this size on an answer is rendered compressed
	// only, so a cached answer costs about a seventh of its plain size. The
	// first client that does not accept gzip gets it inflated, and its
	// packed form is then kept with it (see pack), and its plain form too
	// for the answers most requested lately (see cacheShard).
	gzipOnlySize = 8 << 10
)

// compressionLevel is the gzip level of rendered answers (see compress).
const compressionLevel = 8

// cachedAnswer is a rendered answer: a 200 body with its ETag and the
// extra headers that belong to it (a Link header of a search page, say),
// or a refusal that is cached like an answer (the 417 of the history of
// an untracked clan). It is immutable once built.
type cachedAnswer struct {
	// plain is the JSON body; nil when it is kept compressed only (no
	// client that does not accept gzip asked for it yet).
	plain []byte
	// gzipped is the body compressed; nil when compression does not pay.
	gzipped []byte
	// packed is the plain body of an answer kept compressed only, packed
	// by S2: made the first time a client without gzip asks for the
	// answer, and kept with it (see pack, cacheShard.keepPacked); nil
	// until then.
	packed []byte
	// length is the length of the plain body.
	length int
	// etag is the strong validator of the plain body (see etagOf).
	etag string
	// weakETag is etag marked weak (W/"..."), as the response header
	// takes it: the ETag of the gzipped form, whose bytes differ from the
	// plain body's (RFC 9110 8.8.1: one validator shared by a
	// representation with a gzip coding and one without is weak); its
	// last len(etag) bytes are the plain form's ETag (see etagHeader).
	weakETag []byte
	headers  [][2]string
	// refusal, when set, is the error this answer stands for; it has no
	// body.
	refusal error
	// fingerprint, for a history answer, stands for the data it was read
	// from: while the database gives the same, the answer holds.
	fingerprint *models.HistoryFingerprint
}

// newCachedAnswer renders body into an answer with its ETag, compressed
// once when that pays; a large body is kept compressed only.
func newCachedAnswer(body []byte, headers ...[2]string) *cachedAnswer {
	return newCachedAnswerTagged(body, etagOf(body), headers...)
}

// newCachedAnswerTagged is newCachedAnswer of a body whose ETag is known.
func newCachedAnswerTagged(body []byte, etag string, headers ...[2]string) *cachedAnswer {
	a := &cachedAnswer{plain: body, length: len(body), etag: etag, weakETag: weakETagOf(etag), headers: headers}
	if len(body) < minGzipSize {
		return a
	}
	if a.gzipped = compress(body); a.gzipped != nil && len(body) >= gzipOnlySize {
		a.plain = nil
	}
	return a
}

// renewedAnswer is previous when body is what it was rendered from (the
// same ETag, which carries the length), so that its compressed form is
// not made again; otherwise a new answer of body. The ETag is computed
// once either way.
func renewedAnswer(previous *cachedAnswer, body []byte) *cachedAnswer {
	etag := etagOf(body)
	if previous != nil && previous.refusal == nil && len(previous.headers) == 0 && previous.etag == etag {
		return previous
	}
	return newCachedAnswerTagged(body, etag)
}

// refusalAnswer caches a refusal.
func refusalAnswer(err error) *cachedAnswer { return &cachedAnswer{refusal: err} }

// withFingerprint is a with the fingerprint of the data it was read from:
// a itself when it has that one already, else a copy sharing its bodies.
func withFingerprint(a *cachedAnswer, fingerprint models.HistoryFingerprint) *cachedAnswer {
	if a.fingerprint != nil && *a.fingerprint == fingerprint {
		return a
	}
	marked := *a
	marked.fingerprint = &fingerprint
	return &marked
}

// size is what the answer occupies in memory, roughly: its bodies, its
// ETags and its headers (a search page's Link header, with its cursors,
// can be far longer than its body), besides answerOverhead.
func (a *cachedAnswer) size() int64 {
	n := len(a.plain) + len(a.gzipped) + len(a.packed) + 2*len(a.etag) + answerOverhead
	for _, h := range a.headers {
		n += len(h[0]) + len(h[1])
	}
	return int64(n)
}

// answerOverhead is the memory of an answer besides its bodies: the
// struct, the cache entry, its place in the index and in its group.
const answerOverhead = 256

// compress returns body gzipped, or nil when that does not make it
// smaller.
func compress(body []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(body) / 4)
	// Compressed once, served many times. klauspost/compress (already
	// fasthttp's) inflates a 170 kB battles answer in 88 µs where the
	// standard library takes 154 µs, which is what an identity client
	// waits for when the plain form is not kept; at level 8 it compresses
	// it to within 2% of the standard library's default level (16.3 kB
	// against 16.0 kB), in 1.0 ms against 1.3 ms.
	zw, _ := gzip.NewWriterLevel(&buf, compressionLevel)
	_, _ = zw.Write(body)
	if zw.Close() != nil || buf.Len() >= len(body) {
		return nil
	}
	return bytes.Clone(buf.Bytes()) // the exact size: it may be kept for long
}

// etagOf is a strong validator of a body: its length and 64-bit FNV-1a
// hash.
func etagOf(body []byte) string {
	h := fnv.New64a()
	_, _ = h.Write(body)
	return `"` + strconv.FormatUint(uint64(len(body)), 36) + "-" + strconv.FormatUint(h.Sum64(), 36) + `"`
}

// weakETagOf is a strong ETag marked weak, W/"...".
func weakETagOf(etag string) []byte {
	return append([]byte("W/"), etag...)
}

// etagHeader is the ETag of the answer in the form it is sent: the strong
// ETag of the plain body, or, gzipped, the same marked weak, so that each
// strong validator names one sequence of bytes while If-None-Match (a
// weak comparison) matches either form's tag whichever form is asked.
func (a *cachedAnswer) etagHeader(gzipped bool) []byte {
	if gzipped {
		return a.weakETag
	}
	return a.weakETag[len(a.weakETag)-len(a.etag):]
}

// inflaters pools the gzip readers that inflate answers kept compressed
// only.
type inflaters struct {
	pool sync.Pool
}

// plainBody returns the plain body of a: as it is kept, or unpacked or
// inflated from its other forms into a new slice of its own (to be kept).
func (p *inflaters) plainBody(a *cachedAnswer) ([]byte, error) {
	if a.plain != nil || a.gzipped == nil {
		return a.plain, nil
	}
	if a.packed != nil {
		return unpack(nil, a)
	}
	// Exactly the body's length: the cache counts what it keeps by it.
	plain := bytes.NewBuffer(make([]byte, 0, a.length))
	if err := p.inflateInto(plain, a); err != nil {
		return nil, err
	}
	return plain.Bytes(), nil
}

// inflateInto writes the plain body of a, kept compressed only, to w: the
// answer's own body buffer (pooled by fasthttp) when the plain form is not
// to be kept, so that serving it allocates nothing.
func (p *inflaters) inflateInto(w io.Writer, a *cachedAnswer) error {
	src := bytes.NewReader(a.gzipped)
	zr, _ := p.pool.Get().(*gzip.Reader)
	if zr == nil {
		var err error
		if zr, err = gzip.NewReader(src); err != nil {
			return fmt.Errorf("inflate answer: %w", err)
		}
	} else if err := zr.Reset(src); err != nil {
		return fmt.Errorf("inflate answer: %w", err)
	}
	defer p.pool.Put(zr)
	n, err := zr.WriteTo(w)
	if err != nil {
		return fmt.Errorf("inflate answer: %w", err)
	}
	if n != int64(a.length) {
		return errors.New("inflate answer: not the length of the rendered body")
	}
	return nil
}

// pack packs the plain body of an answer kept compressed only, for the
// clients that do not accept gzip: S2 (a compressor built for speed, in
// klauspost/compress) packs a 162 kB battles answer into 19 kB (gzip:
// 14 kB) in 0.2 ms, and unpacks it in 23 µs where inflating its gzip form
// takes 125 µs (a 148 kB history: 25 kB, 22 µs against 147 µs).
// BenchmarkUnpack measures both on a 160 kB body.
func pack(plain []byte) []byte {
	return bytes.Clone(s2.EncodeBetter(nil, plain)) // the exact size: it is kept
}

// unpack returns the plain body of a from its packed form, in dst when it
// has room enough, else in a new slice of exactly the body's length.
func unpack(dst []byte, a *cachedAnswer) ([]byte, error) {
	if cap(dst) < a.length {
		dst = make([]byte, a.length)
	}
	plain, err := s2.Decode(dst[:a.length], a.packed)
	if err != nil {
		return nil, fmt.Errorf("unpack answer: %w", err)
	}
	if len(plain) != a.length {
		return nil, errors.New("unpack answer: not the length of the rendered body")
	}
	return plain, nil
}

// withPacked is a with the packed form of its plain body.
func (a *cachedAnswer) withPacked(packed []byte) *cachedAnswer {
	completed := *a
	completed.packed = packed
	return &completed
}

// withoutPacked is a without its packed form.
func (a *cachedAnswer) withoutPacked() *cachedAnswer {
	shrunk := *a
	shrunk.packed = nil
	return &shrunk
}

// withoutPlain is a kept compressed only.
func (a *cachedAnswer) withoutPlain() *cachedAnswer {
	shrunk := *a
	shrunk.plain = nil
	return &shrunk
}

// hasExtraPlain tells whether a keeps its plain body beside a compressed
// one it is otherwise kept as alone (see gzipOnlySize): an extra, which
// the response cache may drop again.
func (a *cachedAnswer) hasExtraPlain() bool {
	return a.plain != nil && a.gzipped != nil && a.length >= gzipOnlySize
}

// withPlain is a with its plain body kept beside the compressed one.
func (a *cachedAnswer) withPlain(plain []byte) *cachedAnswer {
	completed := *a
	completed.plain = plain
	return &completed
}
