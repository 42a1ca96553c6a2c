package api

import (
	"io"
	"math/bits"
	"sync"
)

// unpackedBodies pools the buffers that answers are unpacked into for
// clients without gzip (see Server.sendUnpacked). fasthttp's own pool of
// response bodies keeps only buffers of the sizes most answers take: an
// answer of 150 kB unpacked into it, among answers of 15 kB, was unpacked
// into a new buffer almost every time, and the collector ran about ten
// times as often as when the same answers were served gzipped.
type unpackedBodies struct {
	pool sync.Pool
}

// unpackedBody is a response body in a buffer of the pool, handed to
// fasthttp as a body stream: it writes the body (WriteTo), and closes it
// once the response is written or dropped, which gives the buffer back.
type unpackedBody struct {
	bodies *unpackedBodies
	buffer []byte
	unread []byte
}

// unpack returns the plain body of a, unpacked into a buffer of the pool.
func (u *unpackedBodies) unpack(a *cachedAnswer) (*unpackedBody, error) {
	body, _ := u.pool.Get().(*unpackedBody)
	if body == nil {
		body = &unpackedBody{bodies: u}
	}
	if cap(body.buffer) < a.length {
		// A power of two: a buffer grown for one answer serves those of
		// about its size too.
		body.buffer = make([]byte, 0, 1<<bits.Len(uint(a.length)))
	}
	plain, err := unpack(body.buffer, a)
	if err != nil {
		u.pool.Put(body)
		return nil, err
	}
	body.buffer, body.unread = plain, plain
	return body, nil
}

// Read reads the body.
func (b *unpackedBody) Read(p []byte) (int, error) {
	if len(b.unread) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.unread)
	b.unread = b.unread[n:]
	return n, nil
}

// WriteTo writes the rest of the body to w.
func (b *unpackedBody) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b.unread)
	b.unread = b.unread[n:]
	return int64(n), err
}

// Close gives the buffer back to the pool.
func (b *unpackedBody) Close() error {
	b.unread = nil
	b.bodies.pool.Put(b)
	return nil
}
