package api

import "github.com/valyala/fasthttp"

// headerNames are the response headers every answer sets, in the
// canonical form fasthttp writes them: set with SetCanonical, they skip
// the copy and case normalization fasthttp makes of a name on every Set.
// The values that never change are kept beside them.
type headerNames struct {
	requestID, rateLimit, rateRemaining, ratePolicy, rate, etag, vary, cached []byte
	contentTypeOptions, cacheControl                                          []byte

	// valueTrue (of x-cached) and valueAcceptEncoding (of Vary).
	valueTrue, valueAcceptEncoding []byte
	// valueNoSniff (of X-Content-Type-Options, on every answer), and
	// valuePrivate and valueKeyedVary (Cache-Control and Vary of keyed
	// answers: no shared cache may keep one key's answer for another).
	valueNoSniff, valuePrivate, valueKeyedVary []byte
}

func newHeaderNames() headerNames {
	canonical := func(name string) []byte { return fasthttp.AppendNormalizedHeaderKey(nil, name) }
	return headerNames{
		requestID:     canonical(headerRequestID),
		rateLimit:     canonical(headerRateLimit),
		rateRemaining: canonical(headerRateRemaining),
		ratePolicy:    canonical(headerRateLimitPolicyIETF),
		rate:          canonical(headerRateLimitIETF),
		etag:          canonical(fasthttp.HeaderETag),
		vary:          canonical(fasthttp.HeaderVary),
		cached:        canonical(headerCached),

		contentTypeOptions: canonical(fasthttp.HeaderXContentTypeOptions),
		cacheControl:       canonical(fasthttp.HeaderCacheControl),

		valueTrue:           []byte("true"),
		valueAcceptEncoding: []byte(fasthttp.HeaderAcceptEncoding),
		valueNoSniff:        []byte("nosniff"),
		valuePrivate:        []byte("private, no-store"),
		valueKeyedVary:      []byte("auth, Authorization, Accept-Encoding"),
	}
}
